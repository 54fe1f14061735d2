/**
 * The PostgreSQL ledger's schema: versioned, forward-only migrations, one SQL text each, named
 * `NNNN-what` so their order is their name's. Times are timestamptz; the payload stays the exact JSON
 * text that was POSTed (jsonb would reorder its keys).
 */
import type pg from 'pg';
import { JOB_KINDS, JOB_STATES, ROLES } from '../team-types.js';
import { POSTGRES_REMOTE_FILES_TABLE } from './remote-files.js';
import { carryPostgresMappings } from './team-mappings.js';
import { POSTGRES_SCHEDULE_TABLES } from './team-schedules.js';
import { POSTGRES_TOKENS_TABLE } from '../token-types.js';
import { POSTGRES_MARKETPLACE_MIGRATION } from './marketplace.js';
import { ORDER_STATES } from '../types.js';

export interface PostgresMigration {
  name: string;
  sql: string;
  /** What the migration does besides its SQL, in the same transaction (moving rows that need parsing). */
  after?: (client: pg.ClientBase) => Promise<void>;
}

const list = (values: readonly string[]) => values.map((v) => `'${v}'`).join(', ');
const STATE_LIST = list(ORDER_STATES);

/** The table umzug records applied migrations in; its presence is what marks a database as a ledger. */
export const MIGRATIONS_TABLE = 'order_batch_migrations';

