/**
 * How much work one system may pile up through the API (src/web/api/backpressure.ts), and what the
 * API answers while its ledger cannot be reached: problem details with Retry-After, never a page.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { openLedger } from '../../src/ledger/index.js';
import type { Ledger } from '../../src/ledger/index.js';
import { jobsAtLimit } from '../../src/web/api/backpressure.js';
import { CheckQueue } from '../../src/web/check-queue.js';
import { installLedgerOutageGate } from '../../src/web/ledger-outage.js';
import { makeTempFolder } from '../support/temp-dir.js';
import { callApi, makeToken, sheetForm } from './api-support.js';
import { SAMPLES, startTestApp, type TestApp } from './support.js';

/** A check that ends when the test says so. */
function held(): { promise: Promise<void>; release: () => void } {
  let release!: () => void;
  const promise = new Promise<void>((resolve) => (release = resolve));
  return { promise, release };
}

describe('the line of API uploads waiting to be checked', () => {
  let web: TestApp | undefined;
  afterAll(async () => web?.close());

  it('answers 429 with Retry-After once as many uploads wait as the limit, and takes uploads again once there is room', async () => {
    const queue = new CheckQueue(1);
    const blocker = held();
    const blocking = queue.run({ id: 'other', fileName: 'other.csv' }, () => blocker.promise, () => 'failed');
    web = await startTestApp({ checkQueue: queue, apiWaitingChecks: 1, accounts: [{ name: 'olga', role: 'operator', password: 'operator password 1' }] });
    const token = await makeToken(web.ledgerPath, 'olga', 'erp');
    const sheet = readFileSync(join(SAMPLES, 'orders-valid.csv'));
    const first = await callApi(web.app.url, 'POST', '/api/v1/sheets', { token, body: sheetForm('orders-valid.csv', sheet) });
    expect(first.status).toBe(202);
    const refused = await callApi(web.app.url, 'POST', '/api/v1/sheets', { token, body: sheetForm('orders-valid.csv', sheet) });
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('10');
    expect(refused.body).toMatchObject({ type: 'urn:order-batch:problem:too-many-requests', detail: expect.stringContaining('1 uploads already wait their turn') });
    blocker.release();
    await blocking;
    for (let look = 0; look < 400 && queue.waitingCount > 0; look++) await new Promise((resolve) => setTimeout(resolve, 25));
    // The first one is being checked now: the next waits its turn again (202) instead of being refused.
    expect((await callApi(web.app.url, 'POST', '/api/v1/sheets', { token, body: sheetForm('orders-valid.csv', sheet) })).status).toBe(202);
  });
});

describe("an account's submissions queued or running", () => {
  it('are limited per account, across the ledger: finished ones and other accounts do not count', async () => {
    const dir = makeTempFolder('backpressure');
    const ledger = await openLedger(join(dir, 'ledger.db'));
    try {
      const job = (id: string, createdBy: string) => ({ id, uploadId: `u-${id}`, fileName: 'orders.csv', fileSha256: null, sheet: null, createdBy, expected: 1 });
      await ledger.jobs.create(job('a1', 'olga'));
      await ledger.jobs.create(job('b1', 'vera'));
      await ledger.jobs.create({ ...job('r1', 'olga'), kind: 'reconcile' });
      expect(await jobsAtLimit(ledger.jobs, 'olga', 2)).toBeNull();
      await ledger.jobs.create(job('a2', 'olga'));
      expect(await jobsAtLimit(ledger.jobs, 'olga', 2)).toMatch(/^olga has 2 submissions queued or running \(at most 2\)/);
      await ledger.jobs.requestCancel('a1', 'olga');
      expect(await jobsAtLimit(ledger.jobs, 'olga', 2)).toBeNull();
    } finally {
      await ledger.close();
    }
  });
});

describe('the API while the ledger cannot be reached', () => {
  it('answers 503 problem details with Retry-After, and pages still get their page', async () => {
    const app = Fastify();
    installLedgerOutageGate(app, { isUnreachable: () => true } as unknown as Ledger);
    app.get('/api/v1/runs', async () => ({ runs: [] }));
    app.get('/history', async () => 'history');
    const api = await app.inject({ method: 'GET', url: '/api/v1/runs' });
    expect(api.statusCode).toBe(503);
    expect(api.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(api.headers['retry-after']).toBe('5');
    expect(api.json()).toMatchObject({ type: 'urn:order-batch:problem:unavailable', status: 503 });
    const page = await app.inject({ method: 'GET', url: '/history' });
    expect([page.statusCode, page.headers['content-type']]).toEqual([503, 'text/html; charset=utf-8']);
    await app.close();
  });
});
