/**
 * Correcting cells and choosing a sheet's columns change what a submission sends: a viewer may do
 * neither (and the refusal is in the audit trail), an operator may, and the trail records each
 * correction (who, which upload, row and column, old and new value) and each mapping; the submission's
 * entry holds the hash of the sheet as it was read, the file's own and the count of corrected cells.
 */
import { createHash } from 'node:crypto';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLedger } from '../../src/ledger/index.js';
import type { AuditRecord } from '../../src/ledger/team-types.js';
import { logIn, startTestApp, uploadForm, type Session, type TestApp } from './support.js';

const SHEET = [
  'Order Number,Order Date,Recipient,Street,Town,Region,Post Code,Country,Tel,Article,Item Title,Qty,Price,Tax',
  'CX-1,2026-11-18 10:00,Ann Lee,1 Main St,Springfield,IL,62704,United States,217-555-0134,PRD-1001,Mug,2,5.00,0.80',
  'CX-2,2026-11-18 11:00,Bo Park,2 Oak Ave,Springfield,IL,62704,United States,555,PRD-1001,Mug,1,5.00,0.40',
].join('\n');
const MAPPING = {
  'col-0': 'customerOrderId', 'col-1': 'orderDate', 'col-2': 'fullName', 'col-3': 'addressLine1', 'col-4': 'city', 'col-5': 'provinceOrState',
  'col-6': 'postalOrZipCode', 'col-7': 'countryCode', 'col-8': 'phone', 'col-9': 'productId', 'col-10': 'name', 'col-11': 'quantity',
  'col-12': 'unitPrice', 'col-13': 'salesTax', 'const-sourceOfSale': 'OtherMarketplace', lineNumbers: '1',
};

describe('corrections and mappings', () => {
  let web: TestApp;
  let viewer: Session;
  let operator: Session;
  let uploadPath: string;
  beforeAll(async () => {
    web = await startTestApp({
      accounts: [
        { name: 'vera', role: 'viewer', password: 'viewer password 1' },
        { name: 'otto', role: 'operator', password: 'operator password 1' },
      ],
    });
    viewer = await logIn(web.app.url, 'vera', 'viewer password 1');
    operator = await logIn(web.app.url, 'otto', 'operator password 1');
    const uploaded = await request(`${web.app.url}/upload`, { method: 'POST', body: uploadForm({ csrf: viewer.csrf, fileName: 'cx.csv', content: SHEET }), headers: { cookie: viewer.cookie, origin: web.app.url } });
    uploadPath = uploaded.headers.location as string;
    await uploaded.body.text();
  });
  afterAll(() => web?.close());

  const trail = async (): Promise<AuditRecord[]> => {
    const ledger = await openLedger(web.ledgerPath);
    try {
      return await ledger.audit.list({ limit: 1000 });
    } finally {
      await ledger.close();
    }
  };
  const map = (session: Session, fields: Record<string, string>) =>
    request(`${web.app.url}${uploadPath}/mapping`, {
      method: 'POST',
      body: new URLSearchParams({ _csrf: session.csrf, ...fields }).toString(),
      headers: { cookie: session.cookie, origin: web.app.url, 'content-type': 'application/x-www-form-urlencoded' },
    });
  const correct = (session: Session, body: unknown) =>
    request(`${web.app.url}${uploadPath}/cells`, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { cookie: session.cookie, origin: web.app.url, 'content-type': 'application/json', accept: 'application/json', 'x-csrf-token': session.csrf },
    });

  const pageFor = async (session: Session) => (await request(`${web.app.url}${uploadPath}`, { headers: { cookie: session.cookie } })).body.text();

  it('refuses both to a viewer, and records the refusals', async () => {
    const step = await pageFor(viewer);
    expect(step).toContain('data-no-mapping');
    expect(step).not.toContain('Read the sheet with these columns');
    const mapped = await map(viewer, { ...MAPPING, name: 'viewer-map' });
    expect(mapped.statusCode).toBe(403);
    expect(await mapped.body.text()).toContain('may not do this');
    const corrected = await correct(viewer, { row: 3, col: 8, value: '217-555-0100' });
    expect(corrected.statusCode).toBe(403);
    await corrected.body.text();
    const refusals = (await trail()).filter((e) => e.action === 'refused');
    expect(refusals).toHaveLength(2);
    expect(refusals.map((e) => e.detail)).toEqual([
      expect.stringMatching(/^POST \/uploads\/:id\/cells needs the operator role; vera is viewer$/),
      expect.stringMatching(/^POST \/uploads\/:id\/mapping needs the operator role; vera is viewer$/),
    ]);
    expect(refusals[0]).toMatchObject({ actor: 'vera', ref: uploadPath.split('/').at(-1) });
  });

  it('lets an operator map and correct, each in the audit trail, and the submission names what was sent', async () => {
    const mapped = await map(operator, MAPPING);
    expect(mapped.statusCode).toBe(303);
    await mapped.body.text();
    expect(await pageFor(viewer)).not.toContain('data-edit-row');
    expect(await pageFor(operator)).toContain('data-edit-row="3" data-edit-col="8"');
    const corrected = await correct(operator, { row: 3, col: 8, value: '217-555-0100' });
    expect(corrected.statusCode).toBe(200);
    expect(await corrected.body.json()).toMatchObject({ status: 'valid' });
    const long = 'x'.repeat(500);
    expect((await correct(operator, { row: 3, col: 10, value: long })).statusCode).toBe(200);
    expect((await correct(operator, { row: 3, col: 10, value: 'Mug' })).statusCode).toBe(200);

    const id = uploadPath.split('/').at(-1)!;
    const entries = await trail();
    expect(entries.find((e) => e.action === 'mapping')).toMatchObject({ actor: 'otto', ref: id, fileName: 'cx.csv', detail: expect.stringMatching(/^customerOrderId from "Order Number", .*phone from "Tel".*; for this upload only$/) });
    const edits = entries.filter((e) => e.action === 'cell_edit').reverse();
    expect(edits.map((e) => e.detail)).toEqual([
      'row 3, column "Tel": "555" -> "217-555-0100"',
      `row 3, column "Item Title": "Mug" -> "${'x'.repeat(60)}…"`,
      `row 3, column "Item Title": "${'x'.repeat(60)}…" -> "Mug"`,
    ]);
    expect(edits[0]).toMatchObject({ actor: 'otto', ref: id, fileName: 'cx.csv' });

    const submitted = await request(`${web.app.url}${uploadPath}/submit`, {
      method: 'POST',
      body: `_csrf=${operator.csrf}`,
      headers: { cookie: operator.cookie, origin: web.app.url, 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(submitted.statusCode).toBe(303);
    await submitted.body.text();
    const original = createHash('sha256').update(SHEET).digest('hex');
    const submit = (await trail()).find((e) => e.action === 'submit')!;
    expect(submit).toMatchObject({ actor: 'otto', fileName: 'cx.csv', counts: { valid: 2, cells_edited: 2 } });
    expect(submit.fileSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(submit.fileSha256).not.toBe(original);
    expect(submit.detail).toBe(`read with the columns chosen in the page (upload-${id.slice(0, 8).replace(/[^A-Za-z0-9]/g, 'x')}) and with 2 corrected cells; the file as uploaded: sha256 ${original}`);
  });
});
