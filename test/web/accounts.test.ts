/**
 * Accounts over HTTP: login and logout, roles, idle expiry on the injected clock, a disabled account
 * logged out at its next request, failed logins limited, and what happens without accounts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLedger } from '../../src/ledger/index.js';
import { startWebApp } from '../../src/web/server.js';
import { silentLogger } from '../../src/log.js';
import { logIn, openSession, SAMPLES, startTestApp, uploadForm, type TestApp } from './support.js';
import { makeTempFolder } from '../support/temp-dir.js';

const HOUR = 3_600_000;
const ACCOUNTS = [
  { name: 'vera', role: 'viewer' as const, password: 'viewer password 1' },
  { name: 'otto', role: 'operator' as const, password: 'operator password 1' },
  { name: 'ada', role: 'admin' as const, password: 'admin password 1' },
];

describe('the web app with accounts', () => {
  let web: TestApp;
  let now = new Date('2031-01-01T08:00:00Z');
  const clock = () => new Date(now);
  beforeAll(async () => {
    web = await startTestApp({ accounts: ACCOUNTS, clock });
  });
  afterAll(async () => {
    await web.close();
  });
  const get = (path: string, cookie?: string, accept = 'text/html') => request(`${web.app.url}${path}`, { headers: { accept, ...(cookie ? { cookie } : {}) } });
  const post = (path: string, body: string, cookie?: string) =>
    request(`${web.app.url}${path}`, { method: 'POST', body, headers: { origin: web.app.url, 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) } });
  const login = (username: string, password: string) => post('/login', new URLSearchParams({ username, password }).toString());

  it('sends a browser without a session to the login form, and a script a 401', async () => {
    const page = await get('/history');
    expect(page.statusCode).toBe(303);
    expect(page.headers.location).toBe('/login?next=%2Fhistory');
    expect((await get('/jobs/AAAAAAAAAAAAAAAA/progress', undefined, 'application/json')).statusCode).toBe(401);
    expect((await get('/template.xlsx')).statusCode).toBe(401);
    const form = await (await get('/login')).body.text();
    expect(form).toContain('name="username"');
    expect(form).toContain('name="password"');
    expect(form).not.toContain('aria-label="Main"');
  });

  it('answers a wrong password and an unknown account alike, with 401, and logs the right one in with a new session', async () => {
    const wrong = await login('otto', 'not the password');
    const unknown = await login('nobody', 'not the password');
    expect([wrong.statusCode, unknown.statusCode]).toEqual([401, 401]);
    const [a, b] = [await wrong.body.text(), await unknown.body.text()];
    expect(a).toContain('The account name or the password is wrong');
    expect(a.replace(/value="[^"]*"/g, '')).toBe(b.replace(/value="[^"]*"/g, ''));
    const right = await login('Otto', 'operator password 1');
    expect(right.statusCode).toBe(303);
    expect(right.headers.location).toBe('/');
    expect(String(right.headers['set-cookie'])).toMatch(/^order_batch_session_\w+=[\w-]{43}; Path=\/; HttpOnly; SameSite=Strict$/);
    const session = await logIn(web.app.url, 'otto', 'operator password 1');
    expect(await (await get('/', session.cookie)).body.text()).toContain('Signed in as <strong>otto</strong> (operator)');
  });

  it("shows a viewer no Submit button and refuses the viewer's submission with 403", async () => {
    const session = await logIn(web.app.url, 'vera', 'viewer password 1');
    const uploaded = await request(`${web.app.url}/upload`, {
      method: 'POST',
      body: uploadForm({ csrf: session.csrf, fileName: 'orders-valid.csv', content: readFileSync(join(SAMPLES, 'orders-valid.csv')) }),
      headers: { cookie: session.cookie, origin: web.app.url },
    });
    await uploaded.body.text();
    const verdict = await (await get(String(uploaded.headers.location), session.cookie)).body.text();
    expect(verdict).toContain('data-no-submit');
    expect(verdict).not.toMatch(/<form method="post" action="\/uploads\/[\w-]+\/submit"/);
    const submitted = await post(`${String(uploaded.headers.location)}/submit`, `_csrf=${session.csrf}`, session.cookie);
    expect(submitted.statusCode).toBe(403);
    expect(await submitted.body.text()).toContain('may not do this');
    expect((await post('/reconcile', `_csrf=${session.csrf}`, session.cookie)).statusCode).toBe(403);
    expect((await get('/users', session.cookie)).statusCode).toBe(403);
  });

  it('ends a session after 8 idle hours on the clock, keeps one in use, and ends any 12 hours after its login', async () => {
    const session = await logIn(web.app.url, 'otto', 'operator password 1');
    now = new Date(now.getTime() + 7 * HOUR);
    expect((await get('/', session.cookie)).statusCode).toBe(200);
    now = new Date(now.getTime() + 4 * HOUR);
    expect((await get('/', session.cookie)).statusCode).toBe(200);
    now = new Date(now.getTime() + 2 * HOUR);
    expect((await get('/', session.cookie)).statusCode).toBe(303);
    const idle = await logIn(web.app.url, 'otto', 'operator password 1');
    now = new Date(now.getTime() + 8 * HOUR + 60_000);
    expect((await get('/', idle.cookie)).statusCode).toBe(303);
  });

  it('logs a disabled account out at its next request, and refuses its login', async () => {
    const session = await logIn(web.app.url, 'vera', 'viewer password 1');
    const ledger = await openLedger(web.ledgerPath);
    await ledger.users.update('vera', { isDisabled: true });
    await ledger.close();
    expect((await get('/', session.cookie)).statusCode).toBe(303);
    expect((await login('vera', 'viewer password 1')).statusCode).toBe(401);
  });

  it('logs out, and the old cookie no longer opens anything', async () => {
    const session = await logIn(web.app.url, 'ada', 'admin password 1');
    const out = await post('/logout', `_csrf=${session.csrf}`, session.cookie);
    expect(out.statusCode).toBe(200);
    expect(await out.body.text()).toContain('You have logged out.');
    expect((await get('/', session.cookie)).statusCode).toBe(303);
  });

  it('limits failed logins per account, whatever the password then', async () => {
    for (let i = 0; i < 10; i++) expect((await login('ada', `wrong ${i}`)).statusCode).toBe(401);
    const blocked = await login('ada', 'admin password 1');
    expect(blocked.statusCode).toBe(429);
    expect(await blocked.body.text()).toContain('Too many failed logins: wait 15 minutes');
  });

  it('records logins, refusals and logouts in the audit trail, with the address', async () => {
    const ledger = await openLedger(web.ledgerPath);
    const trail = await ledger.audit.list({ limit: 1000 });
    await ledger.close();
    expect(trail.find((e) => e.action === 'login' && e.actor === 'otto')).toMatchObject({ via: 'web', address: '127.0.0.1' });
    expect(trail.find((e) => e.action === 'login_refused' && e.actor === '(unknown account)')).toMatchObject({ detail: 'unknown account "nobody"' });
    expect(trail.some((e) => e.actor === 'nobody')).toBe(false);
    expect(trail.find((e) => e.action === 'login_refused' && e.actor === 'otto')).toMatchObject({ detail: 'wrong password' });
    expect(trail.find((e) => e.action === 'logout')).toMatchObject({ actor: 'ada' });
  });
});

describe("an admin's own password", () => {
  it("is set only with the current one; another account's without", async () => {
    const web = await startTestApp({ accounts: ACCOUNTS });
    try {
      const admin = await logIn(web.app.url, 'ada', 'admin password 1');
      const set = (name: string, fields: Record<string, string>) =>
        request(`${web.app.url}/users/${name}`, {
          method: 'POST',
          body: new URLSearchParams({ _csrf: admin.csrf, change: 'password', password: 'a brand new password', ...fields }).toString(),
          headers: { cookie: admin.cookie, origin: web.app.url, 'content-type': 'application/x-www-form-urlencoded' },
        });
      const without = await set('ada', {});
      expect(without.statusCode).toBe(400);
      expect(await without.body.text()).toContain('To set your own password, give your current one too');
      expect((await set('ada', { current: 'not it' })).statusCode).toBe(400);
      expect((await set('vera', {})).statusCode).toBe(200);
      const done = await set('ada', { current: 'admin password 1' });
      expect(done.statusCode).toBe(200);
      expect(await done.body.text()).toContain('Set a new password for ada');
      await logIn(web.app.url, 'ada', 'a brand new password');
    } finally {
      await web.close();
    }
  });
});

describe("an account's e-mail address on the accounts page", () => {
  it('is set when the account is added, changed, refused when another account has it, and removed', async () => {
    const web = await startTestApp({ accounts: ACCOUNTS });
    try {
      const admin = await logIn(web.app.url, 'ada', 'admin password 1');
      const send = (path: string, fields: Record<string, string>) =>
        request(`${web.app.url}${path}`, {
          method: 'POST',
          body: new URLSearchParams({ _csrf: admin.csrf, ...fields }).toString(),
          headers: { cookie: admin.cookie, origin: web.app.url, 'content-type': 'application/x-www-form-urlencoded' },
        });
      const added = await send('/users', { name: 'mrossi', role: 'viewer', password: 'a long enough password', email: 'Maria.Rossi@Example.com' });
      expect(added.statusCode).toBe(200);
      expect(await added.body.text()).toContain('value="maria.rossi@example.com"');
      const taken = await send('/users/vera', { change: 'email', email: 'maria.rossi@example.com' });
      expect(taken.statusCode).toBe(409);
      expect(await taken.body.text()).toContain('is the account mrossi&#39;s already');
      expect((await send('/users/ada', { change: 'email', email: 'ada@example.com' })).statusCode).toBe(200);
      expect((await send('/users/mrossi', { change: 'email', email: '' })).statusCode).toBe(200);
      const ledger = await openLedger(web.ledgerPath);
      try {
        expect((await ledger.users.list()).map((u) => [u.name, u.email])).toEqual([['ada', 'ada@example.com'], ['mrossi', null], ['otto', null], ['vera', null]]);
        expect((await ledger.audit.list({ actor: 'ada' })).filter((e) => e.action === 'user_email')).toHaveLength(2);
      } finally {
        await ledger.close();
      }
    } finally {
      await web.close();
    }
  });
});

describe('a short idle timeout', () => {
  it('keeps a session in use alive: its sign of life is noted well within the timeout', async () => {
    let now = new Date('2031-01-01T08:00:00Z');
    const web = await startTestApp({ accounts: ACCOUNTS, clock: () => new Date(now), sessionIdleMs: 60_000 });
    try {
      const session = await logIn(web.app.url, 'otto', 'operator password 1');
      const get = async () => (await request(`${web.app.url}/`, { headers: { cookie: session.cookie } })).statusCode;
      for (let i = 0; i < 4; i++) {
        now = new Date(now.getTime() + 50_000);
        expect(await get()).toBe(200);
      }
      now = new Date(now.getTime() + 61_000);
      expect(await get()).toBe(303);
    } finally {
      await web.close();
    }
  });
});

describe('two instances on one ledger', () => {
  it('counts the failed logins of every instance sharing the ledger', async () => {
    const web = await startTestApp({ accounts: ACCOUNTS });
    const other = await startWebApp({ ...web.options, port: 0 });
    try {
      const tries = (url: string, password: string) =>
        request(`${url}/login`, { method: 'POST', headers: { origin: url, 'content-type': 'application/x-www-form-urlencoded' }, body: `username=otto&password=${password}` });
      for (let i = 0; i < 5; i++) expect((await tries(web.app.url, `wrong-${i}`)).statusCode).toBe(401);
      for (let i = 0; i < 5; i++) expect((await tries(other.url, `wrong-${i}`)).statusCode).toBe(401);
      expect((await tries(other.url, 'operator%20password%201')).statusCode).toBe(429);
      expect((await tries(web.app.url, 'operator%20password%201')).statusCode).toBe(429);
    } finally {
      await other.close();
      await web.close();
    }
  });

});

describe('the web app without accounts', () => {
  it('serves this computer as before, and says so', async () => {
    const web = await startTestApp();
    try {
      expect(web.app.hasAccounts).toBe(false);
      const session = await openSession(web.app.url);
      const page = await (await request(`${web.app.url}/history`, { headers: { cookie: session.cookie } })).body.text();
      expect(page).toContain('Local use, no accounts: this computer only');
      expect((await request(`${web.app.url}/login`)).statusCode).toBe(303);
    } finally {
      await web.close();
    }
  });

  it('refuses to listen beyond this computer, naming the command that adds an account', async () => {
    const dir = makeTempFolder('web');
    await expect(
      startWebApp({
        port: 0,
        host: '0.0.0.0',
        useSandbox: false,
        connection: { auth: 'oauth' },
        ledgerPath: join(dir, 'ledger.db'),
        context: { now: new Date(), timezone: 'UTC', sourcesOfSale: ['OtherMarketplace'] },
        concurrency: 1,
        maxAttempts: 1,
        lateAfterDays: 3,
        logger: silentLogger,
      }),
    ).rejects.toThrow(/serve --host 0\.0\.0\.0 lets other computers reach the web app, so it needs accounts.*order-batch users add <name> --role admin --ledger /);
  });
});
