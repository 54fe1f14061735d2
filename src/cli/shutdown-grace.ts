/** How `serve` and `scheduler` bound their stop: the work in flight gets a grace, then is let go of. */
import { parseNumberFlag } from './command-options.js';

/** Thirty seconds: the answers in flight come back well within it; a stop that takes longer is stuck, and a service manager's own timeout (systemd's 90 s) is not reached. */
export const DEFAULT_SHUTDOWN_GRACE_SECONDS = 30;

/** --shutdown-grace: 0 to 3600 seconds, default 30. A UsageError names the flag. */
export function parseShutdownGrace(value: string | undefined): number {
  return parseNumberFlag('shutdown-grace', value, { min: 0, max: 3600 }) ?? DEFAULT_SHUTDOWN_GRACE_SECONDS;
}

/** What `stopping` resolved to, or 'late' when the grace ended first. */
export async function withinGrace<T>(stopping: Promise<T>, graceSeconds: number): Promise<T | 'late'> {
  let timer: NodeJS.Timeout | undefined;
  const graceOver = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), graceSeconds * 1000)));
  try {
    return await Promise.race([stopping, graceOver]);
  } finally {
    clearTimeout(timer);
  }
}
