/**
 * The company login in a real Chromium, through the web app, against a real OpenID provider
 * (test/support/oidc-provider.ts): a first login makes a viewer; a verified e-mail opens the account
 * that has it, whatever its name; a group mapped to operator makes an
 * operator; a tampered `state` and a replayed code are refused; passwords still work beside it; an
 * issuer that cannot be reached leaves passwords working and the login page says why.
 */
import { createServer } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLedger } from '../../src/ledger/index.js';
import { launchChromium, logInThroughPage, skipWithoutChromium, type Browser, type Page } from '../support/chromium.js';
import { startOidcProvider, type TestOidcProvider } from '../support/oidc-provider.js';
import { startTestApp, type TestApp } from '../web/support.js';

const ADMIN = { name: 'ada', role: 'admin' as const, password: 'admin password 1' };

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe.skipIf(skipWithoutChromium)('the company login in a browser', () => {
  let provider: TestOidcProvider;
  let web: TestApp;
  let browser: Browser;
  const newPage = async () => (await browser.newContext()).newPage();

  /** At the provider's pages: any password, then consent. Stops where the provider sends the browser back. */
  const signInAtProvider = async (page: Page, who: string) => {
    await page.locator('input[name="login"]').fill(who);
    await page.locator('input[name="password"]').fill('any password');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
  };
  const roleOf = async (name: string) => {
    const ledger = await openLedger(web.ledgerPath);
    try {
      return (await ledger.users.get(name))?.role ?? null;
    } finally {
      await ledger.close();
    }
  };

  beforeAll(async () => {
    const port = await freePort();
    provider = await startOidcProvider({
      redirectUris: [`http://127.0.0.1:${port}/login/oidc/callback`],
      people: { maria: { email: 'Maria.Rossi@Example.com' }, mia: { email: 'mia@example.com' }, otto: { email: 'Otto@Example.com', groups: ['staff', 'warehouse-leads'] }, eve: { email: 'eve@example.com', emailVerified: false } },
    });
    web = await startTestApp({
      port,
      accounts: [ADMIN],
      oidc: { issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret, defaultRole: 'viewer', isOnly: false, groupRoles: { 'warehouse-leads': 'operator', staff: 'viewer' } },
    });
    const ledger = await openLedger(web.ledgerPath);
    await ledger.users.add({ name: 'mrossi', role: 'operator', passwordHash: '!company-login', email: 'maria.rossi@example.com' }).finally(() => ledger.close());
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await web?.close();
    await provider?.close();
  });

  it('makes a viewer at a first company login, logged in and recorded in the audit trail', async () => {
    const page = await newPage();
    await page.goto(`${web.app.url}/history`);
    await page.getByRole('link', { name: 'Sign in with your company account' }).click();
    await signInAtProvider(page, 'mia');
    await page.waitForURL(`${web.app.url}/history`);
    await expect.poll(() => page.getByText('mia@example.com').count()).toBeGreaterThan(0);
    expect(await roleOf('mia@example.com')).toBe('viewer');
    const ledger = await openLedger(web.ledgerPath);
    const trail = await ledger.audit.list({ limit: 20 }).finally(() => ledger.close());
    expect(JSON.stringify(trail)).toContain('login_sso');
    await page.context().close();
  }, 90_000);

  it('opens the account whose e-mail is the verified one, though the account has another name', async () => {
    const page = await newPage();
    await page.goto(`${web.app.url}/history`);
    await page.getByRole('link', { name: 'Sign in with your company account' }).click();
    await signInAtProvider(page, 'maria');
    await page.waitForURL(`${web.app.url}/history`);
    await expect.poll(() => page.getByText('mrossi').count()).toBeGreaterThan(0);
    expect(await roleOf('mrossi')).toBe('operator');
    expect(await roleOf('maria.rossi@example.com')).toBeNull();
    await page.context().close();
  }, 90_000);

  it('gives the operator role to a person whose group maps to it', async () => {
    const page = await newPage();
    await page.goto(`${web.app.url}/login`);
    await page.getByRole('link', { name: 'Sign in with your company account' }).click();
    await signInAtProvider(page, 'otto');
    await page.waitForURL((url) => !url.pathname.startsWith('/login'));
    expect(await roleOf('otto@example.com')).toBe('operator');
    await page.context().close();
  }, 90_000);

  /**
   * Starts a company login as another system would (the pending login's cookie kept here, not in the
   * browser), signs in at the provider in Chromium, and keeps the code the provider sends back: the
   * browser's own visit to the callback has no pending login, so it uses nothing.
   */
  const startAndSignIn = async (who: string): Promise<{ callback: URL; cookie: string }> => {
    const started = await request(`${web.app.url}/login/oidc`);
    expect(started.statusCode).toBe(303);
    await started.body.dump();
    const cookie = [started.headers['set-cookie']].flat()[0]!.split(';')[0]!;
    const page = await newPage();
    const back = page.waitForRequest((req) => new URL(req.url()).pathname === '/login/oidc/callback', { timeout: 30_000 });
    await page.goto(String(started.headers.location));
    await signInAtProvider(page, who);
    const callback = new URL((await back).url());
    await page.context().close();
    return { callback, cookie };
  };

  it('refuses a callback whose state was tampered with, and the pending login is then used up', async () => {
    const { callback, cookie } = await startAndSignIn('mia');
    const tampered = new URL(callback);
    tampered.searchParams.set('state', 'not-the-state');
    const refused = await request(tampered, { headers: { cookie } });
    expect(refused.statusCode).toBe(401);
    expect(await refused.body.text()).toMatch(/could not be checked/);
    const again = await request(callback, { headers: { cookie } });
    expect(again.statusCode).toBe(400);
    await again.body.dump();
  }, 90_000);

  it('refuses a code used a second time', async () => {
    const first = await startAndSignIn('mia');
    const used = await request(first.callback, { headers: { cookie: first.cookie } });
    expect(used.statusCode).toBe(200);
    await used.body.dump();
    // A new login, answered with the first one's code under the new login's state.
    const second = await startAndSignIn('mia');
    const replayed = new URL(first.callback);
    replayed.searchParams.set('state', second.callback.searchParams.get('state')!);
    const refused = await request(replayed, { headers: { cookie: second.cookie } });
    expect(refused.statusCode).toBe(401);
    expect(await refused.body.text()).toMatch(/invalid_grant/);
  }, 90_000);

  it('refuses a person whose e-mail the provider has not verified', async () => {
    const page = await newPage();
    await page.goto(`${web.app.url}/login`);
    await page.getByRole('link', { name: 'Sign in with your company account' }).click();
    await signInAtProvider(page, 'eve');
    await expect.poll(() => page.getByText(/not verified/).count(), { timeout: 15_000 }).toBeGreaterThan(0);
    expect(await roleOf('eve@example.com')).toBeNull();
    await page.context().close();
  }, 90_000);

  it('ends a company login\'s session at once when its account is disabled', async () => {
    const page = await newPage();
    await page.goto(`${web.app.url}/login`);
    await page.getByRole('link', { name: 'Sign in with your company account' }).click();
    await signInAtProvider(page, 'mia');
    await page.waitForURL((url) => !url.pathname.startsWith('/login'));
    const ledger = await openLedger(web.ledgerPath);
    await ledger.users.update('mia@example.com', { isDisabled: true }).finally(() => ledger.close());
    await page.goto(`${web.app.url}/history`);
    expect(new URL(page.url()).pathname).toBe('/login');
    await page.context().close();
  }, 90_000);

  it('keeps local passwords working beside the company login', async () => {
    const page = await newPage();
    await logInThroughPage(page, web.app.url, ADMIN.name, ADMIN.password);
    expect(new URL(page.url()).pathname).not.toMatch(/^\/login/);
    await page.context().close();
  }, 60_000);
});

