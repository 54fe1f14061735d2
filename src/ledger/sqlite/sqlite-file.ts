/**
 * Opening an SQLite ledger file: its folder, its pragmas, its schema brought up to date.
 */
import { closeSync, fchmodSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import { silentLogger, type Logger } from '../../log.js';
import { LedgerError } from '../errors.js';
import { MIGRATIONS, migrateSchema, readSchemaVersion, SchemaTooNewError } from './schema.js';
import { classifySqliteError } from './sqlite-errors.js';
import { openDatabase } from '../../sqlite/open-database.js';

/** How long opening waits for another process that is upgrading the ledger's schema. */
const MIGRATION_WAIT_MS = 120_000;

export interface OpenFileOptions {
  logger?: Logger;
  /** How long a write waits for another connection's write to finish, in ms. Default 5,000. */
  busyTimeoutMs?: number;
}

/**
 * Opens (creating folder, file and schema when needed) the ledger database at `fullPath`;
 * ':memory:' gives a private in-memory one. Throws LedgerError when the file cannot serve as a ledger.
 */
export function openLedgerDatabase(fullPath: string, options: OpenFileOptions = {}): Database.Database {
  const logger = options.logger ?? silentLogger;
  const busyTimeoutMs = options.busyTimeoutMs ?? 5_000;
  let db: Database.Database | undefined;
  try {
    if (fullPath !== ':memory:') createPrivately(fullPath);
    db = openDatabase(fullPath, { timeout: busyTimeoutMs });
    // WAL: readers (the web app's history) never block the run's writes, and a commit is one append.
    db.exec('PRAGMA journal_mode = WAL');
    // NORMAL: a commit reaches the operating system before the call returns, so it survives the
    // process being killed at any instant (SIGKILL, crash, OOM): PRODUCT.md's "a run killed at any
    // instant". An OS crash or power cut may roll back the last commits (never corrupt the file); even
    // then no order is sent twice, because the API refuses a second order with the same
    // customerOrderId (409): a re-sent order whose record was lost comes back as already_exists
    // instead of already_submitted. An fsync per commit (FULL) would block the event loop on every
    // order (better-sqlite3 is synchronous) for that case alone.
    db.exec('PRAGMA synchronous = NORMAL');
    const found = readSchemaVersion(db);
    if (found > 0 && found < MIGRATIONS.length) {
      logger.info({ ledger: fullPath, from: found, to: MIGRATIONS.length }, 'upgrading the ledger to this version of order-batch (once; a big ledger takes a few seconds)');
    }
    // Another process may be upgrading it right now (one transaction, seconds on a big ledger):
    // wait for that rather than fail after the usual few seconds.
    if (found < MIGRATIONS.length) db.exec(`PRAGMA busy_timeout = ${Math.max(busyTimeoutMs, MIGRATION_WAIT_MS)}`);
    const applied = migrateSchema(db);
    db.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
    if (applied.length > 0) logger.debug({ ledger: fullPath, versions: applied }, 'ledger schema migrated');
    return db;
  } catch (error) {
    db?.close();
    if (error instanceof SchemaTooNewError) throw new LedgerError(fullPath, `The ledger ${fullPath} was written by a newer order-batch (${error.message}).`, { cause: error });
    // SQLite's own failures (not a database, locked, full, damaged...) in words; anything else as it came.
    throw classifySqliteError(error, fullPath, 'open') ?? new LedgerError(fullPath, `Cannot open the ledger ${fullPath}: ${messageOf(error)}`, { cause: error });
  }
}

/**
 * The ledger holds every order sent (customers' names, addresses, phones) and the web app's accounts:
 * a new one is this user's alone, its folder 0700 and the file 0600 (SQLite gives its -wal and -shm
 * files the database's own mode), whatever the umask. An existing file is left as its owner set it.
 */
function createPrivately(fullPath: string): void {
  mkdirSync(dirname(fullPath), { recursive: true, mode: 0o700 });
  let fd: number;
  try {
    fd = openSync(fullPath, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw error;
  }
  try {
    fchmodSync(fd, 0o600);
  } finally {
    closeSync(fd);
  }
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
