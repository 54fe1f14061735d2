/**
 * The ledger in a PostgreSQL database shared by every host of a team (PRODUCT.md section 8): several
 * runs at once, no run lock; each order is claimed by one run while that run's lease lasts (run.ts,
 * claims.ts), and the team's POSTs in flight are capped by advisory locks (send-gate.ts).
 */
import { createPostgresTokens } from './team-tokens.js';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import pg from 'pg';
import { silentLogger, type Logger } from '../../log.js';
import { LedgerError } from '../errors.js';
import { redactLedgerLocation } from '../location.js';
import type { AcquireRunLockOptions, Ledger, LedgerOptions, LedgerStores, LedgerRun, RunFile, RunLock, SendGate, SendGateOptions } from '../types.js';
import { parseTeamCap, TEAM_CAP_SETTING } from '../team-cap.js';
import { connectionConfigOf } from './connection-config.js';
import { classifyPostgresError } from './errors.js';
import { isProcessAlive, machineIdentity } from '../machine.js';
import { ForeignDatabaseError, migrateLedger, PostgresSchemaTooNewError } from './migrate.js';
import { PostgresReads } from './reads.js';
import { ROW_TYPES } from './row-types.js';
import { PostgresRun, type RunContext } from './run.js';
import { createPostgresAttempts, createPostgresAudit, createPostgresSessions, createPostgresUsers, type TeamContext } from './team-accounts.js';
import { createPostgresFiles, createPostgresJobs } from './team-jobs.js';
import { createPostgresMappings } from './team-mappings.js';
import { createPostgresMarketplace } from './marketplace.js';
import { createPostgresRemoteFiles } from './remote-files.js';
import type { RemoteFileClaims } from '../remote-file-types.js';
import { holdRemoteFiles, type HeldRemoteFiles } from '../held-remote-files.js';
import { createPostgresSchedules } from './team-schedules.js';
import { openPostgresSendGate } from './send-gate.js';
import { OutageRider } from './outage.js';
import { checkOut } from './check-out.js';
import { reportLedgerFailure } from '../error-observers.js';

/** Two minutes: long enough for a slow moment, short enough that a dead run's orders are soon taken over. */
export const DEFAULT_CLAIM_LEASE_MS = 120_000;
/** --ledger-outage's default: a database restart or a managed failover is over well within two minutes. */
export const DEFAULT_OUTAGE_MS = 120_000;
/** Connections a process opens at most: the run's commits and reads are short; more would only queue at the server. */
const POOL_MAX = 6;
const CONNECT_TIMEOUT_MS = 15_000;
/**
 * A host that vanishes in the middle of one of its short transactions (a claim takes milliseconds)
 * would hold its row locks until the server noticed the dead socket, hours later by default: the
 * server ends such a session after this long instead.
 */
const IDLE_IN_TRANSACTION_MS = 30_000;
/** SQLSTATEs a transaction is simply run again for: deadlock, serialization failure. */
const RETRYABLE = new Set(['40P01', '40001']);
const MAX_TRIES = 5;

