/**
 * The sandbox's date helpers. Every date-time is read as an instant by the contract's
 * parseApiInstant (an explicit offset wins, none means UTC: never the host's zone, so a seed
 * replays the same on every machine).
 */
import { ISO_DATE_TIME } from '../contract/instant.js';
import { LIMITS } from '../contract/limits.js';

export { parseApiInstant } from '../contract/instant.js';

const DAY_MS = 86_400_000;
/** True when a date-time names its offset (Z or ±hh:mm): the tracking query dates must (api-spec 4.2). */
export function hasUtcOffset(text: string): boolean {
  const m = ISO_DATE_TIME.exec(text.trim());
  return Boolean(m && m[4] !== undefined && m[8] !== undefined);
}

export function startOfUtcDay(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

/** orderRegionInfo is redacted 30 days after the order creation day: from 00:00 UTC of day creation+30. */
export function isRegionRedacted(createdAtMs: number, nowMs: number): boolean {
  return nowMs >= startOfUtcDay(createdAtMs) + LIMITS.regionRedactionDays * DAY_MS;
}

export function toIso(ms: number): string {
  return new Date(ms).toISOString();
}
