/**
 * Login limits that parallel requests cannot beat, on either ledger: each attempt is counted before
 * its password is judged, a success is taken back, a blocked address or account is one line of the
 * audit trail per window, and names that are no account stay out of the History's people filter.
 * The `next` address after a login stays on this app.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLedger } from '../../src/ledger/index.js';
import { safeNext } from '../../src/web/auth/access.js';
import { LOGIN_LIMITS } from '../../src/web/routes/login-routes.js';
import { createDatabase, describePostgres, type TestDatabase } from '../support/postgres/database.js';
import { logIn, startTestApp, type TestApp } from './support.js';

const ACCOUNTS = [
  { name: 'otto', role: 'operator' as const, password: 'operator password 1' },
  { name: 'ada', role: 'admin' as const, password: 'admin password 1' },
];

function limitTests(ledgerOf: () => Promise<{ ledgerPath?: string; drop(): Promise<void> }>): void {
  let web: TestApp;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const made = await ledgerOf();
    drop = made.drop;
    web = await startTestApp({ accounts: ACCOUNTS, ...(made.ledgerPath ? { ledgerPath: made.ledgerPath } : {}) });
  });
  afterAll(async () => {
    await web?.close();
    await drop?.();
  });
  const login = (username: string, password: string) =>
    request(`${web.app.url}/login`, {
      method: 'POST',
      headers: { origin: web.app.url, 'content-type': 'application/x-www-form-urlencoded'},
      body: new URLSearchParams({ username, password }).toString(),
    }).then(async (response) => {
      await response.body.text();
      return response.statusCode;
    });
  const trail = async () => {
    const ledger = await openLedger(web.ledgerPath);
    try {
      return { entries: await ledger.audit.list({ limit: 1000 }), actors: await ledger.audit.listActors() };
    } finally {
      await ledger.close();
    }
  };

  it('lets at most the limit of parallel wrong passwords be judged; the rest are refused unjudged', async () => {
    const tries = LOGIN_LIMITS.perAccount + 5;
    const answers = await Promise.all(Array.from({ length: tries }, (_, i) => login('otto', `wrong ${i}`)));
    expect(answers.filter((status) => status === 401)).toHaveLength(LOGIN_LIMITS.perAccount);
    expect(answers.filter((status) => status === 429)).toHaveLength(tries - LOGIN_LIMITS.perAccount);
    expect(await login('otto', 'operator password 1')).toBe(429);
    const { entries } = await trail();
    const refused = entries.filter((e) => e.action === 'login_refused' && e.actor === 'otto');
    expect(refused.filter((e) => e.detail === 'wrong password')).toHaveLength(LOGIN_LIMITS.perAccount);
    expect(refused.filter((e) => e.detail?.startsWith('too many failed attempts'))).toEqual([expect.objectContaining({ detail: 'too many failed attempts for this account' })]);
  });

  it('does not count logins that succeed', async () => {
    for (let i = 0; i < LOGIN_LIMITS.perAccount + 2; i++) await logIn(web.app.url, 'ada', 'admin password 1');
    expect(await login('ada', 'wrong')).toBe(401);
  });

  it('keeps names that are no account out of the people filter, quoting them cut short in the entry', async () => {
    const long = `intruder-${'z'.repeat(60)}`;
    expect(await login(long, 'guess')).toBe(401);
    const { entries, actors } = await trail();
    expect(actors).toContain('(unknown account)');
    expect(actors.some((actor) => actor.startsWith('intruder'))).toBe(false);
    expect(entries.find((e) => e.action === 'login_refused' && e.actor === '(unknown account)')?.detail).toBe(`unknown account "${long.slice(0, 40)}…"`);
  });
}

describe('login limits on an SQLite ledger', () => limitTests(async () => ({ drop: async () => {} })));

describePostgres('login limits on a PostgreSQL ledger', () =>
  limitTests(async () => {
    const db: TestDatabase = await createDatabase();
    return { ledgerPath: db.url, drop: () => db.drop() };
  }),
);

describe('the address to return to after logging in', () => {
  it('is a path of this app, never another site however it is written', () => {
    for (const evil of ['/\t/evil.example', '/\n/evil.example', '/\\evil.example', '//evil.example', '/\\/evil.example', 'https://evil.example/', '/\u0000/evil', 'javascript:alert(1)', '/login?next=//evil']) {
      expect(safeNext(evil), JSON.stringify(evil)).toBe('/');
    }
    expect(safeNext('/history?actor=ada#audit-heading')).toBe('/history?actor=ada#audit-heading');
    expect(safeNext('/uploads/abc/../../history')).toBe('/history');
  });

  it('sends a login with a tab-split address home', async () => {
    const web = await startTestApp({ accounts: ACCOUNTS });
    try {
      const response = await request(`${web.app.url}/login`, {
        method: 'POST',
        headers: { origin: web.app.url, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ username: 'ada', password: 'admin password 1', next: '/\t/evil.example' }).toString(),
      });
      await response.body.text();
      expect(response.statusCode).toBe(303);
      expect(response.headers.location).toBe('/');
    } finally {
      await web.close();
    }
  });
});
