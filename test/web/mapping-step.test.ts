/**
 * The mapping step and the corrected cells through the real server: a form that names a field twice,
 * or leaves one every order needs, is shown again with what to change; a correction must name a cell
 * the table shows, with the page's token.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLedger } from '../../src/ledger/index.js';
import { startAppWithSession, uploadForm, type Session, type TestApp } from './support.js';

const SHEET = [
  'Order Number,Order Date,Recipient,Street,Town,Region,Post Code,Country,Tel,Article,Item Title,Qty,Price,Tax',
  'CX-1,2026-11-18 10:00,Ann Lee,1 Main St,Springfield,IL,62704,United States,217-555-0134,PRD-1001,Mug,2,5.00,0.80',
].join('\n');

describe('the mapping step over HTTP', () => {
  let web: TestApp;
  let session: Session;
  let uploadPath: string;

  beforeAll(async () => {
    ({ web, session } = await startAppWithSession());
    const response = await request(`${web.app.url}/upload`, { method: 'POST', body: uploadForm({ csrf: session.csrf, fileName: 'cx.csv', content: SHEET }), headers: { cookie: session.cookie, origin: web.app.url } });
    uploadPath = response.headers.location as string;
    await response.body.text();
  });
  afterAll(() => web?.close());

  const form = (fields: Record<string, string>) =>
    request(`${web.app.url}${uploadPath}/mapping`, {
      method: 'POST',
      body: new URLSearchParams({ _csrf: session.csrf, ...fields }).toString(),
      headers: { cookie: session.cookie, origin: web.app.url, 'content-type': 'application/x-www-form-urlencoded' },
    });
  const guesses = { 'col-0': 'customerOrderId', 'col-1': 'orderDate', 'col-2': 'fullName', 'col-3': 'addressLine1', 'col-4': 'city', 'col-5': 'provinceOrState', 'col-6': 'postalOrZipCode', 'col-7': 'countryCode', 'col-8': 'phone', 'col-10': 'name', 'col-11': 'quantity', 'col-12': 'unitPrice', 'col-13': 'salesTax', 'const-sourceOfSale': 'OtherMarketplace', lineNumbers: '1' };

  it('shows the step first, with the guesses chosen and the missing field named', async () => {
    const page = await (await request(`${web.app.url}${uploadPath}`, { headers: { cookie: session.cookie } })).body.text();
    expect(page).toContain('cx.csv: which column is which?');
    expect(page).toMatch(/<select id="col-2" name="col-2" data-field-choice>.*<option value="fullName" selected>/s);
    expect(page).toMatch(/Not covered yet \(every order needs them\): <strong data-missing>productId<\/strong>/);
  });

  it('preselects neither of two columns that fit a field equally well, and names the other beside each', async () => {
    const sheet = SHEET.replace('Recipient,', 'Ship To Name,Recipient Name,').replace('Ann Lee,', 'Ann Lee,Ann Lee,');
    const response = await request(`${web.app.url}/upload`, { method: 'POST', body: uploadForm({ csrf: session.csrf, fileName: 'two-names.csv', content: sheet }), headers: { cookie: session.cookie, origin: web.app.url } });
    const location = response.headers.location as string;
    await response.body.text();
    const page = await (await request(`${web.app.url}${location}`, { headers: { cookie: session.cookie } })).body.text();
    expect(page).not.toMatch(/<option value="fullName" selected>/);
    expect(page).toContain('could be fullName, as could &quot;Recipient Name&quot;: choose one');
    expect(page).toContain('could be fullName, as could &quot;Ship To Name&quot;: choose one');
  });

  it('refuses a field chosen twice, and a field every order needs left out, saying which', async () => {
    const twice = await form({ ...guesses, 'col-9': 'name' });
    expect(twice.statusCode).toBe(400);
    expect(await twice.body.text()).toContain('Each field takes one source: name is chosen for &quot;Article&quot; and for &quot;Item Title&quot;. Keep one of them.');
    const missing = await form(guesses);
    expect(missing.statusCode).toBe(400);
    expect(await missing.body.text()).toContain('Every order needs productId: choose the column that feeds it, or give a constant.');
    const badName = await form({ ...guesses, 'col-9': 'productId', name: 'my mapping!' });
    expect(badName.statusCode).toBe(400);
    expect(await badName.body.text()).toContain('Mapping profile mapping &quot;my mapping!&quot; is not valid: name: use letters, digits, - and _');
    const builtIn = await form({ ...guesses, 'col-9': 'productId', name: 'Shopify' });
    expect(await builtIn.body.text()).toContain('Shopify is the name of a built-in profile: choose another name for this mapping.');
  });

  it('reads the sheet with the chosen columns, and takes corrections only of cells it shows', async () => {
    const done = await form({ ...guesses, 'col-9': 'productId' });
    expect(done.statusCode).toBe(303);
    await done.body.text();
    const page = await (await request(`${web.app.url}${uploadPath}`, { headers: { cookie: session.cookie } })).body.text();
    expect(page).toContain('read as a sheet mapped in the web app');
    expect(page).toContain('<strong data-count="valid">1</strong>');

    const correct = (body: unknown, csrf = session.csrf) =>
      request(`${web.app.url}${uploadPath}/cells`, { method: 'POST', body: JSON.stringify(body), headers: { cookie: session.cookie, origin: web.app.url, 'content-type': 'application/json', 'x-csrf-token': csrf } });
    expect((await correct({ row: 99, col: 0, value: 'x' })).statusCode).toBe(400);
    expect((await correct({ row: 2, col: 14, value: 'x' })).statusCode).toBe(400);
    expect((await correct({ row: 2, col: 8, value: 'x' }, 'not-the-token')).statusCode).toBe(403);
    const bad = await correct({ row: 2, col: 8, value: '555' });
    expect(bad.statusCode).toBe(200);
    expect(await bad.body.json()).toMatchObject({ status: 'invalid', issues: [expect.objectContaining({ row: 2, column: 'Tel', severity: 'error' })] });
  });

  it('saves a named mapping for the team in the ledger, and the audit trail says who saved it', async () => {
    const done = await form({ ...guesses, 'col-9': 'productId', name: 'cx-shop' });
    expect(done.statusCode).toBe(303);
    await done.body.text();
    const ledger = await openLedger(web.ledgerPath);
    try {
      const [saved] = await ledger.mappings.list();
      const [entry] = (await ledger.audit.list()).filter((e) => e.action === 'mapping_save');
      expect(saved?.name).toBe('cx-shop');
      expect(entry).toMatchObject({ actor: saved!.savedBy, via: 'web', detail: 'cx-shop', fileName: 'cx.csv' });
    } finally {
      await ledger.close();
    }
  });

  it('says what to do in the page about a column the mapping leaves unread, and changes the mapping there', async () => {
    const sheet = SHEET.split('\n').map((line, i) => `${line},${i === 0 ? 'Gift Note' : 'Leave at the door'}`).join('\n');
    const response = await request(`${web.app.url}/upload`, { method: 'POST', body: uploadForm({ csrf: session.csrf, fileName: 'note.csv', content: sheet }), headers: { cookie: session.cookie, origin: web.app.url } });
    const uploadPath = response.headers.location as string;
    await response.body.text();
    const post = (fields: Record<string, string>) =>
      request(`${web.app.url}${uploadPath}/mapping`, {
        method: 'POST',
        body: new URLSearchParams({ _csrf: session.csrf, ...fields }).toString(),
        headers: { cookie: session.cookie, origin: web.app.url, 'content-type': 'application/x-www-form-urlencoded' },
      });
    const done = await post({ ...guesses, 'col-9': 'productId' });
    expect(done.statusCode).toBe(303);
    await done.body.text();
    const page = await (await request(`${web.app.url}${uploadPath}`, { headers: { cookie: session.cookie } })).body.text();
    expect(page).toContain('1 column is not read by the sheet mapped in the web app profile: &quot;Gift Note&quot; (O). If it holds order data, choose its field with &quot;Change which column feeds each field&quot; on this page.');
    expect(page).not.toContain('Add a rule to the profile');
    expect(page).toMatch(new RegExp(`<a href="${uploadPath}\\?columns=choose" data-change-mapping>Change which column feeds each field</a>`));
    const step = await (await request(`${web.app.url}${uploadPath}?columns=choose`, { headers: { cookie: session.cookie } })).body.text();
    expect(step).toContain('The sheet was read as mapped in this page: its choices are shown.');
    expect(step).toMatch(/<select id="col-9" name="col-9" data-field-choice>.*<option value="productId" selected>/s);
    expect(step.match(/<select id="col-14" name="col-14" data-field-choice>(.*?)<\/select>/s)?.[1]).not.toContain(' selected');
    const again = await post({ ...guesses, 'col-9': 'productId', 'col-14': 'addressLine2' });
    expect(again.statusCode).toBe(303);
    await again.body.text();
    const fixed = await (await request(`${web.app.url}${uploadPath}`, { headers: { cookie: session.cookie } })).body.text();
    expect(fixed).not.toContain('is not read by');
  });

  it('is not offered for a sheet in template form that only lacks a column: the verdict says what to add', async () => {
    const sheet = 'customerOrderId,orderDate,sourceOfSale,fullName,addressLine1,city,provinceOrState,postalOrZipCode,countryCode,productId,customerLineItemId,name,quantity,unitPrice,salesTax\nT-1,2026-11-18,OtherMarketplace,Ann Lee,1 Main St,Springfield,IL,62704,US,PRD-1001,1,Mug,1,5.00,0\n';
    const response = await request(`${web.app.url}/upload`, { method: 'POST', body: uploadForm({ csrf: session.csrf, fileName: 'no-phone.csv', content: sheet }), headers: { cookie: session.cookie, origin: web.app.url } });
    const location = response.headers.location as string;
    await response.body.text();
    const page = await (await request(`${web.app.url}${location}`, { headers: { cookie: session.cookie } })).body.text();
    expect(page).not.toContain('which column is which?');
    expect(page).toContain('The sheet has no phone column');
  });
});
