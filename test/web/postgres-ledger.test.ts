/** The web app on a PostgreSQL ledger: a submission is recorded there and History shows it, the ledger named without its password. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request, type FormData } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openLedger } from '../../src/ledger/open-ledger.js';
import { createDatabase, describePostgres, type TestDatabase } from '../support/postgres/database.js';
import { SAMPLES, startAppWithSession, uploadForm, type Session, type TestApp } from './support.js';

describePostgres('the web app on a PostgreSQL ledger', () => {
  let db: TestDatabase;
  let web: TestApp;
  let session: Session;
  beforeAll(async () => {
    db = await createDatabase();
    ({ web, session } = await startAppWithSession({ ledgerPath: db.url }));
  });
  afterAll(async () => {
    await web?.close();
    await db?.drop();
  });
  const post = (path: string, body: FormData | string) =>
    request(`${web.app.url}${path}`, {
      method: 'POST',
      body,
      headers: { cookie: session.cookie, origin: web.app.url, ...(typeof body === 'string' ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
    });
  const get = async (path: string) => (await request(`${web.app.url}${path}`, { headers: { cookie: session.cookie } })).body.text();

  it('sends a submission through the shared ledger and shows it in History', async () => {
    const uploaded = await post('/upload', uploadForm({ csrf: session.csrf, fileName: 'orders-valid.csv', content: readFileSync(join(SAMPLES, 'orders-valid.csv')) }));
    await uploaded.body.text();
    const submitted = await post(`${String(uploaded.headers.location)}/submit`, `_csrf=${encodeURIComponent(session.csrf)}`);
    await submitted.body.text();
    const job = String(submitted.headers.location);
    let progress: { state: string; summary?: Record<string, number> };
    do progress = (await (await request(`${web.app.url}${job}/progress`, { headers: { cookie: session.cookie, accept: 'application/json' } })).body.json()) as typeof progress;
    while (progress.state !== 'done');
    expect(progress.summary?.accepted).toBeGreaterThan(0);

    const ledger = await openLedger(db.url);
    const [run] = await ledger.listRuns(1);
    expect(run).toMatchObject({ command: 'import', summary: progress.summary });
    expect((await ledger.countByState()).accepted).toBe(progress.summary?.accepted);
    await ledger.close();

    const history = await get('/history');
    // The submission's result is served from the ledger through its job, by any instance.
    expect(history).toContain(`href="${job}/result"`);
    expect(history).toContain('postgresql://order_batch_test:***@');
    expect(history).not.toContain('pg-test-s3cret');
  });

  it('saves a mapping from the mapping step in the shared ledger, recorded in the audit trail under who saved it', async () => {
    const sheet = 'Order Number,Order Date,Recipient,Street,Town,Region,Post Code,Country,Tel,Article,Item Title,Qty,Price,Tax\nCX-1,2026-11-18 10:00,Ann Lee,1 Main St,Springfield,IL,62704,United States,217-555-0134,PRD-1001,Mug,2,5.00,0.80\n';
    const uploaded = await post('/upload', uploadForm({ csrf: session.csrf, fileName: 'cx.csv', content: sheet }));
    await uploaded.body.text();
    const columns = ['customerOrderId', 'orderDate', 'fullName', 'addressLine1', 'city', 'provinceOrState', 'postalOrZipCode', 'countryCode', 'phone', 'productId', 'name', 'quantity', 'unitPrice', 'salesTax'];
    const form = new URLSearchParams({ _csrf: session.csrf, name: 'cx-shop', 'const-sourceOfSale': 'OtherMarketplace', lineNumbers: '1', ...Object.fromEntries(columns.map((field, i) => [`col-${i}`, field])) });
    const mapped = await post(`${String(uploaded.headers.location)}/mapping`, form.toString());
    await mapped.body.text();
    expect(mapped.statusCode).toBe(303);

    const ledger = await openLedger(db.url);
    try {
      const saved = await ledger.mappings.list();
      expect(saved.map((m) => m.name)).toEqual(['cx-shop']);
      const [entry] = (await ledger.audit.list()).filter((e) => e.action === 'mapping_save');
      expect(entry).toMatchObject({ actor: saved[0]!.savedBy, via: 'web', detail: 'cx-shop', fileName: 'cx.csv' });
    } finally {
      await ledger.close();
    }
  });
});
