/**
 * SIGTERM to serve while its submission waits on an API that does not answer: past --shutdown-grace
 * the process exits anyway, and the submission is back in the ledger's queue at once (not after its
 * lease), for another instance or the next start; on PostgreSQL, with its orders let go, so another
 * instance finishes it long before the lease would have lapsed.
 */
import { once } from 'node:events';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLedger } from '../../src/ledger/index.js';
import { writeOrdersCsv } from '../e2e/make-sheet.js';
import { startSandboxProcess, type SandboxProcess } from '../e2e/sandbox-process.js';
import { createDatabase, describePostgres, type TestDatabase } from '../support/postgres/database.js';
import { startServeProcess, type ServeProcess } from '../support/serve-process.js';
import { useTempFolder } from '../support/temp-dir.js';
import { openSession, uploadForm } from './support.js';
import { request } from 'undici';
import pg from 'pg';
import { until } from '../support/until.js';


/** A new folder `name` in `dir`, its path. */
function folderIn(dir: string, name: string): string {
  mkdirSync(join(dir, name));
  return join(dir, name);
}

/** Uploads the sheet on the instance and submits it; the job's id. */
async function submitSheet(url: string, fileName: string, content: Buffer, beforeSubmit: () => Promise<void>): Promise<string> {
  const session = await openSession(url);
  const headers = { cookie: session.cookie, origin: url };
  const uploaded = await request(`${url}/upload`, { method: 'POST', body: uploadForm({ csrf: session.csrf, fileName, content }), headers });
  await uploaded.body.text();
  await beforeSubmit();
  const submitted = await request(`${url}${String(uploaded.headers.location)}/submit`, { method: 'POST', body: `_csrf=${session.csrf}`, headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' } });
  await submitted.body.text();
  return String(submitted.headers.location).replace('/jobs/', '');
}

/**
 * A's run and job as if A ran on another host: B cannot see that A's process is gone (as it can on one
 * machine, where it ends a dead run's claims at once), so only what A let go of is free before the lease.
 */
async function asAnotherHost(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`UPDATE runs SET machine = 'another-host' WHERE finished_at IS NULL`);
    await client.query(`UPDATE jobs SET holder_machine = 'another-host' WHERE state = 'running'`);
  } finally {
    await client.end();
  }
}

describe('serve --shutdown-grace', () => {
  const dir = useTempFolder('grace');
  let sandbox: SandboxProcess;
  beforeAll(async () => {
    sandbox = await startSandboxProcess(['--seed', '7']);
  });
  afterAll(async () => {
    await sandbox?.stop();
  });

  it('hands a stuck submission back to the queue and exits once the grace is over', async () => {
    const ledgerPath = join(dir, 'ledger.db');
    const serve = await startServeProcess(['--ledger', ledgerPath, '--shutdown-grace', '1', '--concurrency', '2'], { cwd: dir, env: sandbox.env });
    writeOrdersCsv(join(dir, 'stuck.csv'), { orders: 4, prefix: 'STUCK', orderDate: new Date(Date.now() - 3_600_000) });
    const before = (await sandbox.stats()).postsReceived;
    const session = await openSession(serve.url);
    const headers = { cookie: session.cookie, origin: serve.url };
    const uploaded = await request(`${serve.url}/upload`, { method: 'POST', body: uploadForm({ csrf: session.csrf, fileName: 'stuck.csv', content: readFileSync(join(dir, 'stuck.csv')) }), headers });
    await uploaded.body.text();
    // Every order's answer takes ten minutes: the submission cannot reach a safe point by itself.
    await sandbox.setFaults({ latencyMs: 600_000, paths: ['/api/v0/orders'] });
    const submitted = await request(`${serve.url}${String(uploaded.headers.location)}/submit`, { method: 'POST', body: `_csrf=${session.csrf}`, headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' } });
    await submitted.body.text();
    const job = String(submitted.headers.location).replace('/jobs/', '');
    for (let look = 0; look < 3_000 && (await sandbox.stats()).postsReceived === before; look++) await new Promise((resolve) => setTimeout(resolve, 10));
    serve.child.kill('SIGTERM');
    const [code] = (await once(serve.child, 'exit')) as [number | null];
    await sandbox.setFaults({});
    expect(code).toBe(0);
    expect(serve.stderr()).toContain('did not reach a safe point within 1 s');
    const ledger = await openLedger(ledgerPath);
    try {
      expect(await ledger.jobs.get(job)).toMatchObject({ state: 'queued' });
    } finally {
      await ledger.close();
    }
  }, 240_000);
});

describePostgres('serve --shutdown-grace with another instance on the PostgreSQL ledger', () => {
  const ORDERS = 6;
  let sandbox: SandboxProcess;
  let db: TestDatabase;
  const dir = useTempFolder('grace-pg');
  const instances: ServeProcess[] = [];
  beforeAll(async () => {
    sandbox = await startSandboxProcess(['--seed', '11']);
    db = await createDatabase();
  });
  afterAll(async () => {
    for (const instance of instances) await instance.kill();
    await sandbox?.stop();
    await db?.drop();
  });

  it('lets go of the stuck submission and its orders at the end of the grace, so another instance finishes it at once, every order accepted once', async () => {
    // Leases of ten minutes: only a release explains another instance finishing the job within the test.
    const args = ['--ledger', db.url, '--shutdown-grace', '1', '--concurrency', '2', '--claim-lease', '600'];
    const a = await startServeProcess(args, { cwd: folderIn(dir, 'a'), env: sandbox.env });
    instances.push(a);
    writeOrdersCsv(join(dir, 'stuck.csv'), { orders: ORDERS, prefix: `GRACE${Math.floor(Math.random() * 1e6)}`, orderDate: new Date(Date.now() - 3_600_000) });
    const before = await sandbox.stats();
    // Answers that take two seconds, so that the orders are still going out when the test looks.
    const job = await submitSheet(a.url, 'stuck.csv', readFileSync(join(dir, 'stuck.csv')), () => sandbox.setFaults({ latencyMs: 2_000, paths: ['/api/v0/orders'] }));
    const ledger = await openLedger(db.url);
    try {
      await until(async () => (await sandbox.stats()).postsReceived > before.postsReceived, 'A to be sending');
      // From the first POST on, every answer takes ten minutes: A's submission cannot reach a safe point by itself.
      await sandbox.setFaults({ latencyMs: 600_000, paths: ['/api/v0/orders'] });
      await until(async () => ((await ledger.countByState()).sending ?? 0) > 0 && (await sandbox.stats()).postsReceived - before.postsReceived > 2, 'A to be stuck on a POST');
      await asAnotherHost(db.url);
      a.child.kill('SIGTERM');
      const [code] = (await once(a.child, 'exit')) as [number | null];
      expect(code).toBe(0);
      expect(a.stderr()).toContain('did not reach a safe point within 1 s');
      await sandbox.setFaults({});
      // B starts after A is gone: what it finds in the ledger is all A left behind.
      const b = await startServeProcess(args, { cwd: folderIn(dir, 'b'), env: sandbox.env });
      instances.push(b);
      await until(async () => (await ledger.jobs.get(job))?.state === 'done', 'B to finish the submission');
      expect(await ledger.jobs.get(job)).toMatchObject({ state: 'done', starts: 2, outcome: { summary: { accepted: ORDERS } } });
      expect((await ledger.countByState()).accepted).toBe(ORDERS);
    } finally {
      await ledger.close();
    }
    const after = await sandbox.stats();
    expect(after.orders - before.orders).toBe(ORDERS);
    expect(after.duplicatesRejected - before.duplicatesRejected).toBe(0);
  }, 240_000);
});
