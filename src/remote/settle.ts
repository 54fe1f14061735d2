/** Pure decisions of reading a remote folder: whether a file has settled, what names its version, retry delays. */
import type { RemoteEntry } from './stores/store.js';

/** Two clocks this close are one clock here: SFTP times and HTTP dates are whole seconds. */
export const CLOCK_TOLERANCE_MS = 2_000;

/** The clock a file's modification time is compared with. */
export interface SettleClock {
  /** This host's time, ms since the epoch. */
  nowMs: number;
  /** The server's clock minus this host's, when the server tells its time (S3's Date header); SFTP tells none. */
  serverOffsetMs?: number;
}

/** How far a file's time is ahead of the server's now (this host's when the server tells none), in ms; negative for its age. */
export function msAheadOf(entry: RemoteEntry, clock: SettleClock): number {
  return entry.mtimeMs - (clock.nowMs + (clock.serverOffsetMs ?? 0));
}

/**
 * True when the file's time cannot be read as an age: it lies ahead of the clock it is compared with,
 * beyond rounding, so the server's clock runs ahead of this host's (or the file was stamped ahead).
 */
export function isAheadOfClock(entry: RemoteEntry, clock: SettleClock): boolean {
  return msAheadOf(entry, clock) > CLOCK_TOLERANCE_MS;
}

/**
 * Why a file waits for the next run, or null when it can be read now. Its age is counted on the
 * server's clock where the server tells it, so a server whose clock runs behind does not make a file
 * being uploaded look old. A time ahead of the clock is no age at all: such a file settles once it
 * has been watched unchanged for the settle window (`watchedMs`, from the first look to the second).
 */
export function whyWaiting(first: RemoteEntry, second: RemoteEntry | null, clock: SettleClock, settleSeconds: number, watchedMs = 0): string | null {
  if (second === null) return 'it disappeared while the folder was read';
  if (second.size !== first.size || second.mtimeMs !== first.mtimeMs || second.etag !== first.etag) {
    return `it is still changing (${first.size} bytes, then ${second.size} bytes a moment later)`;
  }
  const aheadMs = msAheadOf(second, clock);
  if (aheadMs > CLOCK_TOLERANCE_MS) {
    if (watchedMs >= settleSeconds * 1000) return null;
    const whose = clock.serverOffsetMs === undefined ? "this host's clock (the server's clock runs ahead)" : "the server's own clock";
    return `its modification time is ${Math.round(aheadMs / 1000)} s ahead of ${whose}: it is read once it has kept its size and time for --settle ${settleSeconds} s`;
  }
  // Within rounding of the clock: no older than now.
  const ageSeconds = Math.max(0, Math.floor(-aheadMs / 1000));
  if (ageSeconds < settleSeconds) return `it was modified ${ageSeconds} s ago, less than --settle ${settleSeconds} s: it may still be uploading`;
  return null;
}

/** What identifies one version of a file: the ETag where the store has one, else its size and time. */
export function versionOf(entry: RemoteEntry): string {
  return entry.etag !== undefined ? `etag:${entry.etag}` : `size:${entry.size};mtime:${new Date(entry.mtimeMs).toISOString()}`;
}

/** Delay before download attempt `attempt` (2, 3, ...): 0.5 s doubling, at most 8 s. */
export function retryDelayMs(attempt: number, baseMs = 500, maxMs = 8000): number {
  return Math.min(maxMs, baseMs * 2 ** (attempt - 2));
}

/** Downloads tried per file before it is reported. */
export const DOWNLOAD_ATTEMPTS = 4;
