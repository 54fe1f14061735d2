/** Real headless Chromium for the browser tests (playwright-core, Debian's /usr/bin/chromium); in CI it is never skipped. */
import { existsSync } from 'node:fs';

export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);
/** Skipped only outside CI, where Chromium may be missing; in CI a missing Chromium fails the run. */
export const skipWithoutChromium = !hasChromium && !process.env.CI;
if (skipWithoutChromium) console.warn(`Skipping a browser test: ${CHROMIUM} is missing (install it with: apt-get install -y chromium). In CI it runs.`);

export type Browser = import('playwright-core').Browser;
export type BrowserContext = import('playwright-core').BrowserContext;
export type Page = import('playwright-core').Page;

export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** Logs in through the form, as a person would. */
export async function logInThroughPage(page: Page, url: string, name: string, password: string): Promise<void> {
  await page.goto(`${url}/`);
  await page.waitForURL(/\/login/);
  await page.getByLabel('Account name').fill(name);
  await page.getByLabel('Password').fill(password);
  await Promise.all([page.waitForURL((u) => !u.pathname.startsWith('/login')), page.getByRole('button', { name: 'Log in' }).click()]);
}
