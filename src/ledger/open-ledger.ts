/**
 * Opening the ledger: the file, its pragmas, its schema, and the run lock around a run.
 */
import { mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type Database from 'better-sqlite3';
import { silentLogger, type Logger } from '../log.js';
import { classifySqliteError, LedgerBusyError, LedgerError } from './errors.js';
import { guardLedger } from './guard.js';
import { OrderStore } from './order-store.js';
import { createMemoryLock, tryLockFile, type FileLock } from './run-lock.js';
import { RunStore } from './run-store.js';
import { MIGRATIONS, migrateSchema, readSchemaVersion, SchemaTooNewError } from './schema.js';

/** How long opening waits for another process that is upgrading the ledger's schema. */
const MIGRATION_WAIT_MS = 120_000;
import { openDatabase } from './sqlite.js';
import type { AcquireRunLockOptions, Durability, Ledger, LedgerOptions, RunLock } from './types.js';

const DEFAULT_LOCK_TIMEOUT_MS = 30_000;
const DEFAULT_POLL_MS = 100;

/**
 * Opens (creating directory, file and schema when needed) the ledger at `path`; ':memory:' gives a
 * private in-memory ledger for tests. Throws LedgerError when the file cannot serve as a ledger.
 */
export function openLedger(path: string, options: LedgerOptions = {}): Ledger {
  const isMemory = path === ':memory:';
  const fullPath = isMemory ? path : resolve(path);
  const durability: Durability = options.durability ?? 'normal';
  const logger = options.logger ?? silentLogger;
  let db: Database.Database | undefined;
  try {
    if (!isMemory) mkdirSync(dirname(fullPath), { recursive: true });
    db = openDatabase(fullPath, { timeout: options.busyTimeoutMs ?? 5_000 });
    // WAL: readers (the web app's history) never block the run's writes, and a commit is one append.
    db.exec('PRAGMA journal_mode = WAL');
    db.exec(`PRAGMA synchronous = ${durability === 'full' ? 'FULL' : 'NORMAL'}`);
    const busyTimeoutMs = options.busyTimeoutMs ?? 5_000;
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
  } catch (error) {
    db?.close();
    throw (error instanceof SchemaTooNewError ? null : classifySqliteError(error, fullPath)) ?? new LedgerError(fullPath, describeOpenFailure(fullPath, error), { cause: error });
  }
  const tryLock = isMemory ? createMemoryLock() : () => tryLockFile(`${fullPath}.lock`);
  // A full disk or a damaged file met in the middle of a run is said as such, not as a bug.
  return guardLedger(new SqliteLedger(fullPath, db, options.now ?? (() => new Date()), durability, logger, tryLock), (error) => classifySqliteError(error, fullPath));
}

class SqliteLedger implements Ledger {
  private readonly orders: OrderStore;
  private readonly runs: RunStore;
  private heldLock: RunLock | null = null;

  constructor(
    readonly path: string,
    private readonly db: Database.Database,
    now: () => Date,
    durability: Durability,
    private readonly logger: Logger,
    private readonly tryLock: () => FileLock | null,
  ) {
    this.orders = new OrderStore(db, now, durability);
    this.runs = new RunStore(db, now, { pid: process.pid, host: hostname() });
  }

  async acquireRunLock(options: AcquireRunLockOptions = {}): Promise<RunLock> {
    if (this.heldLock) throw new Error(`This ledger object already holds the run lock of ${this.path}.`);
    const timeoutMs = options.wait ? (options.timeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS) : 0;
    // Monotonic: how long we waited is not a date rule, and must not jump with the wall clock.
    const start = performance.now();
    let logged = false;
    for (;;) {
      const fileLock = this.lockFile();
      if (fileLock) return this.hold(fileLock, options.command ?? null);
      const waited = performance.now() - start;
      const holder = this.runs.readLockHolder();
      if (waited >= timeoutMs) throw new LedgerBusyError(this.path, holder, waited);
      if (!logged) {
        this.logger.info({ ledger: this.path, holder, timeoutMs }, 'waiting for another run to release the ledger');
        logged = true;
      }
      await sleep(Math.min(options.pollMs ?? DEFAULT_POLL_MS, timeoutMs - waited));
    }
  }

  recordIntent: Ledger['recordIntent'] = (intent, runId) => this.orders.recordIntent(intent, runId);
  recordIntents: Ledger['recordIntents'] = (intents, runId) => this.orders.recordIntents(intents, runId);
  prepareSends: Ledger['prepareSends'] = (intents, runId) => this.orders.prepareSends(intents, runId);
  releaseUnsent: Ledger['releaseUnsent'] = (ids) => this.orders.releaseUnsent(ids);
  markSending: Ledger['markSending'] = (id, intent) => this.orders.markSending(id, intent);
  markAccepted: Ledger['markAccepted'] = (id, info) => this.orders.markAccepted(id, info);
  markAcceptedMany: Ledger['markAcceptedMany'] = (accepted) => this.orders.markAcceptedMany(accepted);
  markRejected: Ledger['markRejected'] = (id, info) => this.orders.markOutcome(id, 'rejected', info);
  markUnknown: Ledger['markUnknown'] = (id, info = {}) => this.orders.markOutcome(id, 'unknown', info);
  markFailed: Ledger['markFailed'] = (id, info = {}) => this.orders.markOutcome(id, 'failed', info);
  get: Ledger['get'] = (id) => this.orders.get(id);
  getMany: Ledger['getMany'] = (ids) => this.orders.getMany(ids);
  statesOf: Ledger['statesOf'] = (ids) => this.orders.statesOf(ids);
  listSubmittedSince: Ledger['listSubmittedSince'] = (since) => this.orders.submitted.listSubmittedSince(since);
  pagesSubmittedSince: Ledger['pagesSubmittedSince'] = (since, pageSize) => this.orders.submitted.pagesSubmittedSince(since, pageSize);
  summarizeSubmittedSince: Ledger['summarizeSubmittedSince'] = (since, countUpTo) => this.orders.submitted.summarizeSubmittedSince(since, countUpTo);
  earliestOrderDateSince: Ledger['earliestOrderDateSince'] = (since) => this.orders.submitted.earliestOrderDateSince(since);
  iterateRecords: Ledger['iterateRecords'] = (options) => this.orders.iterateRecords(options);
  countByState: Ledger['countByState'] = () => this.orders.countByState();

  startRun: Ledger['startRun'] = (run) => this.runs.startRun(run);
  finishRun: Ledger['finishRun'] = (runId, result) => this.runs.finishRun(runId, result);
  listRuns: Ledger['listRuns'] = (limit) => this.runs.listRuns(limit);
  getRun: Ledger['getRun'] = (runId) => this.runs.getRun(runId);
  getSetting: Ledger['getSetting'] = (name) => this.runs.getSetting(name);
  setSetting: Ledger['setSetting'] = (name, value) => this.runs.setSetting(name, value);
  getWatermark: Ledger['getWatermark'] = (name) => this.runs.getWatermark(name);
  setWatermark: Ledger['setWatermark'] = (name, iso) => this.runs.setWatermark(name, iso);

  close(): void {
    if (!this.db.open) return;
    this.heldLock?.release();
    this.db.close();
  }

  private lockFile(): FileLock | null {
    try {
      return this.tryLock();
    } catch (error) {
      throw new LedgerError(this.path, `Cannot lock the ledger ${this.path}.lock: ${messageOf(error)}`, { cause: error });
    }
  }

  private hold(fileLock: FileLock, command: string | null): RunLock {
    let holder;
    try {
      holder = this.runs.writeLockHolder(command);
    } catch (error) {
      fileLock.release();
      throw error;
    }
    const lock: RunLock = {
      holder,
      release: () => {
        if (this.heldLock !== lock) return;
        this.heldLock = null;
        try {
          if (this.db.open) this.runs.clearLockHolder(holder);
        } finally {
          fileLock.release();
        }
      },
    };
    this.heldLock = lock;
    this.logger.debug({ ledger: this.path }, 'run lock acquired');
    return lock;
  }
}

function describeOpenFailure(path: string, error: unknown): string {
  if (error instanceof SchemaTooNewError) return `The ledger ${path} was written by a newer order-batch (${error.message}).`;
  // SQLite's own failures (not a database, locked, full...) are classifySqliteError's.
  return `Cannot open the ledger ${path}: ${messageOf(error)}`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
