/**
 * A run that could not keep its work on disk (spill.ts): a full disk, a temporary folder that is not
 * there or not writable. That is the machine's situation, said with what to do, never a bug's trace.
 */
import { describeFileSystemError, fileSystemErrorCode, OutputError } from '../errors.js';
import type { RunSpill } from './spill.js';

/** SQLite's words for a disk that failed it, by primary result code. */
const SQLITE_REASONS: Readonly<Record<string, string>> = {
  SQLITE_FULL: 'the disk is full',
  SQLITE_IOERR: 'the disk reported an input/output error',
  SQLITE_CANTOPEN: 'the file could not be created there',
  SQLITE_READONLY: 'the folder is read-only',
  SQLITE_PERM: 'permission denied',
};

/** The error to report for a failure to keep the run's work on disk; null for any other error. */
export function describeSpillFailure(error: unknown, spill: RunSpill): OutputError | null {
  const fsCode = fileSystemErrorCode(error);
  const sqliteCode = /^SQLITE_[A-Z]+/.exec(String((error as { code?: unknown } | null)?.code ?? ''))?.[0];
  const reason = fsCode !== null ? describeFileSystemError(error) : sqliteCode ? SQLITE_REASONS[sqliteCode] : undefined;
  // Only the working file's own failures: a ledger's or a package store's are theirs to describe.
  const isSpills = error === spill.openFailure || (spill.isUsed && sqliteCode !== undefined);
  if (reason === undefined || !isSpills) return null;
  return new OutputError(
    spill.folder,
    fsCode ?? sqliteCode ?? null,
    `Reconcile could not keep its work on disk in ${spill.folder}: ${reason}. A run too large for memory keeps its packages and orders there ` +
      '(about 3 KB a package, given back when it ends): free some space there, or set TMPDIR to a folder on a disk with more room, then run reconcile again ' +
      '(nothing of this run was recorded as done).',
    { cause: error },
  );
}
