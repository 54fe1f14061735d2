/**
 * Ledger errors. Those a user can cause or fix (another run holds the ledger, the file is not a
 * ledger, it was written by a newer version) extend UsageError, so the CLI's one top-level catch
 * prints them as one line with exit code 2. A forbidden transition is a bug and stays a plain Error.
 */
import { UsageError } from '../errors.js';
import type { LockHolder, OrderState } from './types.js';

/** The ledger file cannot be opened or used (not a database, unwritable, newer schema). */
export class LedgerError extends UsageError {
  constructor(
    readonly path: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    // UsageError types its name as the literal 'UsageError'; set the subclass's own name at runtime.
    Object.defineProperty(this, 'name', { value: new.target.name, enumerable: false, configurable: true, writable: true });
  }
}

/** Another run holds the ledger's run lock. */
export class LedgerBusyError extends LedgerError {
  constructor(
    path: string,
    /** null when the holder had not yet written who it is. */
    readonly holder: LockHolder | null,
    waitedMs: number,
  ) {
    super(path, describeBusy(path, holder, waitedMs));
  }
}

/** A transition the state machine forbids (e.g. rejecting an accepted order), or an unknown order. */
export class LedgerStateError extends Error {
  override readonly name = 'LedgerStateError';
  constructor(
    readonly customerOrderId: string,
    readonly state: OrderState | null,
    readonly transition: string,
  ) {
    super(
      state === null
        ? `Ledger has no record of order '${customerOrderId}' (${transition}).`
        : `Ledger cannot ${transition} order '${customerOrderId}': it is ${state}.`,
    );
  }
}

function describeBusy(path: string, holder: LockHolder | null, waitedMs: number): string {
  const who = holder
    ? `process ${holder.pid} on ${holder.host}${holder.command ? ` (${holder.command})` : ''}, started at ${holder.startedAt}`
    : 'another process';
  const waited = waitedMs > 0 ? ` after waiting ${Math.round(waitedMs / 1000)} s` : '';
  return `Another run is using the ledger ${path}: ${who}. Two runs on one ledger never interleave; try again when it ends${waited}, or pass --ledger <path> for a separate ledger.`;
}
