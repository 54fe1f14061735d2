/**
 * What a long-running instance tidies: uploads, results and reconciliations past their retention
 * (default 90 days; the runs' history and the audit trail stay), and sessions idle past their time.
 * Every instance does it; doing it twice removes nothing more.
 */
import type { Ledger } from '../ledger/index.js';
import type { Logger } from '../log.js';
import type { SharedFiles } from './shared-files.js';

const DAY_MS = 86_400_000;
/** Once an hour: retention is counted in days. */
export const HOUSEKEEPING_EVERY_MS = 3_600_000;

export async function tidyUp(options: { files: SharedFiles; ledger: Pick<Ledger, 'sessions' | 'attempts'>; retentionDays: number; sessionIdleMs: number; now: Date; logger: Logger }): Promise<void> {
  try {
    await options.files.removeOlderThan(new Date(options.now.getTime() - options.retentionDays * DAY_MS));
    await options.ledger.sessions.sweep(options.sessionIdleMs);
    await options.ledger.attempts.sweep(DAY_MS);
  } catch (error) {
    options.logger.warn({ err: (error as Error).message }, 'could not remove what is past its retention; trying again in an hour');
  }
}

/** Tidies now and then every hour until stopped. */
export function startHousekeeping(run: () => Promise<void>): () => Promise<void> {
  let running = run();
  const timer = setInterval(() => (running = running.then(run)), HOUSEKEEPING_EVERY_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
