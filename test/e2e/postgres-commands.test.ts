/** Every command on a PostgreSQL ledger, as a user runs them (real CLI), and what it says when the ledger cannot be used. */
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { APP_PASSWORD } from '../support/postgres/cluster.js';
import { createDatabase, describePostgres, ledgerUrl, type TestDatabase } from '../support/postgres/database.js';
import { writeOrdersCsv } from './make-sheet.js';
import { hasStackTrace, runCli, tempDir } from './run-cli.js';
import { startSandboxProcess, type SandboxProcess } from './sandbox-process.js';

describePostgres('the commands on a PostgreSQL ledger (real CLI)', () => {
  let db: TestDatabase;
  let sandbox: SandboxProcess;
  beforeAll(async () => {
    db = await createDatabase();
    sandbox = await startSandboxProcess();
  });
  afterAll(async () => {
    await sandbox?.stop();
    await db?.drop();
  });

  it('imports, validates online, imports again and reconciles through the shared ledger', async () => {
    const dir = tempDir();
    const sheet = join(dir, 'orders.csv');
    writeOrdersCsv(sheet, { orders: 6, prefix: 'PGC', orderDate: new Date(Date.now() - 3_600_000) });
    const env = { ...sandbox.env, ORDER_BATCH_LEDGER: db.url };
    const first = await runCli(['import', sheet, '--out', join(dir, 'first.csv'), '--json'], { env });
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout).summary).toEqual({ accepted: 6 });
    // Orders this tool sent exist in the API: online validation knows them from the shared ledger.
    const validate = await runCli(['validate', sheet, '--online', '--out', join(dir, 'check.csv'), '--json'], { env });
    expect(validate.code, validate.stderr).toBe(0);
    expect(validate.stdout).not.toContain('already_exists');
    const again = await runCli(['import', sheet, '--out', join(dir, 'again.csv'), '--json'], { env });
    expect(JSON.parse(again.stdout).summary).toEqual({ already_submitted: 6 });
    const reconcile = await runCli(['reconcile', '--out', join(dir, 'reconciliation.xlsx'), '--json'], { env });
    expect(reconcile.code, reconcile.stderr).toBeLessThanOrEqual(1);
    expect(JSON.parse(reconcile.stdout).orders.map((o: { customerOrderId: string }) => o.customerOrderId).sort()).toEqual(
      ['PGC-00001', 'PGC-00002', 'PGC-00003', 'PGC-00004', 'PGC-00005', 'PGC-00006'],
    );
    for (const result of [first, validate, again, reconcile]) expect(result.stdout + result.stderr).not.toContain(APP_PASSWORD);
  });

  it.each([
    ['a wrong password', () => ledgerUrl(db.name, 'not-it'), /PostgreSQL refused the password/],
    ['a database that does not exist', () => ledgerUrl('no_such_ledger'), /the database does not exist: create it/],
    ['nothing listening', () => `postgres://ob:${APP_PASSWORD}@127.0.0.1:1/ledger`, /nothing is listening there/],
  ])('stops with exit 2 and one line naming the ledger without its password for %s', async (_case, url, reason) => {
    const dir = tempDir();
    const sheet = join(dir, 'orders.csv');
    writeOrdersCsv(sheet, { orders: 2, prefix: 'BAD', orderDate: new Date(Date.now() - 3_600_000) });
    const result = await runCli(['import', sheet, '--ledger', url(), '--out', join(dir, 'r.csv')], { env: sandbox.env });
    expect(result.code).toBe(2);
    const lines = result.stderr.trim().split('\n').filter((l) => !l.startsWith('{'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^order-batch: Cannot use the ledger postgres(ql)?:\/\/\w+:\*\*\*@/);
    expect(lines[0]).toMatch(reason);
    expect(result.stderr).not.toMatch(/internal error|not-it/);
    expect(result.stderr).not.toContain(APP_PASSWORD);
    expect(hasStackTrace(result.stderr)).toBe(false);
  });
});
