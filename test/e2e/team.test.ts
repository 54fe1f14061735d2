/**
 * A team on one PostgreSQL ledger (PRODUCT.md section 8), with the real CLI in processes of their
 * own: three imports of one 3,000-order sheet at once against a sandbox that loses 10% of its
 * replies and resets 5% of its connections; one of them killed with SIGKILL twice mid-run and started
 * again. Every order ends stored exactly once, the team's concurrency cap (stored in the ledger) held, and a reconcile from
 * a fourth process sees every order.
 */
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openLedger } from '../../src/ledger/open-ledger.js';
import { asSuperuser, createDatabase, describePostgres, type TestDatabase } from '../support/postgres/database.js';
import { writeOrdersCsv } from './make-sheet.js';
import { runCli, tempDir } from './run-cli.js';
import { startSandboxProcess, type SandboxProcess } from './sandbox-process.js';
import { ordersOfProcess as ordersInLedger, startImport, type ImportProcess } from './team-processes.js';

const ORDERS = 3000;
const TEAM_CONCURRENCY = 12;

describePostgres('a team on one PostgreSQL ledger (real CLI, processes of their own)', () => {
  let db: TestDatabase;
  let sandbox: SandboxProcess;
  beforeAll(async () => {
    db = await createDatabase();
    // The team's ledger, made once (the first run would make it too; the progress reads below need its tables).
    await (await openLedger(db.url)).close();
    sandbox = await startSandboxProcess(['--seed', '18']);
  });
  afterAll(async () => {
    await sandbox?.stop();
    await db?.drop();
  });

  const ordersOfProcess = (pid: number) => ordersInLedger(db.name, pid);

  /** Waits until the process has done `orders` orders' worth of work, then SIGKILLs it. */
  async function killWhenBusy(target: ImportProcess, orders: number): Promise<void> {
    let exited = false;
    void target.done.then(() => (exited = true));
    while ((await ordersOfProcess(target.child.pid!)) < orders) {
      if (exited) throw new Error('the process finished before it could be killed mid-run');
      await sleep(20);
    }
    target.child.kill('SIGKILL');
    expect((await target.done).signal).toBe('SIGKILL');
  }

  it('stores every order exactly once, keeps to the team cap, and a fourth process reconciles them all', async () => {
    const dir = tempDir();
    const sheet = join(dir, 'orders.csv');
    writeOrdersCsv(sheet, { orders: ORDERS, prefix: 'TEAM', orderDate: new Date(Date.now() - 3_600_000) });
    // A latency long enough that the other two are far from done when the killed one starts again.
    await sandbox.setFaults({ latencyMs: 10, lostReplyRate: 0.1, resetRate: 0.05 });
    const importArgs = (name: string) => [
      'import', sheet, '--ledger', db.url, '--out', join(dir, `result-${name}.xlsx`), '--json',
      '--concurrency', '8', '--max-attempts', '12', '--claim-lease', '10',
    ];
    expect((await runCli(['ledger', 'set', 'team-concurrency', String(TEAM_CONCURRENCY), '--ledger', db.url])).code).toBe(0);
    const others = [startImport(importArgs('b'), sandbox.env), startImport(importArgs('c'), sandbox.env)];
    let restarted = startImport(importArgs('a'), sandbox.env);
    for (const progress of [40, 40]) {
      await killWhenBusy(restarted, progress);
      restarted = startImport(importArgs('a'), sandbox.env);
    }
    const results = await Promise.all([...others, restarted].map((p) => p.done));
    for (const result of results) {
      expect(result.stderr).not.toContain('pg-test-s3cret');
      expect(result.code, result.stderr).toBe(0);
      const summary = JSON.parse(result.stdout).summary as Record<string, number>;
      expect(Object.keys(summary).every((status) => ['accepted', 'already_submitted', 'in_progress_elsewhere'].includes(status))).toBe(true);
    }
    await sandbox.setFaults({});

    const stats = await sandbox.stats();
    expect(stats).toMatchObject({ orders: ORDERS, duplicatesRejected: 0 });
    expect(stats.maxPostsInFlight).toBeLessThanOrEqual(TEAM_CONCURRENCY);
    const states = await asSuperuser((c) => c.query<{ state: string; n: number }>('SELECT state, count(*)::int AS n FROM orders GROUP BY state'), db.name);
    expect(states.rows).toEqual([{ state: 'accepted', n: ORDERS }]);

    const reconcile = await runCli(['reconcile', '--ledger', db.url, '--out', join(dir, 'reconciliation.xlsx'), '--json'], { env: sandbox.env, timeoutMs: 120_000 });
    expect(reconcile.stderr).not.toContain('pg-test-s3cret');
    const report = JSON.parse(reconcile.stdout) as { orders: { customerOrderId: string; status: string }[] };
    expect(report.orders).toHaveLength(ORDERS);
    expect(report.orders.filter((o) => o.status === 'not_found')).toEqual([]);
  }, 300_000);
});
