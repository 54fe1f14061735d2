/**
 * SQLite failures in words (by result code): a full disk, a damaged file, a read-only folder are the
 * user's or the machine's situation, never a bug. Each becomes a LedgerError naming the ledger and
 * what to do; one met once the ledger is open, in the middle of a command, is a LedgerUnusableError.
 */
import { LedgerError, LedgerUnusableError } from '../errors.js';

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
 * The error to throw for an SQLite failure that is the user's or the machine's situation (a full
 * disk, a damaged file...), naming the ledger and what to do; null for any other error (a bug, such as
 * SQL the ledger got wrong), which must not pass for the user's problem. `during` says when it came:
 * while opening the ledger (a LedgerError, exit 2), or once it was open (a LedgerUnusableError, exit 3).
 */
export function classifySqliteError(error: unknown, path: string, during: 'open' | 'run'): LedgerError | null {
  if (error instanceof LedgerError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return null;
  const primary = /^SQLITE_[A-Z]+/.exec(code)?.[0];
  const describe = primary === undefined ? undefined : SQLITE_SITUATIONS[primary];
  if (describe === undefined) return null;
  const message = error instanceof Error ? error.message : '';
  const words = describe(path, message === '' ? code : `${message}, ${code}`);
  return during === 'open' ? new LedgerError(path, words, { cause: error }) : new LedgerUnusableError(path, code, words, { cause: error });
}
