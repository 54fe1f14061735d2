/** A notification that could not be delivered, in the audit trail of a CLI run's ledger (the web app records through its own). */
import { osActor } from '../accounts/os-user.js';
import { ledgerExists, openLedger } from '../ledger/index.js';
import type { AuditEvent } from '../ledger/team-types.js';
import type { Logger } from '../log.js';
import type { NotifyFailure } from './notify-run.js';

export function notifyFailureEvent(failure: NotifyFailure, actor: Pick<AuditEvent, 'actor' | 'via' | 'address'>, ref: string | null): AuditEvent {
  return { ...actor, action: 'notify_failed', ref, detail: `${failure.target}: ${failure.reason}` };
}

export async function recordNotifyFailure(ledgerPath: string, failure: NotifyFailure, options: { logger: Logger; ref: string | null }): Promise<void> {
  if (!ledgerExists(ledgerPath)) return;
  try {
    const ledger = await openLedger(ledgerPath, { logger: options.logger });
    try {
      const { name, via, address } = osActor();
      await ledger.audit.record(notifyFailureEvent(failure, { actor: name, via, address }, options.ref));
    } finally {
      await ledger.close();
    }
  } catch (error) {
    options.logger.warn({ err: (error as Error).message }, 'the failed notification could not be recorded in the audit trail');
  }
}
