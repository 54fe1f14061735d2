/**
 * A PostgreSQL ledger crashing (immediate shutdown) while two imports send on one ledger, and held down
 * for 12 seconds (the scenario: a restart of the database): each run stops sending, reconnects
 * when the database is back and goes on, for up to --ledger-outage; every order is accepted once, and
 * each run's metrics file counts the outage among its ledger errors. An outage longer than that stops
 * the runs with exit 3, and nothing is lost: the next run settles the rest without sending anything
 * twice. The web app answers 503 through the same 12 seconds and loses neither a session nor a job.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
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
import { until } from '../support/until.js';

const ORDERS = 300;
/** How long the database stays down: the outage, a scenario's length and no timing assertion. */
const OUTAGE_MS = 12_000;

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
    const args = (name: string) => ['import', sheet, '--ledger', cluster.url, '--out', join(dir, `result-${name}.csv`), '--json', '--concurrency', '4', '--claim-lease', '60', '--metrics-file', join(dir, `metrics-${name}.prom`), ...extra];
    return [startImport(args('a'), sandbox.env), startImport(args('b'), sandbox.env)];
  }

  it('pauses both runs while the database is down for 12 seconds and finishes them when it is back: every order accepted once', async () => {
    const before = await sandbox.stats();
    const dir = tempDir();
    const runs = await startTwoRuns(dir, []);
    await until(async () => (await sandbox.stats()).postsReceived - before.postsReceived >= 40, 'the runs to be sending');
    cluster.crash();
    await until(() => runs.every((r) => r.stderr.includes('sending paused')), 'both runs to notice the outage');
    await sleep(OUTAGE_MS);
    cluster.start();
    const results = await Promise.all(runs.map((r) => r.done));
    for (const [i, result] of results.entries()) {
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toContain('the ledger answers again');
      expect(result.stderr).not.toContain('pg-test-s3cret');
      const families = parsePrometheusTextFormat(readFileSync(join(dir, `metrics-${i === 0 ? 'a' : 'b'}.prom`), 'utf8'));
      expect(Number(families.find((f) => f.name === 'order_batch_ledger_errors_total')?.metrics[0]?.value)).toBeGreaterThanOrEqual(1);
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

  it('answers 503 with a plain page while the ledger is down for 12 seconds, and serves again by itself: the session made before works, the submission running across it finishes', async () => {
    const { logIn, startTestApp, uploadForm, SAMPLES_AS_OF } = await import('../web/support.js');
    const { request } = await import('undici');
    cluster = await startRestartableCluster(findPostgresBin()!);
    const web = await startTestApp({ ledgerPath: cluster.url, accounts: [{ name: 'otto', role: 'operator', password: 'operator password 1' }] });
    const url = web.app.url;
    const statusOf = async (path: string, cookie?: string) => {
      const response = await request(`${url}${path}`, cookie ? { headers: { cookie } } : {});
      const text = await response.body.text();
      return { status: response.statusCode, text };
    };
    const sandboxStats = async () => (await (await request(`${web.app.sandboxUrl}/sandbox/stats`)).body.json()) as { orders: number; postsReceived: number; duplicatesRejected: number };
    const orders = 240;
    try {
      const session = await logIn(url, 'otto', 'operator password 1');
      const headers = { cookie: session.cookie, origin: url };
      const sheet = join(tempDir(), 'across.csv');
      writeOrdersCsv(sheet, { orders, prefix: 'ACROSS', orderDate: new Date(SAMPLES_AS_OF.getTime() - 3_600_000) });
      const uploaded = await request(`${url}/upload`, { method: 'POST', body: uploadForm({ csrf: session.csrf, fileName: 'across.csv', content: readFileSync(sheet) }), headers });
      await uploaded.body.text();
      // Answers slow enough that the submission is still sending when the database goes down.
      await (await request(`${web.app.sandboxUrl}/sandbox/faults`, { method: 'POST', body: JSON.stringify({ latencyMs: 100, paths: ['/api/v0/orders'] }), headers: { 'content-type': 'application/json' } })).body.text();
      await until(async () => !(await statusOf(String(uploaded.headers.location), session.cookie)).text.includes('http-equiv="refresh"'), 'the upload to be checked');
      const submitted = await request(`${url}${String(uploaded.headers.location)}/submit`, { method: 'POST', body: `_csrf=${session.csrf}`, headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' } });
      await submitted.body.text();
      const job = String(submitted.headers.location).replace('/jobs/', '');
      await until(async () => (await sandboxStats()).postsReceived >= 20, 'the submission to be sending');

      cluster.crash();
      // /readyz meets the outage (within its own bound); from then on pages answer 503 at once.
      await until(async () => (await statusOf('/readyz')).status === 503, '/readyz to say the ledger is down');
      expect((await statusOf('/readyz')).text).toMatch(/^not ready: the ledger /);
      const down = await statusOf('/', session.cookie);
      expect(down.status).toBe(503);
      expect(down.text).toContain('cannot reach its ledger');
      expect((await statusOf('/healthz')).status).toBe(200);
      await sleep(OUTAGE_MS);
      expect((await statusOf('/', session.cookie)).status).toBe(503);
      cluster.start();
      await until(async () => (await statusOf('/readyz')).status === 200, '/readyz to say the ledger is back');

      // The session made before the outage still opens the app, logged in.
      const back = await statusOf('/', session.cookie);
      expect(back.status).toBe(200);
      expect(back.text).toContain('otto');
      expect(back.text).not.toContain('name="password"');
      // The submission that ran across the outage finishes, every order accepted once.
      const ledger = await openLedger(cluster.url);
      try {
        await until(async () => (await ledger.jobs.get(job))?.state === 'done', 'the submission to finish');
        expect(await ledger.jobs.get(job)).toMatchObject({ state: 'done', outcome: { summary: { accepted: orders } } });
      } finally {
        await ledger.close();
      }
      expect(await sandboxStats()).toMatchObject({ orders, duplicatesRejected: 0 });
    } finally {
      await web.close();
    }
  }, 240_000);
});
