/**
 * The run lock: two runs on one ledger never interleave (PRODUCT.md section 5).
 *
 * Why an OS file lock and not a lock row with a pid: a row is only released by code, so a SIGKILLed
 * run would leave it behind, and telling a dead holder from a live one by pid is fragile (pids are
 * reused after a reboot or wrap-around; a pid on another host cannot be checked at all). An OS lock
 * is released by the kernel when its process dies, whatever the death.
 *
 * The lock is SQLite's own: a connection to a small side file (`<ledger>.lock`) in rollback-journal
 * mode that runs `BEGIN EXCLUSIVE` and keeps the transaction open for the whole run. SQLite takes
 * POSIX advisory locks (fcntl) on Unix and LockFileEx on Windows; both die with the process. Within
 * one process SQLite arbitrates between its connections itself, so a second Ledger opened on the same
 * file in the same process is refused too. The side file keeps the lock apart from the ledger, whose
 * WAL writers must not be blocked. Two cautions, both SQLite's own: POSIX locks are dropped when the
 * process closes ANY descriptor of the file, so nothing but SQLite may open the `.lock` file in a
 * process that holds it; and advisory locks are unreliable on network file systems, so the ledger
 * belongs on a local disk.
 */
import { openDatabase } from './open-database.js';

export interface FileLock {
  /** Ends the transaction (dropping the OS lock) and closes the connection; safe to call twice. */
  release(): void;
}

/** Takes the lock if it is free; null when another connection (in this or any process) holds it. */
export function tryLockFile(lockPath: string): FileLock | null {
  // timeout 0: never sleep inside SQLite's busy handler, which would block the event loop; the
  // caller polls asynchronously instead.
  const db = openDatabase(lockPath, { timeout: 0 });
  try {
    db.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    db.close();
    if (isBusyError(error)) return null;
    throw error;
  }
  let held = true;
  return {
    release() {
      if (!held) return;
      held = false;
      try {
        db.exec('ROLLBACK');
      } finally {
        db.close();
      }
    },
  };
}

export function isBusyError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

/** A lock for an in-memory ledger, which no other connection can see: only this ledger can contend for it. */
export function createMemoryLock(): () => FileLock | null {
  let held = false;
  return () => {
    if (held) return null;
    held = true;
    return {
      release() {
        held = false;
      },
    };
  };
}
