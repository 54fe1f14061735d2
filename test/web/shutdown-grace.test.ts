/**
 * SIGTERM to serve while its submission waits on an API that does not answer: past --shutdown-grace
 * the process exits anyway, and the submission is back in the ledger's queue at once (not after its
 * lease), for another instance or the next start.
 */
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLedger } from '../../src/ledger/index.js';
import { writeOrdersCsv } from '../e2e/make-sheet.js';
import { startSandboxProcess, type SandboxProcess } from '../e2e/sandbox-process.js';
import { startServeProcess } from '../support/serve-process.js';
import { useTempFolder } from '../support/temp-dir.js';
import { openSession, uploadForm } from './support.js';
import { request } from 'undici';

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
