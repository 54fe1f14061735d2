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
 * The ledger's storage failed under a run (the disk is full, the file is damaged, read-only, or its
 * disk failed): the user's or the machine's situation, never a bug. `code` is the storage's own
 * (SQLITE_FULL...). The run stops sending (nothing goes out that the ledger could not record first),
 * writes the result file for what was settled, and exits 2.
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

/** What to say of each SQLite result code a user's situation produces (by its primary code: SQLITE_IOERR_WRITE is SQLITE_IOERR). */
const SQLITE_SITUATIONS: Readonly<Record<string, (path: string, detail: string) => string>> = {
  SQLITE_FULL: (path) =>
    `The ledger ${path} could not be written: the disk is full. Free some space on that disk, then run the same command again (the orders the ledger recorded are not sent twice).`,
  SQLITE_CORRUPT: (path, detail) =>
    `The ledger ${path} is damaged (${detail}). Restore it from a backup, or rescue what can be read (sqlite3 ${path} .recover), then run the same command again; ` +
    'do not start over with an empty ledger, which would not know the orders already sent.',
  SQLITE_NOTADB: (path) =>
    `The file ${path} is not an order-batch ledger (not an SQLite database): a file given by mistake (pass --ledger <path> for the ledger), or a ledger damaged beyond reading (restore it from a backup).`,
  SQLITE_IOERR: (path, detail) => `The ledger ${path} could not be read or written: the disk reported an error (${detail}). Check the disk and its free space, then run the same command again.`,
  SQLITE_READONLY: (path) =>
    `The ledger ${path} is read-only: make it and its folder writable for this user (SQLite writes ${path}-wal and ${path}-shm beside it), or pass --ledger <path>.`,
  SQLITE_CANTOPEN: (path) => `The ledger ${path} cannot be opened: check that its folder exists and this user may write in it, or pass --ledger <path>.`,
  SQLITE_PERM: (path) => `The ledger ${path} cannot be used: permission denied. Make it and its folder writable for this user, or pass --ledger <path>.`,
  SQLITE_AUTH: (path) => `The ledger ${path} cannot be used: permission denied. Make it and its folder writable for this user, or pass --ledger <path>.`,
  SQLITE_BUSY: (path) => `The ledger ${path} stayed locked by another process; run the same command again once it has finished.`,
  SQLITE_LOCKED: (path) => `The ledger ${path} stayed locked by another process; run the same command again once it has finished.`,
  SQLITE_PROTOCOL: (path) => `The ledger ${path} could not be locked (SQLite's locking fails on some network shares): keep the ledger on a local disk, or pass --ledger <path>.`,
  SQLITE_NOMEM: (path) => `The ledger ${path} could not be used: this computer ran out of memory. Close other programs, then run the same command again.`,
  SQLITE_NOLFS: (path) => `The ledger ${path} is too large for its file system. Move it to another disk (--ledger <path>).`,
};

/**
 * The LedgerUnusableError for an SQLite failure that is the user's or the machine's situation (a full
 * disk, a damaged file...), naming the ledger and what to do; null for any other error (a bug, such as
 * SQL the ledger got wrong), which must not pass for the user's problem.
 */
export function classifySqliteError(error: unknown, path: string): LedgerUnusableError | null {
  if (error instanceof LedgerUnusableError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return null;
  const primary = /^SQLITE_[A-Z]+/.exec(code)?.[0];
  const describe = primary === undefined ? undefined : SQLITE_SITUATIONS[primary];
  if (describe === undefined) return null;
  const message = error instanceof Error ? error.message : '';
  return new LedgerUnusableError(path, code, describe(path, message === '' ? code : `${message}, ${code}`), { cause: error });
}
