/**
 * The SQLite ledger: one file, one run at a time (the run lock), better-sqlite3 inside. Every call is
 * synchronous underneath and committed before its Promise settles; the async face is the Ledger
 * interface both backends share.
 */
import { createSqliteTokens } from './team-tokens.js';
import { hostname } from 'node:os';
import { realpathSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type Database from 'better-sqlite3';
import { silentLogger, type Logger } from '../../log.js';
import { LedgerBusyError, LedgerError } from '../errors.js';
import { guardLedger } from '../guard.js';
import { createLocalGate, createOpenGate } from '../local-gate.js';
import { OrderStore } from './order-store.js';
import { createMemoryLock, tryLockFile, type FileLock } from '../../sqlite/file-lock.js';
import { RunStore } from './run-store.js';
import { readSchemaVersion } from './schema.js';
import { classifySqliteError } from './sqlite-errors.js';
import { messageOf, openLedgerDatabase } from './sqlite-file.js';
import { createSqliteAttempts, createSqliteAudit, createSqliteSessions, createSqliteUsers } from './team-accounts.js';
import { createSqliteFiles, createSqliteJobs } from './team-jobs.js';
import { createSqliteMappings } from './team-mappings.js';
import type { AcquireRunLockOptions, Ledger, LedgerOptions, LedgerStores, LedgerRun, RunFile, RunLock } from '../types.js';
import { createSqliteSchedules } from './team-schedules.js';
import { createSqliteMarketplace } from './marketplace.js';
import { createSqliteRemoteFiles } from './remote-files.js';
import type { RemoteFileClaims } from '../remote-file-types.js';
import { holdRemoteFiles, type HeldRemoteFiles } from '../held-remote-files.js';

const DEFAULT_LOCK_TIMEOUT_MS = 30_000;
const DEFAULT_POLL_MS = 100;

/** Opens the ledger file at `path` (':memory:': a private in-memory ledger for tests). Throws LedgerError. */
export function openSqliteLedger(path: string, options: LedgerOptions = {}): Ledger {
  const isMemory = path === ':memory:';
  const fullPath = isMemory ? path : resolve(path);
  const logger = options.logger ?? silentLogger;
  if (!isMemory) refuseSecondNames(fullPath);
  const db = openLedgerDatabase(fullPath, { logger, busyTimeoutMs: options.busyTimeoutMs });
  let tryLock: () => FileLock | null;
  if (isMemory) tryLock = createMemoryLock();
  else {
    // Keyed on the file itself: a symlink to it, or to its folder, locks the same side file.
    const lockPath = `${realpathSync(fullPath)}.lock`;
    tryLock = () => {
      refuseSecondNames(fullPath);
      return tryLockFile(lockPath);
    };
  }
  // A full disk or a damaged file met once the ledger is open is said as such (and ends the run), not as a bug.
  return guardLedger(new SqliteLedger(fullPath, db, options.now ?? (() => new Date()), logger, tryLock), (error) => classifySqliteError(error, fullPath, 'run'));
}

/**
 * A hard link gives the file a second name the run lock cannot tell apart from the first (only
 * the kernel knows the names of an inode), and SQLite keeps its write-ahead log beside the name a
 * ledger is opened by: two names could let two runs in at once and corrupt the file.
 */
function refuseSecondNames(fullPath: string): void {
  let links: number;
  try {
    links = statSync(fullPath).nlink;
  } catch {
    return; // Not there yet: opening creates it, with one name.
  }
  if (links <= 1) return;
  throw new LedgerError(
    fullPath,
    `The ledger ${fullPath} has ${links} names (hard links). Two names of one ledger could let two runs send the same orders and corrupt the file, so it is not used: keep one name (find ${dirname(fullPath)} -samefile ${fullPath} lists them; search wider if needed) and use a symbolic link where a second name is wanted.`,
  );
}

/** Every store of the ledger but its orders and runs, set on it at once (LedgerStores lists them). */
/** `remoteFiles`: the ledger's claims, held so that abandonRuns can let them go (held-remote-files.ts). */
function sqliteStores(db: Database.Database, now: () => Date, remoteFiles: RemoteFileClaims): LedgerStores {
  return {
    users: createSqliteUsers(db, now),
    sessions: createSqliteSessions(db, now),
    audit: createSqliteAudit(db, now),
    jobs: createSqliteJobs(db, now),
    files: createSqliteFiles(db, now),
    attempts: createSqliteAttempts(db, now),
    mappings: createSqliteMappings(db, now),
    tokens: createSqliteTokens(db, now),
    schedules: createSqliteSchedules(db, now),
    marketplace: createSqliteMarketplace(db, now),
    remoteFiles,
  };
}

// The stores come from sqliteStores in the constructor, so the class does not list them again.
interface SqliteLedger extends LedgerStores {}

class SqliteLedger implements Ledger {
  readonly backend = 'sqlite';
  private readonly orders: OrderStore;
  private readonly runs: RunStore;
  private heldLock: RunLock | null = null;
  private readonly openRuns = new Set<SqliteLedgerRun>();
  private readonly heldFiles: HeldRemoteFiles;

  constructor(
    readonly location: string,
    private readonly db: Database.Database,
    now: () => Date,
    private readonly logger: Logger,
    private readonly tryLock: () => FileLock | null,
  ) {
    this.orders = new OrderStore(db, now);
    this.runs = new RunStore(db, now, { pid: process.pid, host: hostname() });
    this.heldFiles = holdRemoteFiles(createSqliteRemoteFiles(db, now));
    Object.assign(this, sqliteStores(db, now, this.heldFiles.claims));
  }

  async acquireRunLock(options: AcquireRunLockOptions = {}): Promise<RunLock> {
    if (this.heldLock) throw new Error(`This ledger object already holds the run lock of ${this.location}.`);
    const timeoutMs = options.wait ? (options.timeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS) : 0;
    // Monotonic: how long we waited is not a date rule, and must not jump with the wall clock.
    const start = performance.now();
    let isLogged = false;
    for (;;) {
      const fileLock = this.lockFile();
      if (fileLock) return this.hold(fileLock, options.command ?? null);
      const waited = performance.now() - start;
      const holder = this.runs.readLockHolder();
      if (waited >= timeoutMs) throw new LedgerBusyError(this.location, holder, waited);
      if (!isLogged) {
        this.logger.info({ ledger: this.location, holder, timeoutMs }, 'waiting for another run to release the ledger');
        isLogged = true;
      }
      await sleep(Math.min(options.pollMs ?? DEFAULT_POLL_MS, timeoutMs - waited));
    }
  }

  async startRun(run: { command: string; files: readonly (string | RunFile)[] }): Promise<LedgerRun> {
    const started = new SqliteLedgerRun(this.runs.startRun(run), this.orders, this.runs, (ended) => this.openRuns.delete(ended));
    this.openRuns.add(started);
    return started;
  }

  /**
   * One run at a time per file: there is no team to cap, so only the run's own share bounds it. A cap
   * in the settings (carried by `ledger copy` from PostgreSQL) is kept for a copy back, not applied.
   */
  openSendGate: Ledger['openSendGate'] = async (options = {}) => {
    options.onCap?.(null);
    return options.share === undefined ? createOpenGate() : createLocalGate(options.share);
  };

  get: Ledger['get'] = async (id) => this.orders.get(id);
  getMany: Ledger['getMany'] = async (ids) => this.orders.getMany(ids);
  statesOf: Ledger['statesOf'] = async (ids) => this.orders.statesOf(ids);
  listSubmittedSince: Ledger['listSubmittedSince'] = async (since) => this.orders.submitted.listSubmittedSince(since);
  summarizeSubmittedSince: Ledger['summarizeSubmittedSince'] = async (since, countUpTo) => this.orders.submitted.summarizeSubmittedSince(since, countUpTo);
  earliestOrderDateSince: Ledger['earliestOrderDateSince'] = async (since) => this.orders.submitted.earliestOrderDateSince(since);
  countByState: Ledger['countByState'] = async () => this.orders.countByState();

  async *pagesSubmittedSince(since: Date | string, pageSize?: number) {
    yield* this.orders.submitted.pagesSubmittedSince(since, pageSize);
  }

  async *iterateRecords(options?: Parameters<Ledger['iterateRecords']>[0]) {
    yield* this.orders.iterateRecords(options);
  }

  listRuns: Ledger['listRuns'] = async (limit) => this.runs.listRuns(limit);
  getRun: Ledger['getRun'] = async (runId) => this.runs.getRun(runId);
  getSetting: Ledger['getSetting'] = async (name) => this.runs.getSetting(name);
  setSetting: Ledger['setSetting'] = async (name, value) => this.runs.setSetting(name, value);
  removeSetting: Ledger['removeSetting'] = async (name) => this.runs.removeSetting(name);
  getWatermark: Ledger['getWatermark'] = async (name) => this.runs.getWatermark(name);
  describe: Ledger['describe'] = async () => ({ schemaVersion: String(readSchemaVersion(this.db)), runs: this.runs.runCount(), liveRuns: null });
  setWatermark: Ledger['setWatermark'] = async (name, iso) => this.runs.setWatermark(name, iso);

  async abandonRuns(): Promise<void> {
    this.endOpenRuns();
    await this.heldFiles.letGoAll();
  }

  async close(): Promise<void> {
    if (!this.db.open) return;
    // Remote file claims still held lapse with their lease: a file a run failed on is not taken again at once.
    this.endOpenRuns();
    await this.heldLock?.release();
    this.db.close();
  }

  /** Open runs stay unfinished in history, their records as marked: what a killed process leaves. */
  private endOpenRuns(): void {
    for (const run of this.openRuns) run.end();
    this.openRuns.clear();
  }

  private lockFile(): FileLock | null {
    try {
      return this.tryLock();
    } catch (error) {
      if (error instanceof LedgerError) throw error;
      throw new LedgerError(this.location, `Cannot lock the ledger ${this.location}.lock: ${messageOf(error)}`, { cause: error });
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
      release: async () => {
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
    this.logger.debug({ ledger: this.location }, 'run lock acquired');
    return lock;
  }
}

/** A run on an SQLite ledger. The run lock keeps other runs out, so its orders need no lease. */
class SqliteLedgerRun implements LedgerRun {
  private isOpen = true;

  constructor(
    readonly runId: string,
    private readonly orders: OrderStore,
    private readonly runs: RunStore,
    private readonly onEnd: (run: SqliteLedgerRun) => void,
  ) {}

  recordIntents: LedgerRun['recordIntents'] = async (intents) => this.open().recordIntents(intents, this.runId);
  recordIntent: LedgerRun['recordIntent'] = async (intent) => this.open().recordIntent(intent, this.runId);
  prepareSends: LedgerRun['prepareSends'] = async (intents) => this.open().prepareSends(intents, this.runId);
  releaseUnsent: LedgerRun['releaseUnsent'] = async (ids) => this.open().releaseUnsent(ids);
  markSending: LedgerRun['markSending'] = async (id, intent) => this.open().markSending(id, intent);
  // The run lock keeps every other run out: this run holds its orders until it ends.
  confirmHold: LedgerRun['confirmHold'] = async () => void this.open();
  markAccepted: LedgerRun['markAccepted'] = async (id, info) => this.open().markAccepted(id, info);
  markAcceptedMany: LedgerRun['markAcceptedMany'] = async (accepted) => this.open().markAcceptedMany(accepted);
  markRejected: LedgerRun['markRejected'] = async (id, info) => this.open().markOutcome(id, 'rejected', info);
  markUnknown: LedgerRun['markUnknown'] = async (id, info = {}) => this.open().markOutcome(id, 'unknown', info);
  markFailed: LedgerRun['markFailed'] = async (id, info = {}) => this.open().markOutcome(id, 'failed', info);

  async finish(result: { summary: unknown; resultFiles?: readonly string[] }): Promise<void> {
    this.open();
    this.runs.finishRun(this.runId, result);
    this.end();
  }

  /** No more transitions: finished, or its ledger closed under it. */
  end(): void {
    if (!this.isOpen) return;
    this.isOpen = false;
    this.onEnd(this);
  }

  private open(): OrderStore {
    if (!this.isOpen) throw new Error(`Run ${this.runId} has ended: it records nothing more.`);
    return this.orders;
  }
}
