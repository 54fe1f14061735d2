/** The web app's server over real loopback HTTP: its guards, its upload limit, its pages and its JSON. */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { Response, request, type FormData } from 'undici';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { runServe } from '../../src/web/server.js';
import { openSession, SAMPLES, SAMPLES_AS_OF, startTestApp, uploadFolders, uploadForm, useAppWithSession } from './support.js';

const LIMIT = 16 * 1024;

describe('the web app server', () => {
  const { web, session } = useAppWithSession({ maxUploadBytes: LIMIT });

  const uploads = () => uploadFolders(web);
  const post = (path: string, body: FormData | string | Readable, headers: Record<string, string> = {}) =>
    request(`${web.app.url}${path}`, {
      method: 'POST',
      body,
      headers: { cookie: session.cookie, origin: web.app.url, ...(typeof body === 'string' ? { 'content-type': 'application/x-www-form-urlencoded' } : {}), ...headers },
    });
  const upload = async (fileName: string, content: Buffer | string) => {
    const response = await post('/upload', uploadForm({ csrf: session.csrf, fileName, content }));
    await response.body.text();
    expect(response.statusCode).toBe(303);
    return String(response.headers.location);
  };
  const get = async (path: string) => {
    const response = await request(`${web.app.url}${path}`, { headers: { cookie: session.cookie } });
    return { status: response.statusCode, headers: response.headers, text: await response.body.text() };
  };

  it('refuses a request whose Host header names another site, as a DNS-rebinding page would', async () => {
    const response = await request(`${web.app.url}/`, { headers: { host: `attacker.example:${new URL(web.app.url).port}` } });
    const text = await response.body.text();
    expect(response.statusCode).toBe(403);
    expect(text).not.toContain('csrf-token');
  });

  it('answers under 127.0.0.1 and localhost with its own port, with a SameSite=Strict HttpOnly session cookie', async () => {
    for (const host of [web.host, `localhost:${new URL(web.app.url).port}`]) {
      const response = await request(`${web.app.url}/`, { headers: { host } });
      await response.body.text();
      expect(response.statusCode).toBe(200);
      expect(String(response.headers['set-cookie'])).toMatch(/HttpOnly; SameSite=Strict/);
    }
  });

  it('refuses an upload posted from another origin, before reading it', async () => {
    const before = uploads().length;
    const response = await post('/upload', uploadForm({ csrf: session.csrf, fileName: 'orders.csv', content: 'a,b\n1,2\n' }), { origin: 'https://attacker.example' });
    expect(response.statusCode).toBe(403);
    expect(await response.body.text()).toContain('came from another web site');
    expect(uploads().length).toBe(before);
  });

  it('refuses a post whose Sec-Fetch-Site says it came from another site', async () => {
    const response = await request(`${web.app.url}/reconcile`, {
      method: 'POST',
      body: `_csrf=${session.csrf}`,
      headers: { cookie: session.cookie, 'sec-fetch-site': 'cross-site', 'content-type': 'application/x-www-form-urlencoded' },
    });
    await response.body.text();
    expect(response.statusCode).toBe(403);
  });

  it("refuses an upload without the session's CSRF token, or with another session's", async () => {
    const other = await openSession(web.app.url);
    for (const csrf of [undefined, other.csrf]) {
      const before = uploads().length;
      const response = await post('/upload', uploadForm({ ...(csrf ? { csrf } : {}), fileName: 'orders.csv', content: readFileSync(join(SAMPLES, 'orders-valid.csv')) }));
      expect(response.statusCode).toBe(403);
      expect(await response.body.text()).toContain('Reload the page');
      expect(uploads().length).toBe(before);
    }
  });

  it('refuses a submission without the CSRF token', async () => {
    const location = await upload('orders-valid.csv', readFileSync(join(SAMPLES, 'orders-valid.csv')));
    const response = await post(`${location}/submit`, 'nothing=here');
    await response.body.text();
    expect(response.statusCode).toBe(403);
  });

  it('answers 413 with a friendly page when the upload is larger than the limit', async () => {
    const response = await post('/upload', uploadForm({ csrf: session.csrf, fileName: 'big.csv', content: 'x'.repeat(LIMIT * 5) }));
    expect(response.statusCode).toBe(413);
    expect(await response.body.text()).toContain('larger than the 16 KB this app accepts');
  });

  it('answers 413 to an over-limit upload sent without a length, and keeps nothing of it', async () => {
    const before = uploads().length;
    const encoded = new Response(uploadForm({ csrf: session.csrf, fileName: 'big.csv', content: 'x'.repeat(LIMIT + 10) }));
    const response = await post('/upload', Readable.fromWeb(encoded.body! as import('node:stream/web').ReadableStream), {
      'content-type': encoded.headers.get('content-type')!,
    });
    expect(response.statusCode).toBe(413);
    expect(await response.body.text()).toContain('larger than the 16 KB');
    expect(uploads().length).toBe(before);
  });

  it('checks an uploaded sheet and shows each bad cell with its message', async () => {
    const location = await upload('orders-with-mistakes.csv', readFileSync(join(SAMPLES, 'orders-with-mistakes.csv')));
    expect(location).toMatch(/^\/uploads\/[A-Za-z0-9_-]{16}$/);
    const page = await get(location);
    expect(page.status).toBe(200);
    expect(page.text).toContain('class="cell-error" data-col="4"><span class="cell-value">samuel.reed@example</span>');
    expect(page.text).toContain('is not an email address');
    // The API's checks run at check time: SO-20005's product is out of stock, so one order is left to submit.
    expect(page.text).toContain('Submit 1 valid order<');
    expect(page.text).toMatch(/SO-20005[\s\S]*is out of stock in every fulfillment center/);
    const filtered = await get(`${location}?show=valid`);
    expect(filtered.text).toContain('Showing 1 row of 11.');
  });

  it('checks an Excel workbook the same way', async () => {
    const page = await get(await upload('orders-with-mistakes.xlsx', readFileSync(join(SAMPLES, 'orders-with-mistakes.xlsx'))));
    expect(page.text).toContain('is not an email address');
    expect(page.text).toMatch(/<strong data-count="valid">1<\/strong>/);
  });

  it('shows markup in a cell as text, never as markup', async () => {
    const csv = readFileSync(join(SAMPLES, 'orders-valid.csv'), 'utf8').replace('Grace Kim', '<script>alert(1)</script>');
    const page = await get(await upload('orders.csv', csv));
    expect(page.text).not.toContain('<script>alert(1)</script>');
    expect(page.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('says plainly when a file is not an order sheet', async () => {
    const page = await get(await upload('notes.pdf', '%PDF-1.4 not a sheet'));
    expect(page.text).toContain('This file could not be used.');
  });

  it('serves downloads by id only: paths and unknown ids get nothing', async () => {
    const location = await upload('orders-with-mistakes.csv', readFileSync(join(SAMPLES, 'orders-with-mistakes.csv')));
    const result = await get(`${location}/result`);
    expect(result.status).toBe(200);
    expect(result.headers['content-disposition']).toContain('orders-with-mistakes.result.xlsx');
    const fix = await request(`${web.app.url}${location}/fix`, { headers: { cookie: session.cookie } });
    expect(fix.statusCode).toBe(200);
    const fixText = Buffer.from(await fix.body.arrayBuffer()).toString('utf8');
    expect(fixText.split('\r\n')[0]).toMatch(/^\ufeffcustomerOrderId,.*,issues$/);
    // The rows of the 8 orders with mistakes and of the one out of stock.
    expect(fixText.split('\r\n').filter((line) => line !== '').length).toBe(1 + 10);
    expect(fixText).toContain('out of stock');
    // The Fix sheet goes back in as it is: the same orders, still to be corrected.
    const again = await get(await upload('orders-with-mistakes.fix.csv', fixText));
    expect(again.text).toMatch(/<strong data-count="invalid">9<\/strong>/);
    expect(again.text).toContain('is not an email address');
    for (const path of [
      '/uploads/..%2F..%2F..%2Fetc%2Fpasswd/result',
      '/uploads/../../package.json',
      '/uploads/AAAAAAAAAAAAAAAA/result',
      '/jobs/..%2Fverdict.json/result',
      '/runs/00000000-0000-0000-0000-000000000000/files/0',
      '/runs/..%2F..%2Fledger.db/files/0',
      '/reconcile/%2E%2E%2F%2E%2E/workbook',
      '/static/..%2F..%2Fpackage.json',
    ]) {
      const response = await get(path);
      expect(response.status, path).toBe(404);
      expect(response.text, path).not.toContain('"name": "order-batch"');
    }
  });

  it("reports a submission's progress as JSON, and its result once done", async () => {
    const location = await upload('orders-valid.csv', readFileSync(join(SAMPLES, 'orders-valid.csv')));
    const submitted = await post(`${location}/submit`, `_csrf=${encodeURIComponent(session.csrf)}`);
    await submitted.body.text();
    expect(submitted.statusCode).toBe(303);
    const job = String(submitted.headers.location);
    expect(job).toMatch(/^\/jobs\/[A-Za-z0-9_-]{16}$/);
    let progress: { state: string; done: number; total: number; counts: Record<string, number>; summary?: Record<string, number>; resultUrl?: string };
    do {
      const response = await request(`${web.app.url}${job}/progress`, { headers: { cookie: session.cookie, accept: 'application/json' } });
      progress = (await response.body.json()) as typeof progress;
      expect(['queued', 'running', 'done']).toContain(progress.state);
      expect(progress.done).toBeLessThanOrEqual(progress.total);
    } while (progress.state !== 'done');
    expect(progress.summary?.accepted).toBeGreaterThan(0);
    expect(progress.counts.accepted).toBe(progress.summary?.accepted);
    expect(progress.done).toBe(progress.total);
    const result = await get(progress.resultUrl!);
    expect(result.status).toBe(200);
    expect(result.headers['content-type']).toContain('spreadsheetml');
  });

  it('reconciles on demand and shows the roll-up as a chart and a table, with the workbook to download', async () => {
    const posted = await post('/reconcile', `_csrf=${encodeURIComponent(session.csrf)}`);
    await posted.body.text();
    expect(posted.statusCode).toBe(303);
    const page = await get('/reconcile');
    expect(page.text).toMatch(/<svg class="chart"[^>]*role="img"/);
    expect(page.text).toMatch(/<td class="num" data-rollup="waiting">\d+<\/td>/);
    const link = /href="(\/reconcile\/[A-Za-z0-9_-]{16}\/workbook)"/.exec(page.text)?.[1];
    const workbook = await get(link!);
    expect(workbook.status).toBe(200);
    expect(workbook.headers['content-disposition']).toContain('reconciliation.xlsx');
    const history = await get('/history');
    expect(history.text).toContain('<td>reconcile</td>');
  });

  it('answers an unknown page with a friendly 404, not a stack trace', async () => {
    const page = await get('/no/such/page');
    expect(page.status).toBe(404);
    expect(page.text).toContain('There is nothing at this address');
    expect(page.text).not.toMatch(/at .*\.js:\d+/);
  });
});

describe('the web app without an API configured', () => {
  it('prints where it listens first, checks sheets, and says how to configure an API instead of submitting', async () => {
    const lines: string[] = [];
    const web = await startTestApp({ useSandbox: false });
    await web.app.close();
    const app = await runServe({
      port: 0,
      useSandbox: false,
      connection: { auth: 'oauth' },
      ledgerPath: web.ledgerPath,
      context: { now: SAMPLES_AS_OF, timezone: 'UTC', sourcesOfSale: ['OtherMarketplace'] },
      concurrency: 2,
      maxAttempts: 2,
      lateAfterDays: 3,
      logger: silentLogger,
      now: SAMPLES_AS_OF,
      print: (line) => lines.push(line),
    });
    try {
      expect(lines[0]).toBe(`listening ${app.url}`);
      expect(app.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const session = await openSession(app.url);
      const posted = await request(`${app.url}/upload`, {
        method: 'POST',
        body: uploadForm({ csrf: session.csrf, fileName: 'orders-valid.csv', content: readFileSync(join(SAMPLES, 'orders-valid.csv')) }),
        headers: { cookie: session.cookie, origin: app.url },
      });
      await posted.body.text();
      const location = String(posted.headers.location);
      const page = await (await request(`${app.url}${location}`, { headers: { cookie: session.cookie } })).body.text();
      expect(page).toContain('FULFILLMENT_BASE_URL');
      expect(page).not.toMatch(/Submit \d+ valid order/);
      const submit = await request(`${app.url}${location}/submit`, {
        method: 'POST',
        body: `_csrf=${encodeURIComponent(session.csrf)}`,
        headers: { cookie: session.cookie, origin: app.url, 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(submit.statusCode).toBe(409);
      expect(await submit.body.text()).toContain('--sandbox');
    } finally {
      await app.close();
      rmSync(web.dir, { recursive: true, force: true });
    }
  });
});

describe('the web app before its first upload', () => {
  it('reconciles to an empty workbook, not an error about a missing ledger', async () => {
    // No import yet, so no ledger file: the CLI takes that for a mistyped --ledger, the web app must not.
    const web = await startTestApp();
    try {
      const session = await openSession(web.app.url);
      const posted = await request(`${web.app.url}/reconcile`, {
        method: 'POST',
        body: `_csrf=${encodeURIComponent(session.csrf)}`,
        headers: { cookie: session.cookie, origin: web.app.url, 'content-type': 'application/x-www-form-urlencoded' },
      });
      const text = await posted.body.text();
      expect([posted.statusCode, text]).toEqual([303, expect.anything()]);
      const page = await request(`${web.app.url}/reconcile`, { headers: { cookie: session.cookie } });
      const html = await page.body.text();
      expect(page.statusCode).toBe(200);
      expect(html).not.toContain('There is no ledger');
    } finally {
      await web.close();
    }
  });
});
