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
    super(path, describeRunLockRefusal(path, holder, waitedMs));
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

/** A wait shorter than this was a refusal at once: the lock was tried, not waited for. */
const AT_ONCE_MS = 1000;

/**
 * Why a run did not start, for the one line the CLI prints: who holds the ledger and what to do. A run
 * that was refused at once and one that gave up after waiting read differently; a refusal at once never
 * mentions a wait (the few ms spent trying the lock are not one).
 */
export function describeRunLockRefusal(path: string, holder: LockHolder | null, waitedMs: number): string {
  const who = holder
    ? `process ${holder.pid} on ${holder.host}${holder.command ? ` (${holder.command})` : ''}, started at ${holder.startedAt}`
    : 'another process';
  const what = waitedMs < AT_ONCE_MS ? `Another run is using the ledger ${path}` : `Another run was still using the ledger ${path} after ${formatWait(waitedMs)} of waiting`;
  return `${what}: ${who}. Two runs on one ledger never interleave, so this one did not start: run it again once that one has finished (a separate --ledger would not know what this one has sent, so it could send an order twice).`;
}

function formatWait(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 120) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  return `${minutes} min`;
}

/**
 * A run's hold on an order has ended: its lease expired (the process stalled, or lost the database,
 * for longer than the lease) and another run took the order over. Nothing was recorded; the run must
 * not send the order. Only backends with several runs at once (claims) throw it.
 */
export class LedgerClaimLostError extends LedgerError {
  constructor(
    location: string,
    readonly customerOrderId: string,
    readonly runId: string,
  ) {
    super(
      location,
      `This run no longer holds order '${customerOrderId}' in the ledger ${location}: its lease expired and another run took the order over, so this run stopped sending. The other run settles the order.`,
    );
  }
}

/**
 * The ledger's storage failed once the ledger was open, in the middle of a command (a full disk, a
 * damaged file, a lost database server): the user's or the machine's situation, never a bug, and the
 * run cannot go on. `code` is the storage's own (SQLITE_FULL, an SQLSTATE...). An import stops sending
 * (nothing goes out that the ledger could not record first) and writes the result file for what was
 * settled; the CLI exits 3, as for an API that stopped answering. A ledger that cannot be opened at
 * all is a plain LedgerError (exit 2).
 */
export class LedgerUnusableError extends LedgerError {
  constructor(
    path: string,
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(path, message, options);
  }
}
