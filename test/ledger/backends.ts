/**
 * The ledger backends the contract suite (contract.test.ts) runs against. Adding a backend is adding
 * one entry to BACKENDS.
 */
import { join } from 'node:path';
import pg from 'pg';
import { silentLogger } from '../../src/log.js';
import { migrateLedger } from '../../src/ledger/postgres/migrate.js';
import { MIGRATIONS as POSTGRES_MIGRATIONS } from '../../src/ledger/postgres/schema.js';
import { MIGRATIONS as SQLITE_MIGRATIONS, migrateSchema } from '../../src/ledger/sqlite/schema.js';
import { openDatabase } from '../../src/sqlite/open-database.js';
import { openLedger } from '../../src/ledger/open-ledger.js';
import type { Ledger, LedgerOptions } from '../../src/ledger/types.js';
import { asSuperuser, createDatabase, hasPostgres } from '../support/postgres/database.js';
import { makeTempDir } from './builders.js';

/** One empty ledger for one test: every open() is another connection to it, as another process would make. */
export interface LedgerUnderTest {
  open(options?: LedgerOptions): Promise<Ledger>;
  /**
   * Makes the lease of a run that is still open expire now, as if its process had stalled past it
   * (backends with concurrent runs only).
   */
  expireLease?(runId: string): Promise<void>;
  /** Makes a running job's lease lapse now, as if its instance had stalled past it. */
  expireJobLease(jobId: string): Promise<void>;
  /** Makes a running schedule occurrence's lease lapse now, as if its instance had died. */
  expireOccurrenceLease(schedule: string): Promise<void>;
  /** Makes a running job's holder a process of this machine that has died (`pid` must be one). */
  killJobHolder(jobId: string, pid: number): Promise<void>;
  /**
   * Creates the ledger as the last version before the mappings table left it (SQLite schema 4,
   * PostgreSQL 0002), its settings holding these; the next open() migrates it.
   */
  createBeforeMappingsTable(settings: Record<string, string>): Promise<void>;
  /** Removes the ledger (the test has closed what it opened). */
  drop(): Promise<void>;
}

export interface BackendUnderTest {
  name: string;
  /** Several runs at once, each order claimed with a lease; false: one run at a time (the run lock). */
  hasConcurrentRuns: boolean;
  create(): Promise<LedgerUnderTest>;
}

const sqlite: BackendUnderTest = {
  name: 'sqlite',
  hasConcurrentRuns: false,
  async create() {
    const temp = makeTempDir();
    const path = join(temp.dir, 'ledger.db');
    const update = async (sql: string, ...params: unknown[]) => {
      const db = openDatabase(path);
      try {
        db.prepare(sql).run(...params);
      } finally {
        db.close();
      }
    };
    return {
      open: (options) => openLedger(path, options),
      expireJobLease: (jobId) => update(`UPDATE jobs SET lease_expires_at = '1970-01-01T00:00:00.000Z' WHERE id = ?`, jobId),
      expireOccurrenceLease: (schedule) => update(`UPDATE schedule_occurrences SET lease_expires_at = '1970-01-01T00:00:00.000Z' WHERE schedule_name = ? AND state = 'running'`, schedule),
      killJobHolder: (jobId, pid) => update('UPDATE jobs SET holder_pid = ? WHERE id = ?', pid, jobId),
      async createBeforeMappingsTable(settings) {
        const db = openDatabase(path);
        try {
          migrateSchema(db, SQLITE_MIGRATIONS.slice(0, 4));
          for (const [name, value] of Object.entries(settings)) db.prepare('INSERT INTO settings (name, value, updated_at) VALUES (?, ?, ?)').run(name, value, '2031-01-02T03:04:05.000Z');
        } finally {
          db.close();
        }
      },
      drop: async () => temp.cleanup(),
    };
  },
};

/** A database of its own per test in the run's throwaway cluster (test/support/postgres). */
const postgres: BackendUnderTest = {
  name: 'postgres',
  hasConcurrentRuns: true,
  async create() {
    const database = await createDatabase();
    return {
      open: (options) => openLedger(database.url, options),
      expireLease: async (runId) => {
        await asSuperuser((c) => c.query(`UPDATE runs SET lease_expires_at = clock_timestamp() - interval '1 millisecond' WHERE run_id = $1`, [runId]), database.name);
      },
      expireOccurrenceLease: async (schedule) => {
        await asSuperuser((c) => c.query(`UPDATE schedule_occurrences SET lease_expires_at = clock_timestamp() - interval '1 millisecond' WHERE schedule_name = $1 AND state = 'running'`, [schedule]), database.name);
      },
      expireJobLease: async (jobId) => {
        await asSuperuser((c) => c.query(`UPDATE jobs SET lease_expires_at = clock_timestamp() - interval '1 millisecond' WHERE id = $1`, [jobId]), database.name);
      },
      killJobHolder: async (jobId, pid) => {
        await asSuperuser((c) => c.query('UPDATE jobs SET holder_pid = $1 WHERE id = $2', [pid, jobId]), database.name);
      },
      async createBeforeMappingsTable(settings) {
        const client = new pg.Client({ connectionString: database.url });
        await client.connect();
        try {
          await migrateLedger(client, silentLogger, POSTGRES_MIGRATIONS.slice(0, 2));
          for (const [name, value] of Object.entries(settings)) await client.query(`INSERT INTO settings (name, value, updated_at) VALUES ($1, $2, '2031-01-02T03:04:05Z')`, [name, value]);
        } finally {
          await client.end();
        }
      },
      drop: () => database.drop(),
    };
  },
};

/** PostgreSQL only where it is installed (outside CI: in CI the run fails at setup without it). */
export const BACKENDS: readonly BackendUnderTest[] = hasPostgres ? [sqlite, postgres] : [sqlite];
