/**
 * Accounts in a real Chromium: each role logs in through the form; a viewer sees no Submit button and
 * is refused (403) when posting one anyway; an operator cancels a submission mid-way; an admin disables
 * the viewer, whose next page is the login page; a session idle past its time ends (injected clock).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, logInThroughPage, skipWithoutChromium, type Browser, type Page } from '../support/chromium.js';
import { writeOrdersCsv } from '../e2e/make-sheet.js';
import { REPO_ROOT, SAMPLES, SAMPLES_AS_OF, startTestApp, type TestApp } from './support.js';

const SHOTS = join(REPO_ROOT, 'test-output', 'screenshots');
const HOUR = 3_600_000;
const ACCOUNTS = [
  { name: 'vera', role: 'viewer' as const, password: 'viewer password 1' },
  { name: 'otto', role: 'operator' as const, password: 'operator password 1' },
  { name: 'ada', role: 'admin' as const, password: 'admin password 1' },
];

describe.skipIf(skipWithoutChromium)('accounts in a browser', () => {
  let web: TestApp;
  let browser: Browser;
  let now = new Date('2031-02-03T09:00:00Z');
  const pageOf = async () => (await browser.newContext({ viewport: { width: 1366, height: 900 }, acceptDownloads: true })).newPage();
  const shot = (page: Page, name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  const upload = async (page: Page, file: string) => {
    await page.goto(`${web.app.url}/`);
    await page.getByLabel(/Order sheet/).setInputFiles(file);
    await Promise.all([page.waitForURL(/\/uploads\/[\w-]{16}$/), page.getByRole('button', { name: 'Check the sheet' }).click()]);
  };

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    web = await startTestApp({ accounts: ACCOUNTS, clock: () => new Date(now) });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await web?.close();
  });

  it('shows a viewer no Submit button and refuses the viewer a submission posted anyway', async () => {
    const page = await pageOf();
    await logInThroughPage(page, web.app.url, 'vera', 'viewer password 1');
    expect(await page.locator('.visitor').innerText()).toMatch(/Signed in as vera \(viewer\)/);
    expect(await page.getByRole('link', { name: 'Accounts' }).count()).toBe(0);
    await upload(page, join(SAMPLES, 'orders-valid.csv'));
    expect(await page.locator('[data-no-submit]').innerText()).toMatch(/an operator submits them/);
    expect(await page.getByRole('button', { name: /^Submit/ }).count()).toBe(0);
    await shot(page, 'accounts-01-viewer-verdict');
    // The form the page does not show, posted from the page itself with its own token.
    const status = await page.evaluate(async () => {
      const doc = (globalThis as unknown as { document: { querySelector(s: string): { getAttribute(n: string): string } | null; location: { pathname: string } } }).document;
      const csrf = doc.querySelector('meta[name="csrf-token"]')!.getAttribute('content');
      const response = await fetch(`${doc.location.pathname}/submit`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `_csrf=${csrf}` });
      return response.status;
    });
    expect(status).toBe(403);
  });

  it('lets an operator cancel a submission mid-way: nothing more is sent, the rest is marked not sent', async () => {
    const page = await pageOf();
    await logInThroughPage(page, web.app.url, 'otto', 'operator password 1');
    const sheet = join(web.dir, 'forty.csv');
    writeOrdersCsv(sheet, { orders: 40, prefix: 'CANCEL', orderDate: new Date(SAMPLES_AS_OF.getTime() - HOUR) });
    await upload(page, sheet);
    await setSandboxLatency(web, 400);
    await Promise.all([page.waitForURL(/\/jobs\//), page.getByRole('button', { name: 'Submit 40 valid orders' }).click()]);
    await page.locator('[data-job-done]', { hasText: /^[1-9]/ }).waitFor({ timeout: 30_000 });
    await shot(page, 'accounts-02-operator-running');
    await Promise.all([page.waitForURL(/\/jobs\/[\w-]{16}$/), page.getByRole('button', { name: 'Cancel the submission' }).click()]);
    const postsAtCancel = await sandboxPosts(web);
    await page.locator('[data-job][data-state="cancelled"]').waitFor({ timeout: 30_000 });
    await setSandboxLatency(web, 0);
    await shot(page, 'accounts-03-operator-cancelled');
    expect(await page.locator('[data-job-message]').innerText()).toMatch(/^Cancelled by otto: \d+ accepted, \d+ not sent\.$/);
    const [, accepted, notSent] = /(\d+) accepted, (\d+) not sent/.exec(await page.locator('[data-outcome]').innerText())!.map(Number);
    expect(accepted! + notSent!).toBe(40);
    expect(notSent).toBeGreaterThan(0);
    // Only the POSTs in flight when it was cancelled went out after it, and every one sent is accepted.
    const posts = await sandboxPosts(web);
    expect(posts).toBe(accepted);
    expect(posts - postsAtCancel).toBeLessThanOrEqual(4);
  });

  it("lets an admin disable the viewer, who is sent to the login page at the next click", async () => {
    const viewer = await pageOf();
    await logInThroughPage(viewer, web.app.url, 'vera', 'viewer password 1');
    const admin = await pageOf();
    await logInThroughPage(admin, web.app.url, 'ada', 'admin password 1');
    await admin.getByRole('link', { name: 'Accounts' }).click();
    const row = admin.locator('tr', { has: admin.locator('th', { hasText: /^vera$/ }) });
    await Promise.all([admin.waitForURL(/\/users/), row.getByRole('button', { name: 'Disable' }).click()]);
    expect(await admin.locator('[role="status"]').innerText()).toMatch(/Disabled vera: their sessions have ended/);
    await shot(admin, 'accounts-04-admin-disabled-viewer');
    await viewer.getByRole('link', { name: 'History' }).click();
    await viewer.waitForURL(/\/login\?next=%2Fhistory/);
    await viewer.getByLabel('Account name').fill('vera');
    await viewer.getByLabel('Password').fill('viewer password 1');
    await viewer.getByRole('button', { name: 'Log in' }).click();
    expect(await viewer.locator('[role="alert"]').innerText()).toMatch(/The account name or the password is wrong/);
  });

  it('ends a session left idle past 8 hours: the next click goes to the login page', async () => {
    const page = await pageOf();
    await logInThroughPage(page, web.app.url, 'otto', 'operator password 1');
    now = new Date(now.getTime() + 8 * HOUR + 2 * 60_000);
    await page.getByRole('link', { name: 'Reconciliation' }).click();
    await page.waitForURL(/\/login\?next=%2Freconcile/);
    await shot(page, 'accounts-05-expired');
  });
});

async function setSandboxLatency(web: TestApp, latencyMs: number): Promise<void> {
  const response = await request(`${web.app.sandboxUrl}/sandbox/faults`, { method: 'POST', body: JSON.stringify(latencyMs ? { latencyMs } : {}), headers: { 'content-type': 'application/json' } });
  await response.body.text();
}

async function sandboxPosts(web: TestApp): Promise<number> {
  return ((await (await request(`${web.app.sandboxUrl}/sandbox/stats`)).body.json()) as { postsReceived: number }).postsReceived;
}
