import pg from 'pg';
import { expect, it } from 'vitest';
import { describePostgres, useDatabase } from '../../support/postgres/database.js';

describePostgres('the PostgreSQL test harness', () => {
  const db = useDatabase();

  it('gives each file its own database, reached with a password over the unix socket', async () => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ db: string; user: string }>('SELECT current_database() AS db, current_user AS user');
      expect(rows[0]).toEqual({ db: db.name, user: 'order_batch_test' });
    } finally {
      await client.end();
    }
  });

  it('refuses a wrong password', async () => {
    const client = new pg.Client({ connectionString: db.url.replace(/:[^:@/]+@/, ':wrong@') });
    await expect(client.connect()).rejects.toMatchObject({ code: '28P01' });
  });
});
