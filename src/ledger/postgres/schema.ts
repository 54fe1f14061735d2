/**
 * The PostgreSQL ledger's schema: versioned, forward-only migrations, one SQL text each, named
 * `NNNN-what` so their order is their name's. Times are timestamptz; the payload stays the exact JSON
 * text that was POSTed (jsonb would reorder its keys).
 */
import { ORDER_STATES } from '../types.js';

export interface PostgresMigration {
  name: string;
  sql: string;
}

const STATE_LIST = ORDER_STATES.map((s) => `'${s}'`).join(', ');

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
];
