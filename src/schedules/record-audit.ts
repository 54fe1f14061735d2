/**
 * The audit trail's entries of a scheduled run: those of the same run from the command line (one per
 * sheet, its orders per status), under the schedule's name as actor ("schedule nightly-import") and
 * the host it ran on as address, so the trail says which schedule did it and where.
 */
import { auditEventsOf } from '../audit/record-run.js';
import { ledgerExists, openLedger } from '../ledger/index.js';
import type { Logger } from '../log.js';
import type { JsonReport } from '../run-report/json.js';

/** The audit trail's actor of a schedule's runs. */
export function scheduleActor(name: string): string {
  return `schedule ${name}`;
}

/** Records the run; a ledger that cannot take it is logged, never a failure of the run that is over. */
export async function recordScheduledRun(
  ledgerPath: string,
  report: JsonReport,
  options: { schedule: string; host: string; ref: string | null; logger: Logger; isLedgerOptional?: boolean },
): Promise<void> {
  if (options.isLedgerOptional && !ledgerExists(ledgerPath)) return;
  try {
    const ledger = await openLedger(ledgerPath, { logger: options.logger });
    try {
      for (const event of auditEventsOf(report, { actor: scheduleActor(options.schedule), via: 'cli', address: options.host }, options.ref)) await ledger.audit.record(event);
    } finally {
      await ledger.close();
    }
  } catch (error) {
    options.logger.warn({ err: (error as Error).message }, 'the scheduled run could not be recorded in the audit trail');
  }
}
