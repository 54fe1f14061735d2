/**
 * A server others can reach never opens up: without accounts it refuses to start (also behind a
 * proxy, and without creating a ledger), and once its last account is removed every page says how
 * to add one instead of serving everyone as admin. Behind a proxy the forwarded host is checked, and
 * the last admin is kept unless the change is forced.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { changeAccount } from '../../src/accounts/manage.js';
import { openLedger } from '../../src/ledger/index.js';
import { silentLogger } from '../../src/log.js';
import { startWebApp, type WebAppOptions } from '../../src/web/server.js';
import { addAccounts, logIn, openSession, startTestApp, type TestApp } from './support.js';
import { makeTempFolder } from '../support/temp-dir.js';

const ALICE = { name: 'alice', role: 'admin' as const, password: 'admin password 1' };
const CLI = { name: 'root', via: 'cli' as const, address: null };

async function removeAll(ledgerPath: string): Promise<void> {
  const ledger = await openLedger(ledgerPath);
  try {
    for (const user of await ledger.users.list()) expect(await changeAccount(ledger, CLI, { kind: 'remove', name: user.name }, { force: true })).toMatchObject({ ok: true });
  } finally {
    await ledger.close();
  }
}

describe('a server others can reach, once its last account is gone', () => {
  let web: TestApp | undefined;
  afterEach(async () => {
    await web?.close();
    web = undefined;
  });

  it('answers every page with how to add an account, never as admin to everyone', async () => {
    let now = new Date('2031-01-01T08:00:00Z');
    web = await startTestApp({ host: '0.0.0.0', accounts: [ALICE], clock: () => new Date(now) });
    await removeAll(web.ledgerPath);
    now = new Date(now.getTime() + 6_000);
    for (const path of ['/history', '/', '/users', '/login']) {
      const page = await request(`${web.app.url}${path}`);
      expect(page.statusCode, path).toBe(503);
      expect(await page.body.text()).toContain('order-batch users add &lt;name&gt; --role admin');
    }
    const json = await request(`${web.app.url}/history`, { headers: { accept: 'application/json' } });
    expect(json.statusCode).toBe(503);
    expect(await json.body.json()).toMatchObject({ error: 'No accounts' });
    expect((await request(`${web.app.url}/static/app.css`)).statusCode).toBe(200);
  });

  it('requires logins again as soon as an account is added', async () => {
    let now = new Date('2031-01-01T08:00:00Z');
    web = await startTestApp({ host: '0.0.0.0', accounts: [ALICE], clock: () => new Date(now) });
    await removeAll(web.ledgerPath);
    now = new Date(now.getTime() + 6_000);
    expect((await request(`${web.app.url}/history`)).statusCode).toBe(503);
    await addAccounts(web.ledgerPath, [ALICE]);
    now = new Date(now.getTime() + 6_000);
    const page = await request(`${web.app.url}/history`);
    expect(page.statusCode).toBe(303);
    expect(page.headers.location).toBe('/login?next=%2Fhistory');
    await logIn(web.app.url, 'alice', ALICE.password);
  });

  it('on this computer only, serves the person at it again, as it did before the first account', async () => {
    let now = new Date('2031-01-01T08:00:00Z');
    web = await startTestApp({ accounts: [ALICE], clock: () => new Date(now) });
    expect((await request(`${web.app.url}/history`)).statusCode).toBe(303);
    await removeAll(web.ledgerPath);
    now = new Date(now.getTime() + 6_000);
    const session = await openSession(web.app.url);
    const page = await request(`${web.app.url}/history`, { headers: { cookie: session.cookie } });
    expect(page.statusCode).toBe(200);
    expect(await page.body.text()).toContain('Local use, no accounts: this computer only');
  });
});

describe('starting where others can reach the app', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const optionsIn = (overrides: Partial<WebAppOptions>): WebAppOptions => {
    const dir = makeTempFolder('web');
    dirs.push(dir);
    return {
      port: 0,
      useSandbox: false,
      connection: { auth: 'oauth' },
      ledgerPath: join(dir, '.order-batch', 'ledger.db'),
      workDir: join(dir, 'web'),
      context: { now: new Date(), timezone: 'UTC', sourcesOfSale: ['OtherMarketplace'] },
      concurrency: 1,
      maxAttempts: 1,
      lateAfterDays: 3,
      logger: silentLogger,
      ...overrides,
    };
  };

  it('refuses --host 0.0.0.0 without accounts and leaves no empty ledger behind', async () => {
    const options = optionsIn({ host: '0.0.0.0' });
    await expect(startWebApp(options)).rejects.toThrow(/needs accounts.*order-batch users add <name> --role admin/);
    expect(existsSync(options.ledgerPath)).toBe(false);
  });

  it('refuses --trust-proxy without accounts, as a host others can reach, even on a loopback address', async () => {
    const options = optionsIn({ trustProxy: { hops: 1 }, allowedHosts: ['orders.example.com'] });
    await expect(startWebApp(options)).rejects.toThrow(/serve --trust-proxy lets everyone the proxy serves reach the web app, so it needs accounts/);
    await addAccounts(options.ledgerPath, [ALICE]);
    const started = await startWebApp(options);
    await started.close();
    expect(started.hasAccounts).toBe(true);
  });

  it('refuses --trust-proxy without the public name to answer to', async () => {
    const options = optionsIn({ trustProxy: { hops: 1 } });
    await addAccounts(options.ledgerPath, [ALICE]);
    await expect(startWebApp(options)).rejects.toThrow(/--trust-proxy needs the public name.*--allowed-host/);
  });
});

describe('behind a proxy, the host it forwards', () => {
  it('must be one given with --allowed-host', async () => {
    const web = await startTestApp({ trustProxy: { hops: 1 }, allowedHosts: ['orders.example.com'], accounts: [ALICE] });
    try {
      const as = (host: string) => request(`${web.app.url}/history`, { headers: { 'x-forwarded-host': host, 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.7' } });
      const allowed = await as('orders.example.com');
      expect(allowed.statusCode).toBe(303);
      const rebound = await as('evil.example');
      expect(rebound.statusCode).toBe(403);
      expect(await rebound.body.text()).toContain('This address is not allowed');
    } finally {
      await web.close();
    }
  });
});

describe('the last admin', () => {
  it('is kept unless the change is forced, saying what that means', async () => {
    const dir = makeTempFolder('web');
    const ledger = await openLedger(join(dir, 'ledger.db'));
    try {
      await changeAccount(ledger, CLI, { kind: 'add', ...ALICE });
      await changeAccount(ledger, CLI, { kind: 'add', name: 'otto', role: 'operator', password: 'operator password 1' });
      for (const change of [{ kind: 'remove' }, { kind: 'disable' }, { kind: 'role', role: 'operator' }] as const) {
        const refused = await changeAccount(ledger, CLI, { ...change, name: 'alice' });
        expect(refused).toMatchObject({ ok: false, reason: 'last-admin' });
        expect(refused.message).toMatch(/alice is the last active admin.*order-batch users add <name> --role admin.*--force/);
      }
      await changeAccount(ledger, CLI, { kind: 'role', name: 'otto', role: 'admin' });
      expect(await changeAccount(ledger, CLI, { kind: 'disable', name: 'alice' })).toMatchObject({ ok: true });
      expect(await changeAccount(ledger, CLI, { kind: 'remove', name: 'otto' })).toMatchObject({ ok: false, reason: 'last-admin' });
      expect(await changeAccount(ledger, CLI, { kind: 'remove', name: 'otto' }, { force: true })).toMatchObject({ ok: true });
      expect(await ledger.users.list()).toMatchObject([{ name: 'alice', isDisabled: true }]);
    } finally {
      await ledger.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
