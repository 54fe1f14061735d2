/**
 * The SQLite ledger's synchronous face, which the commands use until they move to the async Ledger
 * (open-ledger.ts); the file, its pragmas, its schema, and the run lock around a run.
 */
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type Database from 'better-sqlite3';
import { silentLogger, type Logger } from '../log.js';
import { LedgerBusyError, LedgerError } from './errors.js';
import { OrderStore } from './order-store.js';
import { createMemoryLock, tryLockFile, type FileLock } from './run-lock.js';
import { RunStore } from './run-store.js';
import { messageOf, openLedgerDatabase } from './sqlite-file.js';
import type { AcquireRunLockOptions } from './types.js';
import type { Durability, SyncLedger, SyncLedgerOptions, SyncRunLock as RunLock } from './sync-types.js';

const DEFAULT_LOCK_TIMEOUT_MS = 30_000;
const DEFAULT_POLL_MS = 100;

/**
 * Opens (creating directory, file and schema when needed) the ledger at `path`; ':memory:' gives a
 * private in-memory ledger for tests. Throws LedgerError when the file cannot serve as a ledger.
 */
export function openLedger(path: string, options: SyncLedgerOptions = {}): SyncLedger {
  const isMemory = path === ':memory:';
  const fullPath = isMemory ? path : resolve(path);
  const durability: Durability = options.durability ?? 'normal';
  const logger = options.logger ?? silentLogger;
  const db = openLedgerDatabase(fullPath, { logger, busyTimeoutMs: options.busyTimeoutMs, synchronous: durability === 'full' ? 'FULL' : 'NORMAL' });
  const tryLock = isMemory ? createMemoryLock() : () => tryLockFile(`${fullPath}.lock`);
  return new SqliteLedger(fullPath, db, options.now ?? (() => new Date()), durability, logger, tryLock);
}

class SqliteLedger implements SyncLedger {
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

  recordIntent: SyncLedger['recordIntent'] = (intent, runId) => this.orders.recordIntent(intent, runId);
  recordIntents: SyncLedger['recordIntents'] = (intents, runId) => this.orders.recordIntents(intents, runId);
  prepareSends: SyncLedger['prepareSends'] = (intents, runId) => this.orders.prepareSends(intents, runId);
  releaseUnsent: SyncLedger['releaseUnsent'] = (ids) => this.orders.releaseUnsent(ids);
  markSending: SyncLedger['markSending'] = (id, intent) => this.orders.markSending(id, intent);
  markAccepted: SyncLedger['markAccepted'] = (id, info) => this.orders.markAccepted(id, info);
  markAcceptedMany: SyncLedger['markAcceptedMany'] = (accepted) => this.orders.markAcceptedMany(accepted);
  markRejected: SyncLedger['markRejected'] = (id, info) => this.orders.markOutcome(id, 'rejected', info);
  markUnknown: SyncLedger['markUnknown'] = (id, info = {}) => this.orders.markOutcome(id, 'unknown', info);
  markFailed: SyncLedger['markFailed'] = (id, info = {}) => this.orders.markOutcome(id, 'failed', info);
  get: SyncLedger['get'] = (id) => this.orders.get(id);
  getMany: SyncLedger['getMany'] = (ids) => this.orders.getMany(ids);
  statesOf: SyncLedger['statesOf'] = (ids) => this.orders.statesOf(ids);
  listSubmittedSince: SyncLedger['listSubmittedSince'] = (since) => this.orders.submitted.listSubmittedSince(since);
  pagesSubmittedSince: SyncLedger['pagesSubmittedSince'] = (since, pageSize) => this.orders.submitted.pagesSubmittedSince(since, pageSize);
  summarizeSubmittedSince: SyncLedger['summarizeSubmittedSince'] = (since, countUpTo) => this.orders.submitted.summarizeSubmittedSince(since, countUpTo);
  earliestOrderDateSince: SyncLedger['earliestOrderDateSince'] = (since) => this.orders.submitted.earliestOrderDateSince(since);
  iterateRecords: SyncLedger['iterateRecords'] = (options) => this.orders.iterateRecords(options);
  countByState: SyncLedger['countByState'] = () => this.orders.countByState();

  startRun: SyncLedger['startRun'] = (run) => this.runs.startRun(run);
  finishRun: SyncLedger['finishRun'] = (runId, result) => this.runs.finishRun(runId, result);
  listRuns: SyncLedger['listRuns'] = (limit) => this.runs.listRuns(limit);
  getRun: SyncLedger['getRun'] = (runId) => this.runs.getRun(runId);
  getSetting: SyncLedger['getSetting'] = (name) => this.runs.getSetting(name);
  setSetting: SyncLedger['setSetting'] = (name, value) => this.runs.setSetting(name, value);
  getWatermark: SyncLedger['getWatermark'] = (name) => this.runs.getWatermark(name);
  setWatermark: SyncLedger['setWatermark'] = (name, iso) => this.runs.setWatermark(name, iso);

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
