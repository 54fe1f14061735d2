/**
 * End to end in a real headless Chromium: an operator uploads the sample with mistakes, reads the
 * errors, submits the valid orders, downloads the result, uploads the same file again and is told
 * it was already submitted (nothing is sent twice), then looks at the history and a reconciliation.
 * Screenshots of every step go to test-output/screenshots/ for review.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canRunChromium, CHROMIUM, launchChromium, REPO_ROOT, SAMPLES, startTestApp, type Chromium, type TestApp } from './support.js';

if (!canRunChromium) {
  console.warn(`Skipping the browser test: ${CHROMIUM} is missing (install it with: apt-get install -y chromium). In CI it runs.`);
}
const SHOTS = join(REPO_ROOT, 'test-output', 'screenshots');

type Page = import('playwright-core').Page;

describe.skipIf(!canRunChromium)('the web app in a browser', () => {
  let web: TestApp;
  let chromium: Chromium;
  let page: Page;

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    web = await startTestApp();
    chromium = await launchChromium();
    page = chromium.page;
  });

  afterAll(async () => {
    await chromium?.close();
    await web?.close();
  });

  const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

  it('takes the sample with mistakes, shows its errors, submits the valid orders once and hands back the result', async () => {
    await page.goto(`${web.app.url}/`);
    expect(await page.getByLabel(/Order sheet/).isVisible()).toBe(true);
    // Keyboard first: the first Tab lands on the skip link, which takes focus to the main content.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => (globalThis as unknown as { document: { activeElement: { textContent: string } } }).document.activeElement.textContent)).toBe('Skip to main content');
    await shot('01-upload');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => (globalThis as unknown as { document: { activeElement: { id: string } } }).document.activeElement.id)).toBe('main');

    await page.getByLabel(/Order sheet/).setInputFiles(join(SAMPLES, 'orders-with-mistakes.csv'));
    await Promise.all([page.waitForURL(/\/uploads\/[A-Za-z0-9_-]{16}$/), page.getByRole('button', { name: 'Check the sheet' }).click()]);
    await shot('02-verdict');

    // The errors are on the page, at their cells: row 3's email.
    const row3 = page.locator('tr', { has: page.locator('th[scope="row"]', { hasText: /^3$/ }) });
    const emailCell = row3.locator('td.cell-error', { hasText: 'samuel.reed@example' });
    expect(await emailCell.innerText()).toContain('is not an email address');
    // The API's checks run at check time too: SO-20005's product is out of stock everywhere.
    expect(await page.locator('[data-count="valid"]').innerText()).toBe('1');
    expect(await page.locator('[data-count="invalid"]').innerText()).toBe('9');
    const outOfStockRow = page.locator('tr', { has: page.locator('th[scope="row"]', { hasText: /^\d+$/ }), hasText: 'SO-20005' });
    expect(await outOfStockRow.first().innerText()).toMatch(/out of stock in every fulfillment center/);

    // Filtering: invalid rows only, then by text.
    await page.getByLabel('Invalid').check();
    expect(await page.locator('tbody tr:not([hidden])').count()).toBe(10);
    await page.getByLabel('Find').fill('SO-20009');
    await page.locator('[data-filter-count]', { hasText: 'Showing 1 row of 11.' }).waitFor();
    expect(await page.locator('tbody tr:not([hidden])').count()).toBe(1);
    await shot('03-verdict-filtered');
    await page.getByLabel('All rows').check();
    await page.getByLabel('Find').fill('');

    // Submit the valid orders and follow the job to its end (the sandbox slowed down, so there is progress to see).
    await setSandboxLatency(web, 300);
    await Promise.all([page.waitForURL(/\/jobs\//), page.getByRole('button', { name: 'Submit 1 valid order' }).click()]);
    await page.locator('[data-job][data-state="running"]').waitFor();
    expect(await page.locator('[data-job-message]').innerText()).toMatch(/orders? with the API|done/);
    await shot('04a-job-running');
    await setSandboxLatency(web, 0);
    await page.locator('[data-job][data-state="done"]').waitFor({ timeout: 30_000 });
    await shot('04-job-done');
    expect(await page.locator('[data-progress-count="accepted"]').innerText()).toBe('1');
    expect(await page.locator('[data-outcome]').innerText()).toMatch(/1 accepted/);

    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('[data-download="job-result"]').click()]);
    const saved = join(web.dir, download.suggestedFilename());
    await download.saveAs(saved);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(saved);
    const results = workbook.getWorksheet('Results')!;
    const header = (results.getRow(1).values as unknown[]).map((v) => String(v ?? ''));
    const statusCol = header.indexOf('status');
    const idCol = header.indexOf('customerOrderId');
    const statusOf = (id: string) => {
      for (let r = 2; r <= results.rowCount; r++) if (String(results.getRow(r).getCell(idCol).value) === id) return String(results.getRow(r).getCell(statusCol).value);
      return undefined;
    };
    expect(statusOf('SO-20001')).toBe('accepted');
    expect(statusOf('SO-20002')).toBe('invalid');
    expect(workbook.getWorksheet('Fix')).toBeDefined();

    const before = await sandboxPosts(web);

    // The same file again: the page says what was already submitted, and a second submission sends nothing twice.
    await page.goto(`${web.app.url}/`);
    await page.getByLabel(/Order sheet/).setInputFiles(join(SAMPLES, 'orders-with-mistakes.csv'));
    await Promise.all([page.waitForURL(/\/uploads\//), page.getByRole('button', { name: 'Check the sheet' }).click()]);
    const notice = page.locator('[data-already-submitted]');
    expect(await notice.innerText()).toMatch(/Already submitted:.*SO-20001/s);
    await shot('05-already-submitted');
    // Its one valid order was sent: there is nothing new to submit, and nothing is sent again.
    expect(await page.locator('#submit-heading + *, [aria-labelledby="submit-heading"]').first().innerText()).toMatch(/Nothing new to submit/);
    expect(await page.getByRole('button', { name: /^Submit/ }).count()).toBe(0);
    expect(await sandboxPosts(web)).toBe(before);
    await shot('06-nothing-new');

    await page.getByRole('link', { name: 'History' }).first().click();
    expect(await page.locator('table.history-table tbody tr').count()).toBe(1);
    await shot('07-history');

    // Let the sandbox's orders ship, then reconcile.
    await page.getByRole('link', { name: 'Reconciliation' }).first().click();
    await page.getByLabel('Move the sandbox clock on by').selectOption('96');
    await Promise.all([page.waitForURL(/\/reconcile$/), page.getByRole('button', { name: 'Move the clock' }).click()]);
    await Promise.all([page.waitForURL(/\/reconcile$/), page.getByRole('button', { name: 'Reconcile now' }).click()]);
    await page.locator('svg.chart').waitFor();
    const counted = await page.locator('[data-rollup]').allInnerTexts();
    expect(counted.map(Number).reduce((a, b) => a + b, 0)).toBe(1);
    // Not only the roll-up: the order itself, its status and its tracking numbers linked to their pages.
    const order = page.locator('[data-reconcile-orders] tbody tr');
    expect(await order.count()).toBe(1);
    expect(await order.locator('th').innerText()).toBe('SO-20001');
    const links = order.locator('a[href^="http"]');
    expect(await links.count()).toBe(await order.locator('td:nth-child(4) li').count());
    await shot('08-reconciliation');
    // Filtered by a status no order has: the table says so.
    await page.locator('#order-status').selectOption('not_found');
    await Promise.all([page.waitForURL(/status=not_found/), page.getByRole('button', { name: 'Filter' }).click()]);
    expect(await page.locator('[data-reconcile-orders]').count()).toBe(0);
  });
});

async function setSandboxLatency(web: TestApp, latencyMs: number): Promise<void> {
  const response = await request(`${web.app.sandboxUrl}/sandbox/faults`, {
    method: 'POST',
    body: JSON.stringify(latencyMs ? { latencyMs } : {}),
    headers: { 'content-type': 'application/json' },
  });
  await response.body.text();
}

async function sandboxPosts(web: TestApp): Promise<number> {
  const response = await request(`${web.app.sandboxUrl}/sandbox/stats`);
  return ((await response.body.json()) as { postsReceived: number }).postsReceived;
}
