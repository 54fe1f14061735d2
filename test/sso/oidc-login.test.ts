/**
 * The company login's client against a real OpenID provider (test/support/oidc-provider.ts) in a real
 * Chromium: a person signs in at the provider and the callback's claims are verified; a tampered
 * `state` and a code used twice are refused; an issuer that cannot be reached says why and is tried
 * again later.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { createOidcLogin, type OidcLogin, type PendingOidcLogin } from '../../src/sso/oidc-login.js';
import { checkIssuerUrl } from '../../src/sso/sso-settings.js';
import { launchChromium, skipWithoutChromium, type Browser } from '../support/chromium.js';
import { startOidcProvider, type TestOidcProvider } from '../support/oidc-provider.js';
import { recordingWarnings } from '../support/recording-logger.js';

const REDIRECT_URI = 'http://127.0.0.1:9/login/oidc/callback';

describe.skipIf(skipWithoutChromium)('the company login against a real OpenID provider', () => {
  let provider: TestOidcProvider;
  let browser: Browser;
  let login: OidcLogin;

  beforeAll(async () => {
    provider = await startOidcProvider({ redirectUris: [REDIRECT_URI], people: { mia: { email: 'Mia@Example.com', groups: ['warehouse-leads'] } } });
    browser = await launchChromium();
    login = createOidcLogin({ issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret, logger: silentLogger });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await provider?.close();
  });

  /** Signs in at the provider as `who` and gives back the callback address it sends the browser to. */
  const signIn = async (who: string): Promise<{ callback: URL; pending: PendingOidcLogin }> => {
    const started = await login.start(REDIRECT_URI);
    if (!started.ok) throw new Error(started.reason);
    const page = await (await browser.newContext()).newPage();
    let callback: URL | undefined;
    await page.route(`${REDIRECT_URI}**`, async (route) => {
      callback = new URL(route.request().url());
      await route.fulfill({ status: 200, body: 'back' });
    });
    await page.goto(started.url);
    await page.locator('input[name="login"]').fill(who);
    await page.locator('input[name="password"]').fill('any password');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect.poll(() => callback, { timeout: 15_000 }).toBeDefined();
    await page.context().close();
    return { callback: callback!, pending: started.pending };
  };

  it('returns the verified e-mail and groups of the person who signed in', async () => {
    const { callback, pending } = await signIn('mia');
    const claims = await login.finish(callback, pending);
    expect(claims).toMatchObject({ sub: 'mia', email: 'Mia@Example.com', email_verified: true, groups: ['warehouse-leads'] });
  }, 60_000);

  it('refuses a callback whose state was tampered with', async () => {
    const { callback, pending } = await signIn('mia');
    callback.searchParams.set('state', `${pending.state}x`);
    await expect(login.finish(callback, pending)).rejects.toMatchObject({ cause: { message: expect.stringMatching(/"state"/) } });
  }, 60_000);

  it('refuses a code used a second time', async () => {
    const { callback, pending } = await signIn('mia');
    await login.finish(callback, pending);
    await expect(login.finish(callback, pending)).rejects.toMatchObject({ error: 'invalid_grant' });
  }, 60_000);

  it('refuses a callback checked with another login\'s nonce and PKCE verifier', async () => {
    const first = await signIn('mia');
    const other = await login.start(REDIRECT_URI);
    if (!other.ok) throw new Error(other.reason);
    await expect(login.finish(first.callback, { ...other.pending, state: first.pending.state })).rejects.toThrow();
  }, 60_000);
});

describe('an issuer that cannot be reached', () => {
  it('says why, logs it once, and tries discovery again after the retry time', async () => {
    const { warnings, logger } = recordingWarnings();
    let now = new Date('2030-01-01T00:00:00Z');
    const login = createOidcLogin({ issuer: 'http://127.0.0.1:9', clientId: 'c', clientSecret: 's', logger, clock: () => now, retryMs: 60_000 });
    const first = await login.start(REDIRECT_URI);
    expect(first.ok).toBe(false);
    expect(login.unavailableReason()).toMatch(/127\.0\.0\.1:9/);
    await login.start(REDIRECT_URI);
    now = new Date('2030-01-01T00:02:00Z');
    await login.start(REDIRECT_URI);
    expect(warnings.map((w) => w.msg)).toEqual(['company login unavailable']);
  });

  it('takes http:// only for an issuer on this computer', () => {
    expect(checkIssuerUrl('http://127.0.0.1:4000').host).toBe('127.0.0.1:4000');
    expect(checkIssuerUrl('https://login.example.com').host).toBe('login.example.com');
    expect(() => checkIssuerUrl('http://login.example.com')).toThrow(/https/);
  });
});
