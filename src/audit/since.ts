/** `audit --since` and `--until`: an ISO 8601 instant, or a time back from now (90m, 24h, 7d). */
import { UsageError } from '../errors.js';

const AGO = /^(\d+)\s*(m|min|h|d|w)$/i;
const UNIT_MS: Record<string, number> = { m: 60_000, min: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

export function parseInstantOrAgo(flag: string, text: string, now: Date): string {
  const ago = AGO.exec(text.trim());
  if (ago) return new Date(now.getTime() - Number(ago[1]) * UNIT_MS[ago[2]!.toLowerCase()]!).toISOString();
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw new UsageError(`${flag} takes an ISO 8601 date or instant (2026-11-01, 2026-11-01T08:00:00Z) or a time back from now (90m, 24h, 7d), not "${text}".`);
  return new Date(ms).toISOString();
}
