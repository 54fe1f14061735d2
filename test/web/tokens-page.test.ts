/** API tokens on the accounts page: an admin makes one (shown once), it works on the API, and revoking it there ends it. */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi } from './api-support.js';
import { logIn, startTestApp, type Session, type TestApp } from './support.js';

describe('API tokens on the accounts page', () => {
  let web: TestApp;
  let admin: Session;
  const post = async (path: string, fields: Record<string, string>, session = admin) => {
    const response = await request(`${web.app.url}${path}`, {
      method: 'POST',
      headers: { cookie: session.cookie, origin: web.app.url, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: session.csrf, ...fields }).toString(),
    });
    return { status: response.statusCode, page: await response.body.text() };
  };

  beforeAll(async () => {
    web = await startTestApp({
      accounts: [
        { name: 'ada', role: 'admin', password: 'admin password 1' },
        { name: 'olga', role: 'operator', password: 'operator password 1' },
      ],
    });
    admin = await logIn(web.app.url, 'ada', 'admin password 1');
  });
  afterAll(async () => {
    await web?.close();
  });

  it('makes a token for an account, shows it once, and revokes it for the API at once', async () => {
    const made = await post('/users/tokens', { user: 'olga', label: 'erp', expires: '30d' });
    expect(made.status).toBe(200);
    const token = /<code class="token">(obt_[A-Za-z0-9_-]{43})<\/code>/.exec(made.page)?.[1];
    expect(token).toBeDefined();
    expect((await callApi(web.app.url, 'GET', '/api/v1/runs', { token: token! })).status).toBe(200);

    const page = await (await request(`${web.app.url}/users`, { headers: { cookie: admin.cookie } })).body.text();
    expect(page).toContain('erp');
    expect(page).not.toContain(token!);

    expect((await post('/users/tokens', { user: 'olga', label: 'erp' })).status).toBe(409);
    expect((await post('/users/tokens/erp/revoke', {})).status).toBe(200);
    expect((await callApi(web.app.url, 'GET', '/api/v1/runs', { token: token! })).status).toBe(401);
  });

  it('refuses an operator the token forms', async () => {
    const operator = await logIn(web.app.url, 'olga', 'operator password 1');
    expect((await post('/users/tokens', { user: 'olga', label: 'mine' }, operator)).status).toBe(403);
  });
});
