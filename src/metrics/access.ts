/** Who may read /metrics: this computer, or whoever shows ORDER_BATCH_METRICS_TOKEN as a bearer token (compared in constant time). */
import { createHash, timingSafeEqual } from 'node:crypto';
import { isLoopback } from '../notify/targets.js';

export function mayReadMetrics(request: { ip: string; authorization: string | undefined }, token: string | undefined): boolean {
  if (isLoopback(request.ip.replace(/^::ffff:/, ''))) return true;
  if (!token || !request.authorization) return false;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.authorization);
  if (!match) return false;
  // Hashes of equal length, so the comparison's time says nothing of the token's length either.
  return timingSafeEqual(createHash('sha256').update(match[1]!).digest(), createHash('sha256').update(token).digest());
}