export const MIGRATIONS: readonly PostgresMigration[] = [
  {
    name: '0001-orders-runs-settings-watermarks',
    sql: `
      -- A run holds its claims while its lease (renewed on the database's clock) lasts; a run that
      -- is killed stops renewing, and its claims lapse with the lease.
      CREATE TABLE runs (
        seq              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        run_id           text NOT NULL UNIQUE,
        command          text NOT NULL,
        files            jsonb NOT NULL,
        started_at       timestamptz NOT NULL,
        finished_at      timestamptz,
        summary          jsonb,
        result_files     jsonb NOT NULL DEFAULT '[]',
        pid              integer NOT NULL,
        host             text NOT NULL,
        -- The host, its boot and its pid namespace: where pid names one process (see machine.ts); null elsewhere.
        machine          text,
        lease_expires_at timestamptz NOT NULL DEFAULT now()
      );

      CREATE TABLE orders (
        -- Byte order (COLLATE "C"), as in the SQLite ledger: ids sort and page the same whatever the database's locale.
        customer_order_id    text COLLATE "C" PRIMARY KEY,
        payload_hash         text NOT NULL,
        payload              text NOT NULL,
        state                text NOT NULL CHECK (state IN (${STATE_LIST})),
        attempts             integer NOT NULL DEFAULT 0,
        http_status          integer,
        request_id           text,
        message              text,
        recorded_at          timestamptz NOT NULL,
        first_submitted_at   timestamptz,
        submitted_at         timestamptz,
        updated_at           timestamptz NOT NULL,
        -- The run that last worked on the record: while that run's lease lasts, it holds the order.
        run_id               text,
        source_file          text,
        source_sha256        text,
        source_rows          jsonb NOT NULL DEFAULT '[]',
        marketplace_order_id text,
        source_of_sale       text,
        order_date           timestamptz
      );
      CREATE INDEX orders_by_state ON orders (state);
      CREATE INDEX orders_accepted_by_submitted_at ON orders (submitted_at, order_date) WHERE state = 'accepted';

      CREATE TABLE settings (
        name       text PRIMARY KEY,
        value      text NOT NULL,
        updated_at timestamptz NOT NULL
      );

      CREATE TABLE watermarks (
        name       text PRIMARY KEY,
        value      text NOT NULL,
        updated_at timestamptz NOT NULL
      );
    `,
  },
  {
    name: '0002-accounts-sessions-audit-jobs-files',
    sql: `
      -- The web app as a team service. The SQLite ledger has the same tables (team/sqlite-schema.ts).
      CREATE TABLE users (
        name          text PRIMARY KEY,
        role          text NOT NULL CHECK (role IN (${list(ROLES)})),
        password_hash text NOT NULL,
        is_disabled   boolean NOT NULL DEFAULT false,
        created_at    timestamptz NOT NULL,
        updated_at    timestamptz NOT NULL
      );

      -- id_hash: the sha256 of the session id the browser holds; the id itself is never stored.
      CREATE TABLE sessions (
        id_hash      text PRIMARY KEY,
        user_name    text,
        data         jsonb NOT NULL,
        created_at   timestamptz NOT NULL,
        last_seen_at timestamptz NOT NULL,
        address      text
      );
      CREATE INDEX sessions_by_user ON sessions (user_name);
      CREATE INDEX sessions_by_last_seen ON sessions (last_seen_at);

      CREATE TABLE audit (
        seq         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        at          timestamptz NOT NULL,
        actor       text NOT NULL,
        via         text NOT NULL,
        address     text,
        action      text NOT NULL,
        file_name   text,
        file_sha256 text,
        counts      jsonb,
        ref         text,
        detail      text
      );
      CREATE INDEX audit_by_at ON audit (at);
      CREATE INDEX audit_by_actor ON audit (actor, seq);

      -- A running job's lease is timed by the database's clock, as runs' leases are.
      CREATE TABLE jobs (
        seq                 bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id                  text NOT NULL UNIQUE,
        upload_id           text NOT NULL,
        file_name           text NOT NULL,
        file_sha256         text,
        sheet               text,
        created_by          text NOT NULL,
        expected            integer NOT NULL,
        state               text NOT NULL CHECK (state IN (${list(JOB_STATES)})),
        created_at          timestamptz NOT NULL,
        holder              text,
        holder_pid          integer,
        holder_machine      text,
        lease_expires_at    timestamptz,
        starts              integer NOT NULL DEFAULT 0,
        run_id              text,
        cancel_requested_by text,
        started_at          timestamptz,
        finished_at         timestamptz,
        progress            jsonb,
        outcome             jsonb
      );
      CREATE INDEX jobs_open ON jobs (state, seq) WHERE state IN ('queued', 'running');
      CREATE INDEX jobs_by_upload ON jobs (upload_id);

      CREATE TABLE files (
        id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        area       text NOT NULL,
        owner      text NOT NULL,
        name       text NOT NULL,
        size       bigint NOT NULL,
        sha256     text NOT NULL,
        created_at timestamptz NOT NULL,
        UNIQUE (area, owner, name)
      );
      CREATE INDEX files_by_created_at ON files (created_at);

      -- Failed logins per account and per address, in windows, shared by every instance.
      CREATE TABLE attempts (
        key               text PRIMARY KEY,
        count             integer NOT NULL,
        window_started_at timestamptz NOT NULL
      );

      CREATE TABLE file_chunks (
        file_id bigint NOT NULL REFERENCES files (id) ON DELETE CASCADE,
        seq     integer NOT NULL,
        data    bytea NOT NULL,
        PRIMARY KEY (file_id, seq)
      );
    `,
  },
  {
    name: '0003-mappings',
    sql: `
      -- Saved column mappings, one row per name (the SQLite ledger's schema version 5 has the same table).
      CREATE TABLE mappings (
        name     text COLLATE "C" PRIMARY KEY,
        profile  text NOT NULL,
        saved_by text NOT NULL,
        saved_at timestamptz NOT NULL
      );
    `,
    // What the setting that held them all holds becomes rows (team-mappings.ts).
    after: carryPostgresMappings,
  },
  {
    name: '0004-remote-files',
    sql: POSTGRES_REMOTE_FILES_TABLE,
  },
  { name: '0005-schedule-occurrences', sql: POSTGRES_SCHEDULE_TABLES },
  POSTGRES_MARKETPLACE_MIGRATION,
  { name: '0007-api-tokens', sql: POSTGRES_TOKENS_TABLE },
  {
    name: '0008-account-email',
    sql: `
      -- Kept in lower case, one account each: a company login's verified e-mail finds its account.
      ALTER TABLE users ADD COLUMN email text COLLATE "C";
      CREATE UNIQUE INDEX users_by_email ON users (email) WHERE email IS NOT NULL;
    `,
  },
  {
    name: '0009-job-kinds',
    sql: `
      -- A reconciliation is a durable job too; requested_via: how it was asked for besides the account.
      ALTER TABLE jobs ADD COLUMN kind text NOT NULL DEFAULT 'submit' CHECK (kind IN (${list(JOB_KINDS)}));
      ALTER TABLE jobs ADD COLUMN requested_via text;
    `,
  },
];
