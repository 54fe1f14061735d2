/**
 * The ledger's schema, versioned with PRAGMA user_version. Migrations only ever append: version N
 * is MIGRATIONS[N - 1]. Each runs in one IMMEDIATE transaction together with the version bump, so
 * a migration interrupted by a kill leaves the previous version intact, and two processes opening
 * a new ledger at once do not both migrate (the second re-reads the version under the write lock).
 */
import type { Database } from 'better-sqlite3';
import { readPragma } from '../../sqlite/open-database.js';
import { createSqliteMappingsTable } from './team-mappings.js';
import { SQLITE_ACCOUNT_EMAIL, SQLITE_JOB_KINDS, SQLITE_TEAM_TABLES } from './team-schema.js';
import { SQLITE_REMOTE_FILES_TABLE } from './remote-files.js';
import { ORDER_STATES } from '../types.js';
import { SQLITE_SCHEDULE_TABLES } from './team-schedules.js';
import { SQLITE_TOKENS_TABLE } from '../token-types.js';
import { SQLITE_MARKETPLACE_TABLES } from './marketplace.js';

export interface Migration {
  /** What the version adds, for the log. */
  description: string;
  up(db: Database): void;
}

const STATE_LIST = ORDER_STATES.map((s) => `'${s}'`).join(', ');

export const MIGRATIONS: readonly Migration[] = [
  {
    description: 'orders, runs, watermarks and the run lock holder',
    up(db) {
      db.exec(`
        CREATE TABLE orders (
          customer_order_id    TEXT PRIMARY KEY,
          payload_hash         TEXT NOT NULL,
          payload              TEXT NOT NULL,
          state                TEXT NOT NULL CHECK (state IN (${STATE_LIST})),
          attempts             INTEGER NOT NULL DEFAULT 0,
          http_status          INTEGER,
          request_id           TEXT,
          message              TEXT,
          recorded_at          TEXT NOT NULL,
          first_submitted_at   TEXT,
          submitted_at         TEXT,
          updated_at           TEXT NOT NULL,
          run_id               TEXT,
          source_file          TEXT,
          source_sha256        TEXT,
          source_rows          TEXT NOT NULL DEFAULT '[]',
          marketplace_order_id TEXT,
          source_of_sale       TEXT
        ) STRICT;
        CREATE INDEX orders_by_submitted_at ON orders (submitted_at) WHERE submitted_at IS NOT NULL;
        CREATE INDEX orders_by_state ON orders (state);

        CREATE TABLE runs (
          seq          INTEGER PRIMARY KEY,
          run_id       TEXT NOT NULL UNIQUE,
          command      TEXT NOT NULL,
          files        TEXT NOT NULL,
          started_at   TEXT NOT NULL,
          finished_at  TEXT,
          summary      TEXT,
          result_files TEXT NOT NULL DEFAULT '[]',
          pid          INTEGER NOT NULL,
          host         TEXT NOT NULL
        ) STRICT;

        CREATE TABLE watermarks (
          name       TEXT PRIMARY KEY,
          value      TEXT NOT NULL,
          updated_at TEXT NOT NULL
        ) STRICT;

        -- Who holds the run lock, for the message shown to whoever is refused. The lock itself is
        -- an OS file lock (see src/sqlite/file-lock.ts); this row is information only and may be stale.
        CREATE TABLE run_lock (
          id         INTEGER PRIMARY KEY CHECK (id = 1),
          pid        INTEGER NOT NULL,
          host       TEXT NOT NULL,
          started_at TEXT NOT NULL,
          command    TEXT
        ) STRICT;
      `);
    },
  },
  {
    description: 'settings: facts about the ledger itself, such as the API it records orders for',
    up(db) {
      db.exec(`
        CREATE TABLE settings (
          name       TEXT PRIMARY KEY,
          value      TEXT NOT NULL,
          updated_at TEXT NOT NULL
        ) STRICT;
      `);
    },
  },
  {
    description: "orders.order_date: the payload's orderDate as a UTC instant, for reconcile's tracking window",
    up(db) {
      // Adding a column rewrites no row: a ledger of a million orders upgrades at once. Orders recorded
      // before keep none; earliestOrderDateSince reads theirs from the payload (a month on, they have
      // left reconcile's default selection).
      db.exec('ALTER TABLE orders ADD COLUMN order_date TEXT');
      // The earliest order date of reconcile's selection (accepted since a time) from the index alone.
      db.exec(`CREATE INDEX orders_accepted_by_submitted_at ON orders (submitted_at, order_date) WHERE state = 'accepted'`);
    },
  },
  {
    description: 'the web app as a team service: accounts, sessions, the audit trail, jobs and files',
    up(db) {
      db.exec(SQLITE_TEAM_TABLES);
    },
  },
  {
    description: 'saved column mappings: one row per name, carried over from the setting that held them all',
    up(db) {
      createSqliteMappingsTable(db);
    },
  },
  {
    description: 'schedule occurrences: each one claimed once, with its lease and its result',
    up(db) {
      db.exec(SQLITE_SCHEDULE_TABLES);
    },
  },
  {
    description: 'remote files: each version of a remote sheet claimed by one host, processed once',
    up(db) {
      db.exec(SQLITE_REMOTE_FILES_TABLE);
    },
  },
  {
    description: 'API tokens: their labels and hashes, never the tokens',
    up(db) {
      db.exec(SQLITE_TOKENS_TABLE);
    },
  },
  {
    description: 'marketplace lines and written confirmations: what confirms each shipment back to its marketplace, once',
    up(db) {
      db.exec(SQLITE_MARKETPLACE_TABLES);
    },
  },
  {
    description: "accounts' e-mail addresses, matched against a company login's verified e-mail",
    up(db) {
      db.exec(SQLITE_ACCOUNT_EMAIL);
    },
  },
  {
    description: 'jobs of more than one kind: reconciliations run as durable jobs too',
    up(db) {
      db.exec(SQLITE_JOB_KINDS);
    },
  },
];

export function readSchemaVersion(db: Database): number {
  return readPragma(db, 'user_version') as number;
}

/**
 * Brings the database up to the last migration. Returns the versions applied (empty when it was
 * current). Throws when the file was written by a newer schema than this code knows.
 */
export function migrateSchema(db: Database, migrations: readonly Migration[] = MIGRATIONS): number[] {
  if (readSchemaVersion(db) === migrations.length) return [];
  const applied: number[] = [];
  db.transaction(() => {
    const current = readSchemaVersion(db);
    if (current > migrations.length) {
      throw new SchemaTooNewError(current, migrations.length);
    }
    for (let version = current + 1; version <= migrations.length; version++) {
      migrations[version - 1]!.up(db);
      applied.push(version);
    }
    // user_version takes no bound parameter; the value is an integer we computed.
    db.exec(`PRAGMA user_version = ${migrations.length}`);
  }).immediate();
  return applied;
}

export class SchemaTooNewError extends Error {
  override readonly name = 'SchemaTooNewError';
  constructor(
    readonly found: number,
    readonly known: number,
  ) {
    super(`schema version ${found} is newer than this order-batch knows (${known}); upgrade order-batch`);
  }
}
