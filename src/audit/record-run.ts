/**
 * The audit trail's entries for a CLI run of validate, import or reconcile: one per sheet (name,
 * sha256, orders per status), under the operating-system user. A run that keeps no ledger (an
 * offline validate where none exists yet) creates none for this.
 */
import { basename } from 'node:path';
import { osActor } from '../accounts/os-user.js';
import type { AuditEvent, Ledger } from '../ledger/index.js';
import type { Logger } from '../log.js';
import type { JsonReport } from '../run-report/json.js';

/** The entries a report makes (pure): per input sheet, its orders counted by status. */
export function auditEventsOf(report: JsonReport, actor: Pick<AuditEvent, 'actor' | 'via' | 'address'>, ref: string | null): AuditEvent[] {
  const action = report.command;
  if (report.input.length === 0) return [{ ...actor, action, counts: report.summary, ref }];
  const isSingle = report.input.length === 1;
  return report.input.map((input) => {
    // Reconciling the ledger's own orders: the input is the ledger, not a sheet; the entry names the workbook written.
    if (report.command === 'reconcile' && input.sha256 === null) {
      const workbook = [report.output].flat().find((path): path is string => typeof path === 'string');
      return { ...actor, action, fileName: workbook ? basename(workbook) : null, counts: report.summary, ref, detail: `the ${input.orders} order${input.orders === 1 ? '' : 's'} the ledger recorded as sent` };
    }
    // A reconcile's one input is counted by its summary: its orders (a million, maybe on disk) are not walked.
    const counts = isSingle && report.command === 'reconcile' ? report.summary : { rows: input.rows, ...statusCountsOf(report, isSingle ? undefined : input.file) };
    return {
      ...actor,
      action,
      fileName: input.file,
      fileSha256: input.sha256,
      counts,
      ref,
      detail: input.error ? `not read: ${input.error.code}` : null,
    };
  });
}

function statusCountsOf(report: JsonReport, file: string | undefined): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const order of report.orders as Iterable<{ file?: string; status?: string }>) {
    if (file !== undefined && order.file !== file) continue;
    if (order.status) counts[order.status] = (counts[order.status] ?? 0) + 1;
  }
  return counts;
}

/** Records the run in a ledger the entry point holds open; a ledger that cannot take it is logged, never a failure of the run that is over. */
export async function recordRunIn(ledger: Ledger, report: JsonReport, options: { logger: Logger; ref?: string | null }): Promise<void> {
  try {
    const { name, via, address } = osActor();
    for (const event of auditEventsOf(report, { actor: name, via, address }, options.ref ?? null)) await ledger.audit.record(event);
  } catch (error) {
    options.logger.warn({ err: (error as Error).message }, 'the run could not be recorded in the audit trail');
  }
}
