/** A notification that could not be delivered, in the audit trail of a CLI run's ledger (the web app records through its own). */
import { osActor } from '../accounts/os-user.js';
import type { AuditEvent, Ledger } from '../ledger/index.js';
import type { Logger } from '../log.js';
import type { NotifyFailure } from './notify-run.js';

export function notifyFailureEvent(failure: NotifyFailure, actor: Pick<AuditEvent, 'actor' | 'via' | 'address'>, ref: string | null): AuditEvent {
  return { ...actor, action: 'notify_failed', ref, detail: `${failure.target}: ${failure.reason}` };
}

/** Records the failed delivery in the run's ledger (none: the run kept none); a ledger that cannot take it is logged. */
export async function recordNotifyFailure(ledger: Ledger | undefined, failure: NotifyFailure, options: { logger: Logger; ref: string | null }): Promise<void> {
  if (!ledger) return;
  try {
    const { name, via, address } = osActor();
    await ledger.audit.record(notifyFailureEvent(failure, { actor: name, via, address }, options.ref));
  } catch (error) {
    options.logger.warn({ err: (error as Error).message }, 'the failed notification could not be recorded in the audit trail');
  }
}
