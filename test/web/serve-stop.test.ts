/**
 * Stopping the web app (Ctrl-C, SIGTERM) mid-submission, against an API that answers slowly: as the
 * CLI's import, nothing more is sent and the answers in flight are kept; the submission goes back to
 * the ledger's queue with the one queued behind it, and the next start resumes both, sending nothing twice.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { openLedger } from '../../src/ledger/index.js';
import { silentLogger } from '../../src/log.js';
import { startSandbox } from '../../src/sandbox/index.js';
import type { SandboxHandle } from '../../src/sandbox/options.js';
import { startWebApp, type WebApp, type WebAppOptions } from '../../src/web/server.js';
import { writeOrdersCsv } from '../e2e/make-sheet.js';
import { openSession, uploadForm, type Session } from './support.js';
import { makeTempFolder } from '../support/temp-dir.js';

const LATENCY_MS = 250;
const CONCURRENCY = 2;

describe('stopping the web app during a submission', () => {
  let dir: string;
  let sandbox: SandboxHandle | undefined;
  let app: WebApp | undefined;
  afterEach(async () => {
    await app?.close();
    await sandbox?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends no order after the stop, keeps the answers in flight, and resumes both submissions at the next start without sending any twice', async () => {
    dir = makeTempFolder('serve-stop');
    sandbox = await startSandbox({ latencyMs: LATENCY_MS });
    const started = sandbox;
    const workDir = join(dir, 'web');
    const ledgerPath = join(dir, 'ledger.db');
    const options: WebAppOptions = {
      port: 0,
      useSandbox: false,
      connection: { auth: 'oauth', baseUrl: started.url, clientId: started.clientId, clientSecret: started.clientSecret },
      ledgerPath,
      workDir,
      context: { now: new Date(), timezone: 'UTC', sourcesOfSale: ['OtherMarketplace'] },
      concurrency: CONCURRENCY,
      maxAttempts: 3,
      lateAfterDays: 3,
      logger: silentLogger,
    };
    app = await startWebApp(options);
    const web = app;
    const orderDate = new Date(started.now().getTime() - 3_600_000);
    const first = writeOrdersCsv(join(dir, 'first.csv'), { orders: 20, prefix: 'FIRST', orderDate });
    const queued = writeOrdersCsv(join(dir, 'queued.csv'), { orders: 6, prefix: 'QUEUED', orderDate });
    const session = await openSession(web.url);
    const firstJob = await submit(web.url, session, 'first.csv', readFileSync(join(dir, 'first.csv')));
    const queuedJob = await submit(web.url, session, 'queued.csv', readFileSync(join(dir, 'queued.csv')));

    // Stop once a few orders are out (20 orders two at a time take about 2.5 s to send).
    for (let i = 0; i < 200 && started.stats().postsReceived < 3; i++) await sleep(20);
    expect(started.stats().postsReceived).toBeGreaterThanOrEqual(3);
    const postsAtStop = started.stats().postsReceived;
    const stopped = await web.close();
    const postsAtClose = started.stats().postsReceived;
    await sleep(LATENCY_MS * 3);

    // At most the POSTs already on their way when the stop came, and none once close() resolved.
    expect(postsAtClose).toBeLessThanOrEqual(postsAtStop + CONCURRENCY);
    expect(started.stats().postsReceived).toBe(postsAtClose);
    expect(postsAtClose).toBeLessThan(first.ids.length);

    const ledger = await openLedger(ledgerPath);
    try {
      const states = [...(await ledger.getMany(first.ids)).values()].map((r) => r.state);
      // Every order that went out has its answer recorded: none is left "sending".
      expect(states.filter((s) => s === 'accepted')).toHaveLength(postsAtClose);
      expect(states.filter((s) => s === 'sending' || s === 'unknown')).toHaveLength(0);
      expect((await ledger.getMany(queued.ids)).size).toBe(0);
    } finally {
      await ledger.close();
    }

    expect(stopped).toEqual({ paused: { id: firstJob, fileName: 'first.csv', progress: expect.objectContaining({ total: 20 }) }, queued: 2 });
    const held = await openLedger(ledgerPath);
    try {
      expect(await held.jobs.get(firstJob)).toMatchObject({ state: 'queued', starts: 1 });
      expect(await held.jobs.get(queuedJob)).toMatchObject({ state: 'queued', starts: 0 });
    } finally {
      await held.close();
    }

    // Started again on the same ledger: it resumes the paused submission, then runs the queued one.
    app = await startWebApp({ ...options, port: 0 });
    const again = await openLedger(ledgerPath);
    try {
      for (let i = 0; i < 1_000 && (await again.jobs.list()).some((job) => job.state !== 'done'); i++) await sleep(50);
      expect(await again.jobs.get(firstJob)).toMatchObject({ state: 'done', starts: 2, outcome: { summary: { accepted: 20 } } });
      expect(await again.jobs.get(queuedJob)).toMatchObject({ state: 'done', starts: 1, outcome: { summary: { accepted: 6 } } });
    } finally {
      await again.close();
    }
    expect(started.stats()).toMatchObject({ orders: 26, duplicatesRejected: 0, postsReceived: 26 });
  }, 30_000);
});

async function submit(url: string, session: Session, fileName: string, content: Buffer): Promise<string> {
  const headers = { cookie: session.cookie, origin: url };
  const uploaded = await request(`${url}/upload`, { method: 'POST', body: uploadForm({ csrf: session.csrf, fileName, content }), headers });
  await uploaded.body.text();
  const uploadPath = String(uploaded.headers.location);
  const submitted = await request(`${url}${uploadPath}/submit`, {
    method: 'POST',
    body: `_csrf=${session.csrf}`,
    headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
  });
  await submitted.body.text();
  expect(submitted.statusCode).toBe(303);
  return String(submitted.headers.location).replace('/jobs/', '');
}
