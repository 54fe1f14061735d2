/**
 * A PostgreSQL ledger crashing (immediate shutdown) while two imports send on one ledger: each run
 * stops sending, reconnects when the database is back and goes on, for up to --ledger-outage; every
 * order is accepted once. An outage longer than that stops the runs with exit 3, and nothing is lost:
 * the next run settles the rest without sending anything twice.
 */
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { openLedger } from '../../src/ledger/open-ledger.js';
import { findPostgresBin } from '../support/postgres/cluster.js';
import { describePostgres } from '../support/postgres/database.js';
import { startRestartableCluster, type RestartableCluster } from '../support/postgres/restartable-cluster.js';
import { writeOrdersCsv } from './make-sheet.js';
import { runCli, tempDir } from './run-cli.js';
import { startSandboxProcess, type SandboxProcess } from './sandbox-process.js';
import { startImport, type ImportProcess } from './team-processes.js';

const ORDERS = 300;
/** How many looks (each a few ms apart) a condition gets before the test gives up on it. */
const LOOKS = 3_000;

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let look = 0; look < LOOKS; look++) {
    if (await condition()) return;
    await sleep(10);
  }
  throw new Error(`gave up waiting: ${what}`);
}

describePostgres('a ledger outage in the middle of two runs', () => {
  let cluster: RestartableCluster;
  let sandbox: SandboxProcess;
  beforeAll(async () => {
    sandbox = await startSandboxProcess(['--seed', '31']);
  });
  afterEach(() => cluster?.remove());
  afterAll(async () => {
    await sandbox?.stop();
  });

  async function startTwoRuns(dir: string, extra: string[]): Promise<ImportProcess[]> {
    cluster = await startRestartableCluster(findPostgresBin()!);
    await (await openLedger(cluster.url)).close();
    const sheet = join(dir, 'orders.csv');
    writeOrdersCsv(sheet, { orders: ORDERS, prefix: `OUT${Math.floor(Math.random() * 1e6)}`, orderDate: new Date(Date.now() - 3_600_000) });
    await sandbox.setFaults({ latencyMs: 20 });
    const args = (name: string) => ['import', sheet, '--ledger', cluster.url, '--out', join(dir, `result-${name}.csv`), '--json', '--concurrency', '4', '--claim-lease', '60', ...extra];
    return [startImport(args('a'), sandbox.env), startImport(args('b'), sandbox.env)];
  }

  it('pauses both runs while the database is down and finishes them when it is back: every order accepted once', async () => {
    const before = await sandbox.stats();
    const runs = await startTwoRuns(tempDir(), []);
    await until(async () => (await sandbox.stats()).postsReceived - before.postsReceived >= 40, 'the runs to be sending');
    cluster.crash();
    await until(() => runs.every((r) => r.stderr.includes('sending paused')), 'both runs to notice the outage');
    cluster.start();
    const results = await Promise.all(runs.map((r) => r.done));
    for (const result of results) {
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toContain('the ledger answers again');
      expect(result.stderr).not.toContain('pg-test-s3cret');
    }
    const after = await sandbox.stats();
    expect(after.duplicatesRejected - before.duplicatesRejected).toBe(0);
    expect(after.postsReceived - before.postsReceived).toBe(ORDERS);
    expect(after.orders - before.orders).toBe(ORDERS);
  }, 240_000);

  it('stops with exit 3 when the outage outlasts --ledger-outage, and the next run settles the rest without sending twice', async () => {
    const dir = tempDir();
    const before = await sandbox.stats();
    const runs = await startTwoRuns(dir, ['--ledger-outage', '1']);
    await until(async () => (await sandbox.stats()).postsReceived - before.postsReceived >= 40, 'the runs to be sending');
    cluster.crash();
    const results = await Promise.all(runs.map((r) => r.done));
    for (const result of results) expect(result.code, result.stderr).toBe(3);
    cluster.start();
    const again = await runCli(['import', join(dir, 'orders.csv'), '--ledger', cluster.url, '--out', join(dir, 'result-c.csv'), '--json', '--claim-lease', '1'], { env: sandbox.env, timeoutMs: 120_000 });
    expect(again.code, again.stderr).toBe(0);
    const after = await sandbox.stats();
    expect(after.duplicatesRejected - before.duplicatesRejected).toBe(0);
    expect(after.orders - before.orders).toBe(ORDERS);
  }, 240_000);
});

describePostgres('the web app during a ledger outage', () => {
  let cluster: RestartableCluster | undefined;
  afterAll(() => cluster?.remove());

  it('answers 503 with a plain page while the ledger is down, and serves again by itself once it is back', async () => {
    const { startTestApp } = await import('../web/support.js');
    const { request } = await import('undici');
    cluster = await startRestartableCluster(findPostgresBin()!);
    const web = await startTestApp({ ledgerPath: cluster.url });
    const statusOf = async (path: string) => {
      const response = await request(`${web.app.url}${path}`);
      const text = await response.body.text();
      return { status: response.statusCode, text };
    };
    try {
      expect((await statusOf('/')).status).toBe(200);
      cluster.crash();
      // /readyz meets the outage (within its own bound); from then on pages answer 503 at once.
      await until(async () => (await statusOf('/readyz')).status === 503, '/readyz to say the ledger is down');
      const down = await statusOf('/');
      expect(down.status).toBe(503);
      expect(down.text).toContain('cannot reach its ledger');
      expect((await statusOf('/healthz')).status).toBe(200);
      cluster.start();
      await until(async () => (await statusOf('/readyz')).status === 200, '/readyz to say the ledger is back');
      expect((await statusOf('/')).status).toBe(200);
    } finally {
      await web.close();
    }
  }, 240_000);
});
