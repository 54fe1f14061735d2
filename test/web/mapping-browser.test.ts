/**
 * In a real headless Chromium: a sheet whose columns no profile fits goes through the mapping step
 * (guesses preselected, what is missing shown), is saved for the team and recognised on the next
 * upload; a bad cell of a Shopify export is corrected in the page, checked again at once, and the
 * corrected order is submitted without another upload, the result workbook holding the new value.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canRunChromium, launchChromium, REPO_ROOT, startTestApp, type Chromium, type TestApp } from './support.js';
import { makeTempFolder } from '../support/temp-dir.js';

const SHOTS = join(REPO_ROOT, 'test-output', 'screenshots');
const SHOPIFY = join(REPO_ROOT, 'test', 'fixtures', 'marketplaces', 'shopify-orders.csv');

type Page = import('playwright-core').Page;

const CUSTOM = [
  'Order Number,Order Date,Recipient,Street,Town,Region,Post Code,Country,Tel,Article,Item Title,Qty,Price,Tax,Billing Name,Billing Phone',
  'CX-1,2026-11-18 10:00,Ann Lee,1 Main St,Springfield,IL,62704,United States,217-555-0134,PRD-1001,Mug,2,5.00,0.80,Bob Pay,217-555-0000',
  'CX-2,2026-11-18 11:00,Kim Park,8 Ocean Ave,San Diego,CA,92101,USA,619-555-0101,PRD-1002,Towel,1,9.00,0.70,Kim Park,619-555-0101',
].join('\n');

describe.skipIf(!canRunChromium)('mapping and correcting in a browser', () => {
  let web: TestApp;
  let chromium: Chromium;
  let page: Page;
  let dir: string;

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    web = await startTestApp();
    dir = makeTempFolder('mapping');
    chromium = await launchChromium();
    page = chromium.page;
  });

  afterAll(async () => {
    await chromium?.close();
    await web?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

  async function upload(file: string): Promise<void> {
    await page.goto(`${web.app.url}/`);
    await page.getByLabel(/Order sheet/).setInputFiles(file);
    await Promise.all([page.waitForURL(/\/uploads\/[A-Za-z0-9_-]{16}$/), page.getByRole('button', { name: 'Check the sheet' }).click()]);
  }

  it('asks which column is which, with the best guesses chosen and what is missing shown, saves it for the team and recognises it next time', async () => {
    const file = join(dir, 'acme.csv');
    writeFileSync(file, CUSTOM);
    await upload(file);
    await page.getByRole('heading', { name: /which column is which/ }).waitFor();
    await shot('mapping-01-step');
    expect(await page.getByLabel('Recipient').inputValue()).toBe('fullName');
    expect(await page.getByLabel('Tel').inputValue()).toBe('phone');
    // The buyer's columns are never offered for the recipient's fields.
    expect(await page.getByLabel('Billing Phone').inputValue()).toBe('');
    expect(await page.getByLabel('Billing Name').inputValue()).toBe('');
    expect(await page.locator('[data-missing]').innerText()).toBe('productId');

    await page.getByLabel('Article').selectOption('productId');
    await page.locator('[data-missing-box]').waitFor({ state: 'hidden' });
    await page.getByLabel(/^Name \(letters/).fill('acme');
    await Promise.all([page.waitForURL(/\/uploads\/[A-Za-z0-9_-]{16}$/), page.getByRole('button', { name: 'Read the sheet with these columns' }).click()]);
    await page.locator('[data-read-as]').waitFor();
    await shot('mapping-02-verdict');
    expect(await page.locator('[data-read-as]').innerText()).toContain('read as an acme export (mapping profile acme, chosen for this file)');
    expect(await page.locator('[data-count="valid"]').innerText()).toBe('2');

    // The next upload with these columns is read with the saved mapping at once, and says so.
    const again = join(dir, 'acme-2.csv');
    writeFileSync(again, CUSTOM.replace(/CX-/g, 'CY-'));
    await upload(again);
    expect(await page.locator('[data-read-as]').innerText()).toContain('read as an acme export (mapping profile acme, detected from its columns)');
    expect(await page.locator('[data-count="valid"]').innerText()).toBe('2');
  });

  it('maps a carrier column value by value, joins first and last names, sets a constant country, saves it, and the next upload uses it', async () => {
    const sheet = [
      'Order No,Placed,First Name,Last Name,Street,Town,State,Zip,Tel,SKU,Item Name,Qty,Price,Tax,Ship Method',
      'WS-1,2026-11-18 10:00,Ann,Lee,1 Main St,Springfield,IL,62704,217-555-0134,PRD-1001,Mug,2,5.00,0.80,Standard',
      'WS-2,2026-11-18 11:00,Kim,Park,8 Ocean Ave,San Diego,CA,92101,619-555-0101,PRD-1002,Towel,1,9.00,0.70,Express',
    ].join('\n');
    const file = join(dir, 'westshop.csv');
    writeFileSync(file, sheet);
    await upload(file);
    await page.getByRole('heading', { name: /which column is which/ }).waitFor();
    expect(await page.getByLabel('Ship Method').inputValue()).toBe('carrierId');
    expect(await page.locator('[data-missing]').innerText()).toBe('fullName, countryCode');
    // Each carrier value seen in the file, with the carrier ID it stands for.
    await page.getByLabel('Standard', { exact: true }).selectOption('CarrierXGround');
    await page.getByLabel('Express', { exact: true }).selectOption('CarrierXOvernight');
    await page.getByLabel('Joined columns, row 1: the field').selectOption('fullName');
    await page.getByLabel('Joined columns, row 1: column 1').selectOption({ label: 'First Name' });
    await page.getByLabel('Joined columns, row 1: column 2').selectOption({ label: 'Last Name' });
    await page.getByLabel('Constant, row 1: the field').selectOption('countryCode');
    await page.getByLabel('is, on every order,').first().fill('US');
    await page.locator('[data-missing-box]').waitFor({ state: 'hidden' });
    await page.getByLabel(/^Name \(letters/).fill('westshop');
    await shot('mapping-05-maps-joins-constants');
    await Promise.all([page.waitForURL(/\/uploads\/[A-Za-z0-9_-]{16}$/), page.getByRole('button', { name: 'Read the sheet with these columns' }).click()]);
    await page.locator('[data-read-as]').waitFor();
    expect(await page.locator('[data-read-as]').innerText()).toContain('read as a westshop export (mapping profile westshop, chosen for this file)');
    expect(await page.locator('[data-count="valid"]').innerText()).toBe('2');

    const again = join(dir, 'westshop-2.csv');
    writeFileSync(again, sheet.replace(/WS-/g, 'WT-'));
    await upload(again);
    expect(await page.locator('[data-read-as]').innerText()).toContain('read as a westshop export (mapping profile westshop, detected from its columns)');
    expect(await page.locator('[data-count="valid"]').innerText()).toBe('2');
    // The saved mapping, shown again to change, holds the value map, the join and the constant.
    await page.getByRole('link', { name: 'Change which column feeds each field' }).click();
    await page.getByRole('heading', { name: /which column is which/ }).waitFor();
    expect(await page.getByLabel('Express', { exact: true }).inputValue()).toBe('CarrierXOvernight');
    expect(await page.getByLabel('Joined columns, row 1: column 2').inputValue()).toBe('3');
    expect(await page.getByLabel('is, on every order,').first().inputValue()).toBe('US');
  });

  it('corrects a bad cell in the page, checks the order again at once and submits it without another upload', async () => {
    await upload(SHOPIFY);
    expect(await page.locator('[data-read-as]').innerText()).toContain('read as a Shopify orders export');
    expect(await page.locator('[data-count="valid"]').innerText()).toBe('3');
    const row5 = page.locator('tr', { has: page.locator('th[scope="row"]', { hasText: /^5$/ }) });
    await row5.getByRole('button', { name: 'Correct Shipping Zip of row 5' }).click();
    await row5.getByRole('textbox', { name: 'Correct Shipping Zip of row 5' }).fill('02145');
    await shot('mapping-03-correcting');
    await Promise.all([page.waitForEvent('load'), row5.getByRole('button', { name: 'Save' }).click()]);
    await page.locator('[data-count="valid"]', { hasText: '4' }).waitFor();
    const corrected = page.locator('tr', { has: page.locator('th[scope="row"]', { hasText: /^5$/ }) });
    expect(await corrected.getAttribute('data-status')).toBe('valid');
    // Without accounts, the person at this computer is the operating-system user running the app.
    expect(await corrected.locator('[data-edited]').innerText()).toMatch(new RegExp(`corrected by ${userInfo().username}, 20\\d\\d-`));
    await shot('mapping-04-corrected');

    await Promise.all([page.waitForURL(/\/jobs\//), page.getByRole('button', { name: 'Submit 4 valid orders' }).click()]);
    await page.locator('[data-job][data-state="done"]').waitFor({ timeout: 30_000 });
    expect(await page.locator('[data-progress-count="accepted"]').innerText()).toBe('4');
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('[data-download="job-result"]').click()]);
    const saved = join(dir, download.suggestedFilename());
    await download.saveAs(saved);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(saved);
    const results = workbook.getWorksheet('Results')!;
    const header = (results.getRow(1).values as unknown[]).map((v) => String(v ?? ''));
    expect(String(results.getRow(5).getCell(header.indexOf('Shipping Zip')).value)).toBe('02145');
    expect(String(results.getRow(5).getCell(header.indexOf('status')).value)).toBe('accepted');
  });
});