export async function openPostgresLedger(url: string, options: LedgerOptions = {}): Promise<Ledger> {
  const location = redactLedgerLocation(url);
  const logger = options.logger ?? silentLogger;
  const connection = connectionConfigOf(url, location);
  if (connection.weakness !== undefined) logger.warn({ ledger: location }, connection.weakness);
  const config: pg.PoolConfig = {
    application_name: 'order-batch',
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    keepAlive: true,
    types: ROW_TYPES,
    // Server settings the URL gives (?options=...) are the user's; otherwise ours.
    ...(/[?&]options=/.test(url) ? {} : { options: `-c idle_in_transaction_session_timeout=${IDLE_IN_TRANSACTION_MS}` }),
    ...connection.config,
  };
  // allowExitOnIdle: idle connections never keep a finished command's process alive.
  const pool = new pg.Pool({ ...config, max: POOL_MAX, allowExitOnIdle: true });
  // A connection that dies while idle in the pool: the pool drops it; the next query says what happened.
  pool.on('error', (error) => logger.warn({ ledger: location, err: error.message }, 'a ledger connection was lost'));
  try {
    const client = await checkOut(pool);
    try {
      const applied = await migrateLedger(client, logger);
      if (applied.length > 0) logger.debug({ ledger: location, versions: applied }, 'ledger schema migrated');
    } finally {
      client.release();
    }
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw describeOpenFailure(location, error);
  }
  const rider = new OutageRider({ outageMs: options.outageMs ?? DEFAULT_OUTAGE_MS, logger, location });
  return new PostgresLedger(location, ridingPool(pool, rider), config, options.now ?? (() => new Date()), logger, options.claimLeaseMs ?? DEFAULT_CLAIM_LEASE_MS, options.leaseClock ?? (() => performance.now()), rider);
}

/**
 * The pool as the ledger uses it: each query and each connection taken rides an outage (outage.ts).
 * A transaction rides as a whole (PostgresLedger.transaction), its statements on the one client it holds.
 */
