/**
 * The audit trail's entries of a scheduled run: those of the same run from the command line (one per
 * sheet, its orders per status), under the schedule's name as actor ("schedule nightly-import") and
 * the host it ran on as address, so the trail says which schedule did it and where.
 */
import { auditEventsOf } from '../audit/record-run.js';
import type { Ledger } from '../ledger/index.js';
import type { Logger } from '../log.js';
import type { JsonReport } from '../run-report/json.js';

/** The audit trail's actor of a schedule's runs. */
export function scheduleActor(name: string): string {
  return `schedule ${name}`;
}

/** Records the run in the run's ledger (none: it kept none); a ledger that cannot take it is logged, never a failure of the run that is over. */
export async function recordScheduledRun(
  ledger: Ledger | undefined,
  report: JsonReport,
  options: { schedule: string; host: string; ref: string | null; logger: Logger },
): Promise<void> {
  if (!ledger) return;
  try {
    for (const event of auditEventsOf(report, { actor: scheduleActor(options.schedule), via: 'cli', address: options.host }, options.ref)) await ledger.audit.record(event);
  } catch (error) {
    options.logger.warn({ err: (error as Error).message }, 'the scheduled run could not be recorded in the audit trail');
  }
}
