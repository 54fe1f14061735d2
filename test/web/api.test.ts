/**
 * The HTTP API driven with plain HTTP and a bearer token, as an ERP or a script would, on both
 * ledgers: the whole loop, roles, revocation, limits, and the audit trail.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeAccount } from '../../src/accounts/manage.js';
import { revokeToken } from '../../src/accounts/tokens.js';
import { openLedger } from '../../src/ledger/index.js';
import { createDatabase, describePostgres, type TestDatabase } from '../support/postgres/database.js';
import { callApi, hasEnded, makeToken, pollUntil, sheetForm } from './api-support.js';
import { logIn, SAMPLES, startTestApp, type TestApp } from './support.js';

const ACCOUNTS = [
  { name: 'olga', role: 'operator', password: 'operator password 1' },
  { name: 'vera', role: 'viewer', password: 'viewer password 1' },
  { name: 'ada', role: 'admin', password: 'admin password 1' },
] as const;
const VALID = readFileSync(join(SAMPLES, 'orders-valid.csv'));
const MISTAKES = readFileSync(join(SAMPLES, 'orders-with-mistakes.csv'));

function describeApi(backend: string, describeIt: (name: string, body: () => void) => void, ledgerOf: () => Promise<{ path: string; drop(): Promise<void> }>) {
  describeIt(`the HTTP API on ${backend}`, () => {
    let web: TestApp;
    let ledger: { path: string; drop(): Promise<void> };
    let operator: string;
    let viewer: string;
    const api = (method: 'GET' | 'POST', path: string, options: Parameters<typeof callApi>[3] = {}) => callApi(web.app.url, method, path, options);

    beforeAll(async () => {
      ledger = await ledgerOf();
      web = await startTestApp({ ...(backend === 'SQLite' ? {} : { ledgerPath: ledger.path }), accounts: ACCOUNTS });
      operator = await makeToken(web.ledgerPath, 'olga', 'erp');
      viewer = await makeToken(web.ledgerPath, 'vera', 'dashboard');
    });
    afterAll(async () => {
      await web?.close();
      await ledger?.drop();
    });

    it('uploads a sheet, reads its verdict, submits it, follows the job, downloads its result and reconciles', async () => {
      const uploaded = await api('POST', '/api/v1/sheets', { token: operator, body: sheetForm('orders-valid.csv', VALID) });
      expect(uploaded.status).toBe(201);
      const sheet = uploaded.body as { id: string; state: string; orders: { valid: number; invalid: number } };
      expect(sheet).toMatchObject({ state: 'checked', orders: { invalid: 0 } });
      expect(sheet.orders.valid).toBeGreaterThan(0);
      expect(uploaded.headers.location).toBe(`/api/v1/sheets/${sheet.id}`);

      const verdict = await api('GET', `/api/v1/sheets/${sheet.id}?pageSize=2`, { token: viewer });
      expect(verdict.status).toBe(200);
      expect((verdict.body as { items: unknown[] }).items).toHaveLength(Math.min(2, sheet.orders.valid));

      const submitted = await api('POST', `/api/v1/sheets/${sheet.id}/submit`, { token: operator });
      expect(submitted.status).toBe(202);
      const { jobId } = submitted.body as { jobId: string };
      expect(submitted.headers.location).toBe(`/api/v1/jobs/${jobId}`);
      const finished = await pollUntil(web.app.url, `/api/v1/jobs/${jobId}`, operator, (job) => job.state !== 'queued' && job.state !== 'running');
      expect(finished.body).toMatchObject({ state: 'finished', summary: { accepted: sheet.orders.valid }, result: `/api/v1/jobs/${jobId}/result` });

      const workbook = await api('GET', `/api/v1/jobs/${jobId}/result`, { token: viewer });
      expect(workbook.status).toBe(200);
      expect(workbook.bytes.subarray(0, 2).toString()).toBe('PK');
      const csv = await api('GET', `/api/v1/jobs/${jobId}/result?format=csv`, { token: viewer });
      expect(csv.contentType).toMatch(/^text\/csv/);
      expect(csv.bytes.toString('utf8')).toMatch(/accepted/);

      const started = await api('POST', '/api/v1/reconciliations', { token: operator });
      expect(started.status).toBe(202);
      const { id } = started.body as { id: string };
      expect(started.headers.location).toBe(`/api/v1/reconciliations/${id}`);
      const reconciled = await pollUntil(web.app.url, `/api/v1/reconciliations/${id}`, viewer, hasEnded);
      expect(reconciled.status).toBe(200);
      expect(reconciled.body).toMatchObject({ id, state: 'finished' });
      expect((reconciled.body as { orders: number }).orders).toBeGreaterThanOrEqual(sheet.orders.valid);

      const runs = await api('GET', '/api/v1/runs', { token: viewer });
      expect((runs.body as { runs: { jobId: string | null }[] }).runs.some((run) => run.jobId === jobId)).toBe(true);
    });

    it('gives the problems of a sheet by row and column with their issue codes', async () => {
      const uploaded = await api('POST', '/api/v1/sheets', { token: viewer, body: sheetForm('orders-with-mistakes.csv', MISTAKES) });
      const { id } = uploaded.body as { id: string };
      const verdict = await api('GET', `/api/v1/sheets/${id}?status=invalid`, { token: viewer });
      const items = (verdict.body as { items: { status: string; problems: { row: number; column: string | null; code: string }[] }[] }).items;
      expect(items.length).toBeGreaterThan(0);
      expect(items.every((item) => item.status === 'invalid' && item.problems.length > 0)).toBe(true);
      expect(items[0]!.problems[0]).toMatchObject({ row: expect.any(Number), code: expect.stringMatching(/^[a-z_]+$/) });
    });

    it("refuses a viewer's token a submission with 403 and records the refusal", async () => {
      const uploaded = await api('POST', '/api/v1/sheets', { token: viewer, body: sheetForm('orders-valid.csv', VALID) });
      const refused = await api('POST', `/api/v1/sheets/${(uploaded.body as { id: string }).id}/submit`, { token: viewer });
      expect(refused.status).toBe(403);
      expect(refused.contentType).toMatch(/^application\/problem\+json/);
      expect(refused.body).toMatchObject({ type: 'urn:order-batch:problem:forbidden', status: 403 });
      const opened = await openLedger(web.ledgerPath);
      const [entry] = await opened.audit.list({ actor: 'vera', limit: 1 });
      await opened.close();
      expect(entry).toMatchObject({ action: 'refused', detail: expect.stringContaining('API token dashboard') });
    });

    it('records every call under the account and the token', async () => {
      const opened = await openLedger(web.ledgerPath);
      const entries = await opened.audit.list({ actor: 'olga' });
      await opened.close();
      for (const action of ['check', 'submit', 'reconcile', 'api_read']) {
        expect(entries.find((e) => e.action === action)?.detail, action).toMatch(/API token erp/);
      }
    });

    it('refuses requests without a token, with a cookie session, or with a revoked token', async () => {
      expect((await api('GET', '/api/v1/runs')).status).toBe(401);
      const session = await logIn(web.app.url, 'ada', 'admin password 1');
      const withCookie = await api('GET', '/api/v1/runs', { headers: { cookie: session.cookie } });
      expect(withCookie.status).toBe(401);
      expect(withCookie.body).toMatchObject({ type: 'urn:order-batch:problem:unauthorized' });

      const token = await makeToken(web.ledgerPath, 'olga', 'short-lived');
      expect((await api('GET', '/api/v1/runs', { token })).status).toBe(200);
      const opened = await openLedger(web.ledgerPath);
      await revokeToken(opened, { name: 'test-admin', via: 'cli', address: null }, 'short-lived');
      await opened.close();
      expect((await api('GET', '/api/v1/runs', { token })).status).toBe(401);
    });

    it("stops a disabled account's tokens at once", async () => {
      const token = await makeToken(web.ledgerPath, 'vera', 'to-disable');
      expect((await api('GET', '/api/v1/runs', { token })).status).toBe(200);
      const opened = await openLedger(web.ledgerPath);
      await changeAccount(opened, { name: 'test-admin', via: 'cli', address: null }, { kind: 'disable', name: 'vera' });
      await opened.close();
      expect((await api('GET', '/api/v1/runs', { token })).status).toBe(401);
    });

    it('answers an unknown sheet, job or route with a 404 problem', async () => {
      for (const path of ['/api/v1/sheets/AAAAAAAAAAAAAAAA', '/api/v1/jobs/AAAAAAAAAAAAAAAA', '/api/v1/nothing']) {
        const answer = await api('GET', path, { token: operator });
        expect(answer.status, path).toBe(404);
        expect(answer.body, path).toMatchObject({ type: 'urn:order-batch:problem:not-found' });
      }
    });
  });
}

describeApi('SQLite', describe, async () => ({ path: '', drop: async () => {} }));
describeApi('PostgreSQL', describePostgres, async () => {
  const db: TestDatabase = await createDatabase();
  return { path: db.url, drop: () => db.drop() };
});

describe('the HTTP API limits', () => {
  let web: TestApp;
  let token: string;
  beforeAll(async () => {
    web = await startTestApp({ accounts: [{ name: 'olga', role: 'operator', password: 'operator password 1' }], maxUploadBytes: 1024, apiRequestsPerMinute: 3 });
    token = await makeToken(web.ledgerPath, 'olga', 'erp');
  });
  afterAll(async () => {
    await web?.close();
  });

  it('refuses an upload over the size limit with 413', async () => {
    const answer = await callApi(web.app.url, 'POST', '/api/v1/sheets', { token, body: sheetForm('orders.csv', Buffer.alloc(4096, 'a')) });
    expect(answer.status).toBe(413);
    expect(answer.body).toMatchObject({ type: 'urn:order-batch:problem:too-large' });
  });

  it('refuses a request a page of another site sends, even with a token', async () => {
    const answer = await callApi(web.app.url, 'POST', '/api/v1/reconciliations', { token, headers: { origin: 'https://evil.example' } });
    expect(answer.status).toBe(403);
    expect(answer.body).toMatchObject({ type: 'urn:order-batch:problem:cross-site' });
  });

  it('answers too many requests with 429 and Retry-After', async () => {
    const statuses: number[] = [];
    let retryAfter: unknown;
    for (let i = 0; i < 5; i++) {
      const answer = await callApi(web.app.url, 'GET', '/api/v1/runs', { token });
      statuses.push(answer.status);
      if (answer.status === 429) retryAfter = answer.headers['retry-after'];
    }
    expect(statuses).toContain(429);
    expect(Number(retryAfter)).toBeGreaterThan(0);
  });
});