function ridingPool(pool: pg.Pool, rider: OutageRider): pg.Pool {
  const query = (...args: unknown[]) => rider.ride(() => (pool.query as (...a: unknown[]) => Promise<unknown>).apply(pool, args));
  const connect = () => rider.ride(() => checkOut(pool));
  // A proxy, so that the pool's own state (ending, its clients) stays on the pool itself.
  return new Proxy(pool, {
    get(target, property) {
      if (property === 'query') return query;
      if (property === 'connect') return connect;
      const value = Reflect.get(target, property) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

function describeOpenFailure(location: string, error: unknown): Error {
  if (error instanceof ForeignDatabaseError) {
    return new LedgerError(
      location,
      `The database of the ledger ${location} is not an order-batch ledger: its ${error.message}. order-batch never alters such a database: give an empty database (or schema) of its own.`,
      { cause: error },
    );
  }
  if (error instanceof PostgresSchemaTooNewError) return new LedgerError(location, `The ledger ${location} was written by a newer order-batch (${error.message}).`, { cause: error });
  return classifyPostgresError(error, location, 'open') ?? new LedgerError(location, `Cannot open the ledger ${location}: ${(error as Error).message}`, { cause: error });
}

/** Every store of the ledger but its orders and runs, set on it at once (LedgerStores lists them). */
/** `remoteFiles`: the ledger's claims, held so that abandonRuns can let them go (held-remote-files.ts). */
function postgresStores(team: TeamContext, remoteFiles: RemoteFileClaims): LedgerStores {
  return {
    users: createPostgresUsers(team),
    sessions: createPostgresSessions(team),
    audit: createPostgresAudit(team),
    jobs: createPostgresJobs(team),
    files: createPostgresFiles(team),
    attempts: createPostgresAttempts(team),
    mappings: createPostgresMappings(team),
    tokens: createPostgresTokens(team),
    schedules: createPostgresSchedules(team),
    marketplace: createPostgresMarketplace(team),
    remoteFiles,
  };
}

// The stores come from postgresStores in the constructor, so the class does not list them again.
interface PostgresLedger extends LedgerStores {}

class PostgresLedger implements Ledger {
  readonly backend = 'postgres' as const;
  private readonly reads: PostgresReads;
  private readonly runs = new Set<PostgresRun>();
  private readonly gates = new Set<SendGate>();
  private readonly context: RunContext;
  private closed = false;
  private readonly heldFiles: HeldRemoteFiles;

  constructor(
    readonly location: string,
    private readonly pool: pg.Pool,
    private readonly config: pg.ClientConfig,
    private readonly now: () => Date,
    private readonly logger: Logger,
    private readonly leaseMs: number,
    leaseClock: () => number,
    private readonly rider: OutageRider,
  ) {
    const query = ((...args: Parameters<pg.Pool['query']>) => this.guard(() => (pool.query as (...a: unknown[]) => Promise<unknown>)(...args))) as pg.Pool['query'];
    this.reads = new PostgresReads(query);
    const team: TeamContext = { query, transaction: (work) => this.transaction(work), now };
    this.heldFiles = holdRemoteFiles(createPostgresRemoteFiles(team, pool.query.bind(pool) as pg.Pool['query']));
    Object.assign(this, postgresStores(team, this.heldFiles.claims));
    this.context = {
      pool,
      location,
      now,
      logger,
      leaseMs,
      leaseClock,
      guard: (work) => this.guard(work),
      transaction: (work) => this.transaction(work),
    };
  }

  isUnreachable(): boolean {
    return this.rider.isOut;
  }

  /** No run lock: claims keep runs apart. The "lock" is this process, for the caller's messages. */
  async acquireRunLock(options: AcquireRunLockOptions = {}): Promise<RunLock> {
    return { holder: { pid: process.pid, host: hostname(), startedAt: this.now().toISOString(), command: options.command ?? null }, release: async () => {} };
  }

  async startRun(run: { command: string; files: readonly (string | RunFile)[] }): Promise<LedgerRun> {
    if (this.closed) throw new Error(`The ledger ${this.location} is closed.`);
    await this.endDeadRunsHere();
    const runId = randomUUID();
    const files = run.files.map((f) => (typeof f === 'string' ? { file: f } : f));
    await this.guard(() =>
      this.pool.query(
        `INSERT INTO runs (run_id, command, files, started_at, pid, host, machine, lease_expires_at)
         VALUES ($1, $2, $3::jsonb, $4, $5, $6, $7, clock_timestamp() + $8::int * interval '1 millisecond')`,
        [runId, run.command, JSON.stringify(files), this.now().toISOString(), process.pid, hostname(), machineIdentity(), this.leaseMs],
      ),
    );
    const started = new PostgresRun(runId, this.context, (ended) => this.runs.delete(ended));
    this.runs.add(started);
    return started;
  }

  async openSendGate(options: SendGateOptions = {}): Promise<SendGate> {
    const gate = await openPostgresSendGate({
      config: this.config,
      readCap: async () => parseTeamCap(await this.getSetting(TEAM_CAP_SETTING)),
      clock: this.context.leaseClock,
      onError: (error) => classifyPostgresError(error, this.location, 'run') ?? (error as Error),
      ...options,
    });
    this.gates.add(gate);
    return { enter: (signal) => gate.enter(signal), close: async () => (this.gates.delete(gate), gate.close()) };
  }

  get: Ledger['get'] = (id) => this.reads.get(id);
  getMany: Ledger['getMany'] = (ids) => this.reads.getMany(ids);
  statesOf: Ledger['statesOf'] = (ids) => this.reads.statesOf(ids);
  listSubmittedSince: Ledger['listSubmittedSince'] = (since) => this.reads.listSubmittedSince(since);
  pagesSubmittedSince: Ledger['pagesSubmittedSince'] = (since, pageSize) => this.reads.pagesSubmittedSince(since, pageSize);
  summarizeSubmittedSince: Ledger['summarizeSubmittedSince'] = (since, countUpTo) => this.reads.summarizeSubmittedSince(since, countUpTo);
  earliestOrderDateSince: Ledger['earliestOrderDateSince'] = (since) => this.reads.earliestOrderDateSince(since);
  iterateRecords: Ledger['iterateRecords'] = (options) => this.reads.iterateRecords(options);
  countByState: Ledger['countByState'] = () => this.reads.countByState();
  listRuns: Ledger['listRuns'] = (limit) => this.reads.listRuns(limit);
  getRun: Ledger['getRun'] = (runId) => this.reads.getRun(runId);
  getSetting: Ledger['getSetting'] = (name) => this.reads.getSetting(name);
  getWatermark: Ledger['getWatermark'] = (name) => this.reads.getWatermark(name);
  describe: Ledger['describe'] = () => this.reads.describe();

  async removeSetting(name: string): Promise<boolean> {
    const { rowCount } = await this.guard(() => this.pool.query('DELETE FROM settings WHERE name = $1', [name]));
    return (rowCount ?? 0) > 0;
  }

  async setSetting(name: string, value: string): Promise<void> {
    await this.upsert('settings', name, value);
  }

  async setWatermark(name: string, iso: string): Promise<void> {
    if (Number.isNaN(Date.parse(iso))) throw new Error(`Watermark '${name}' must be an ISO 8601 date-time, not '${iso}'.`);
    await this.upsert('watermarks', name, iso);
  }

  async abandonRuns(): Promise<void> {
    await this.endOpenRuns();
    await this.heldFiles.letGoAll();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Open runs end as a death would: their orders are let go at once, with the states they have. Remote
    // file claims still held lapse with their lease: a file a run failed on is not taken again at once.
    await this.endOpenRuns();
    await Promise.allSettled([...this.gates].map((gate) => gate.close()));
    await this.pool.end().catch(() => undefined);
  }

  private async endOpenRuns(): Promise<void> {
    await Promise.allSettled([...this.runs].map((run) => run.abandon()));
  }

  private async upsert(table: 'settings' | 'watermarks', name: string, value: string): Promise<void> {
    await this.guard(() =>
      this.pool.query(
        `INSERT INTO ${table} (name, value, updated_at) VALUES ($1, $2, $3)
         ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
        [name, value, this.now().toISOString()],
      ),
    );
  }

  /**
   * Runs of this very machine whose process is gone (killed, crashed) end now rather than when their
   * lease runs out: a run started again after a kill -9 takes its orders over at once.
   */
  private async endDeadRunsHere(): Promise<void> {
    const machine = machineIdentity();
    if (machine === null) return;
    const { rows } = await this.guard(() =>
      this.pool.query<{ run_id: string; pid: number }>(
        'SELECT run_id, pid FROM runs WHERE machine = $1 AND finished_at IS NULL AND lease_expires_at > clock_timestamp()',
        [machine],
      ),
    );
    const dead = rows.filter((r) => r.pid !== process.pid && !isProcessAlive(r.pid)).map((r) => r.run_id);
    if (dead.length === 0) return;
    this.logger.info({ ledger: this.location, runs: dead }, 'runs whose process died on this machine let go of their orders');
    await this.guard(() =>
      this.pool.query('UPDATE runs SET lease_expires_at = clock_timestamp() WHERE run_id = ANY($1::text[]) AND machine = $2 AND finished_at IS NULL', [dead, machine]),
    );
  }

  private async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      const failure = classifyPostgresError(error, this.location, 'run') ?? error;
      reportLedgerFailure(failure);
      throw failure;
    }
  }

  /** A transaction whose connection is lost is tried again whole, once the database answers: nothing of it was committed, or all of it was and its work is a no-op the second time (claims and marks are conditional on their state). */
  private transaction<T>(work: (client: pg.ClientBase) => Promise<T>): Promise<T> {
    return this.rider.ride(() => this.transactionOnce(work)).catch((error: unknown) => {
      reportLedgerFailure(error);
      throw error;
    });
  }

  private async transactionOnce<T>(work: (client: pg.ClientBase) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const client = await this.guard(() => this.pool.connect());
      let broken: Error | undefined;
      try {
        await client.query('BEGIN');
        const result = await work(client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
        const code = (error as { code?: unknown }).code;
        if (typeof code === 'string' && RETRYABLE.has(code) && attempt < MAX_TRIES) continue;
        throw error instanceof LedgerError ? error : (classifyPostgresError(error, this.location, 'run') ?? error);
      } finally {
        client.release(broken);
      }
    }
  }
}