describe.skipIf(skipWithoutChromium)('an issuer that cannot be reached', () => {
  let web: TestApp;
  let browser: Browser;
  beforeAll(async () => {
    const closed = await freePort();
    web = await startTestApp({ accounts: [ADMIN], oidc: { issuer: `http://127.0.0.1:${closed}`, clientId: 'c', clientSecret: 's', defaultRole: 'viewer', isOnly: false, groupRoles: {} } });
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await web?.close();
  });

  it('leaves local logins working and says why on the login page', async () => {
    const page = await (await browser.newContext()).newPage();
    await expect
      .poll(async () => {
        await page.goto(`${web.app.url}/login`);
        return page.getByText(/company login unavailable:/).count();
      }, { timeout: 15_000 })
      .toBeGreaterThan(0);
    await logInThroughPage(page, web.app.url, ADMIN.name, ADMIN.password);
    expect(new URL(page.url()).pathname).not.toMatch(/^\/login/);
  }, 60_000);
});

describe('--oidc-only', () => {
  let web: TestApp;
  beforeAll(async () => {
    web = await startTestApp({ accounts: [ADMIN], oidc: { issuer: `http://127.0.0.1:${await freePort()}`, clientId: 'c', clientSecret: 's', defaultRole: 'none', isOnly: true, groupRoles: {} } });
  }, 60_000);
  afterAll(async () => {
    await web?.close();
  });

  it('offers only the company login, and refuses a password login', async () => {
    const page = await request(`${web.app.url}/login`);
    const text = await page.body.text();
    expect(text).toContain('Sign in with your company account');
    expect(text).not.toContain('name="password"');
    const refused = await request(`${web.app.url}/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ username: ADMIN.name, password: ADMIN.password }).toString() });
    expect(refused.statusCode).toBe(403);
    expect(refused.headers['set-cookie']).toBeUndefined();
    await refused.body.dump();
  });
});
