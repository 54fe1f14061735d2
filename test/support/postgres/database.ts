/**
 * A fresh database per test file in the run's PostgreSQL cluster (global-setup.ts), owned by a role that
 * logs in with a password, as a team's ledger would be. `describePostgres` skips when the cluster is
 * not there (only outside CI: there the run fails at setup instead).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, inject } from 'vitest';
import { APP_PASSWORD, APP_ROLE, SUPERUSER } from './cluster.js';

export const postgresContext = inject('postgres');
export const hasPostgres = postgresContext.available;
export const describePostgres = hasPostgres ? describe : describe.skip;

function socketDir(): string {
  if (!postgresContext.available) throw new Error(`PostgreSQL is not available: ${postgresContext.reason}`);
  return postgresContext.socketDir;
}

/** A ledger URL for `database` in the test cluster, with the test role's password in it. */
export function ledgerUrl(database: string, password = APP_PASSWORD): string {
  return `postgresql://${APP_ROLE}:${encodeURIComponent(password)}@/${database}?host=${socketDir()}`;
}

/** Runs `sql` as the cluster's superuser (creating databases, ending connections, ...). */
export async function asSuperuser<T>(work: (client: pg.Client) => Promise<T>, database = 'postgres'): Promise<T> {
  const client = new pg.Client({ host: socketDir(), user: SUPERUSER, database });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

export async function createDatabase(): Promise<TestDatabase> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  await asSuperuser((c) => c.query(`CREATE DATABASE ${name} OWNER ${APP_ROLE}`));
  return {
    name,
    url: ledgerUrl(name),
    drop: () => asSuperuser((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

/** A database for this file: created before its tests, dropped after. Read `.url` inside a test or hook. */
export function useDatabase(): { readonly url: string; readonly name: string } {
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    if (hasPostgres) database = await createDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });
  return {
    get url() {
      if (!database) throw new Error('useDatabase: no database (PostgreSQL missing, or read outside a test)');
      return database.url;
    },
    get name() {
      if (!database) throw new Error('useDatabase: no database (PostgreSQL missing, or read outside a test)');
      return database.name;
    },
  };
}
