/** Pure decisions of reading a remote folder: whether a file has settled, what names its version, retry delays. */
import type { RemoteEntry } from './store.js';

/** Why a file waits for the next run, or null when it can be read now. */
export function whyWaiting(first: RemoteEntry, second: RemoteEntry | null, nowMs: number, settleSeconds: number): string | null {
  if (second === null) return 'it disappeared while the folder was read';
  if (second.size !== first.size || second.mtimeMs !== first.mtimeMs || second.etag !== first.etag) {
    return `it is still changing (${first.size} bytes, then ${second.size} bytes a moment later)`;
  }
  const ageSeconds = Math.floor((nowMs - second.mtimeMs) / 1000);
  if (ageSeconds < settleSeconds) return `it was modified ${Math.max(0, ageSeconds)} s ago, less than --settle ${settleSeconds} s: it may still be uploading`;
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
