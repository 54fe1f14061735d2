/**
 * Every route the app serves, asked without a session once there are accounts: none answers 200 with
 * data. The routes are the ones fastify registered (WebApp.routes), so a route added later is asked
 * too; their ids are real ones (an upload, a job, a reconciliation, a run, an account), so a route
 * that forgot to ask for a session would answer with data, not with a 404.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLedger } from '../../src/ledger/index.js';
import { logIn, SAMPLES, startTestApp, submitSheet, type TestApp } from './support.js';

/** What needs no session: the login form, what the login page is drawn with, the probes monitoring reads, and the API's description. */
const PUBLIC = new Set(['GET /login', 'POST /login', 'GET /static/app.css', 'GET /static/app.js', 'GET /healthz', 'GET /readyz', 'GET /metrics', 'GET /api/v1/openapi.json']);

describe('every route without a session', () => {
  let web: TestApp;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    web = await startTestApp({ accounts: [{ name: 'ada', role: 'admin', password: 'admin password 1' }] });
    const session = await logIn(web.app.url, 'ada', 'admin password 1');
    const headers = { cookie: session.cookie, origin: web.app.url };
    Object.assign(ids, await submitSheet(web.app.url, session, 'orders-valid.csv', readFileSync(join(SAMPLES, 'orders-valid.csv'))));
    const form = { ...headers, 'content-type': 'application/x-www-form-urlencoded' };
    await (await request(`${web.app.url}/reconcile`, { method: 'POST', body: `_csrf=${session.csrf}`, headers: form })).body.text();
    const page = await (await request(`${web.app.url}/reconcile`, { headers })).body.text();
    ids.reconciliation = /\/reconcile\/([\w-]{16})\/workbook/.exec(page)![1]!;
    const ledger = await openLedger(web.ledgerPath);
    ids.run = (await ledger.listRuns(1))[0]!.runId;
    await ledger.close();
  });
  afterAll(async () => {
    await web.close();
  });

  /** A real value for each route parameter; a route with a parameter not listed here fails the test. */
  const pathOf = (url: string) =>
    url.replace(/:(\w+)/g, (_, name: string) => {
      const value = { id: url.startsWith('/uploads') ? ids.upload : url.startsWith('/jobs') ? ids.job : ids.reconciliation, runId: ids.run, index: '0', name: 'ada', label: 'erp' }[name];
      if (!value) throw new Error(`no value for the parameter :${name} of ${url}: add one to this test`);
      return value;
    });

  it('sends a browser to the login page or answers 401, never 200 with data', async () => {
    const routes = web.app.routes.filter((r) => !PUBLIC.has(`${r.method} ${r.url}`));
    expect(routes.length).toBeGreaterThan(20);
    for (const route of routes) {
      for (const accept of ['text/html', 'application/json']) {
        const response = await request(`${web.app.url}${pathOf(route.url)}`, {
          method: route.method as 'GET',
          headers: { accept, origin: web.app.url, ...(route.method === 'POST' ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
          ...(route.method === 'POST' ? { body: '_csrf=x' } : {}),
        });
        const body = await response.body.text();
        const what = `${route.method} ${route.url} (${accept})`;
        expect([303, 401], what).toContain(response.statusCode);
        if (response.statusCode === 303) expect(response.headers.location, what).toMatch(/^\/login/);
        // Nothing of the sheet, its orders, or the accounts.
        expect(body, what).not.toMatch(/SO-1000|Maria Lopez|orders-valid|argon2|\bada\b/);
      }
    }
  });

  it('serves the login page and its stylesheet and script, which hold no data', async () => {
    for (const path of ['/login', '/static/app.css', '/static/app.js']) {
      const response = await request(`${web.app.url}${path}`);
      expect(response.statusCode, path).toBe(200);
      expect(await response.body.text(), path).not.toMatch(/orders-valid|SO-1000|Maria Lopez|\bada\b/);
    }
    const refused = await request(`${web.app.url}/login`, { method: 'POST', headers: { origin: web.app.url, 'content-type': 'application/x-www-form-urlencoded' }, body: 'username=ada&password=nope' });
    expect(refused.statusCode).toBe(401);
  });
});
