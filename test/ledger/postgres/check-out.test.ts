/**
 * A connection the ledger has taken from its pool and loses (the database terminating it between a
 * transaction's statements) fails its queries and is dropped by the pool: never an unhandled 'error'
 * event, which would end the whole process with a stack trace instead of the run's exit code.
 */
import pg from 'pg';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { checkOut } from '../../../src/ledger/postgres/check-out.js';
import { asSuperuser, createDatabase, describePostgres, type TestDatabase } from '../../support/postgres/database.js';

describePostgres('a connection lost while the ledger holds it', () => {
  let db: TestDatabase;
  let pool: pg.Pool;
  beforeEach(async () => {
    db = await createDatabase();
    pool = new pg.Pool({ connectionString: db.url, max: 2 });
  });
  afterEach(async () => {
    await pool.end();
    await db.drop();
  });

  it('fails its next query, is dropped when given back, and the pool goes on with a new connection', async () => {
    const client = await checkOut(pool);
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    // Not events.once: it listens to 'error' too, which is the very listener under test.
    const ended = new Promise<void>((resolve) => client.once('end', () => resolve()));
    await asSuperuser((admin) => admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]));
    // The termination reaches the client while it runs no query: the case the pool does not listen to.
    await ended;
    await expect(client.query('SELECT 1')).rejects.toThrow();
    client.release();
    expect(pool.totalCount).toBe(0);
    expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows[0]!.one).toBe(1);
  });
});
