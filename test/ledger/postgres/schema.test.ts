import { afterEach, beforeEach, expect, it } from 'vitest';
import { openLedger } from '../../../src/ledger/open-ledger.js';
import { LedgerError } from '../../../src/ledger/errors.js';
import { MIGRATIONS, MIGRATIONS_TABLE } from '../../../src/ledger/postgres/schema.js';
import type { Ledger } from '../../../src/ledger/types.js';
import { asSuperuser, createDatabase, describePostgres, type TestDatabase } from '../../support/postgres/database.js';
import { buildIntent } from '../builders.js';

describePostgres('the PostgreSQL ledger schema', () => {
  let db: TestDatabase;
  const opened: Ledger[] = [];
  const open = async () => {
    const ledger = await openLedger(db.url);
    opened.push(ledger);
    return ledger;
  };
  beforeEach(async () => {
    db = await createDatabase();
  });
  afterEach(async () => {
    for (const ledger of opened.splice(0)) await ledger.close();
    await db.drop();
  });
  const inDb = <T>(sql: string, params: unknown[] = []) => asSuperuser((c) => c.query(sql, params).then((r) => r.rows as T[]), db.name);

  it('creates its tables in an empty database, once, however many processes open it at the same moment', async () => {
    const ledgers = await Promise.all(Array.from({ length: 6 }, () => open()));
    const run = await ledgers[3]!.startRun({ command: 'import', files: [] });
    await run.prepareSends([buildIntent('A-1')]);
    expect((await ledgers[5]!.get('A-1'))?.state).toBe('sending');
    const applied = await inDb<{ name: string }>(`SELECT name FROM ${MIGRATIONS_TABLE} ORDER BY name`);
    expect(applied.map((r) => r.name)).toEqual(MIGRATIONS.map((m) => m.name));
  });

  it('refuses a database that holds tables of something else, and leaves it as it was', async () => {
    await inDb('CREATE TABLE customers (id int PRIMARY KEY, name text)');
    await inDb(`INSERT INTO customers VALUES (1, 'Ada')`);
    const failure = await openLedger(db.url).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(LedgerError);
    expect((failure as Error).message).toMatch(/is not an order-batch ledger: its schema "public" holds other tables \(customers\)\. order-batch never alters such a database/);
    expect((failure as Error).message).not.toContain('pg-test-s3cret');
    const tables = await inDb<{ relname: string }>(`SELECT relname FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind = 'r'`);
    expect(tables.map((t) => t.relname)).toEqual(['customers']);
    expect(await inDb('SELECT * FROM customers')).toEqual([{ id: 1, name: 'Ada' }]);
  });

  it('refuses a ledger migrated by a newer order-batch, with a message that says to upgrade', async () => {
    await (await open()).close();
    await inDb(`INSERT INTO ${MIGRATIONS_TABLE} (name) VALUES ('9999-from-the-future')`);
    await expect(openLedger(db.url)).rejects.toThrow(/was written by a newer order-batch \(schema versions 9999-from-the-future are newer than this order-batch knows .*upgrade order-batch\)/);
  });

  it('leaves an open of a current ledger to read the applied versions and change nothing', async () => {
    await (await open()).close();
    const before = await inDb<{ name: string; applied_at: Date }>(`SELECT * FROM ${MIGRATIONS_TABLE}`);
    await open();
    expect(await inDb(`SELECT * FROM ${MIGRATIONS_TABLE}`)).toEqual(before);
  });

  it('applies a migration named before one the ledger already has (a ledger at 0007 without 0006 gets 0006)', async () => {
    expect(MIGRATIONS.map((m) => m.name)).toEqual(MIGRATIONS.map((m) => m.name).sort());
    await (await open()).close();
    await inDb('DROP TABLE marketplace_lines, confirmations_written');
    await inDb(`DELETE FROM ${MIGRATIONS_TABLE} WHERE name = '0006-marketplace-lines'`);
    const ledger = await open();
    await ledger.marketplace.recordLines([{ customerOrderId: 'A-1', customerLineItemId: '1', marketplace: 'amazon', profile: 'amazon', identifiers: { orderItemId: 'X' } }]);
    expect(await ledger.marketplace.linesOf(['A-1'])).toHaveLength(1);
    const applied = await inDb<{ name: string }>(`SELECT name FROM ${MIGRATIONS_TABLE} ORDER BY name`);
    expect(applied.map((r) => r.name)).toEqual(MIGRATIONS.map((m) => m.name));
  });
});
