import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refuseForeignCaller } from '../../src/sandbox/http/control-routes.js';
import { startTestSandbox, type TestSandbox } from './helpers.js';
import { buildOrderPayload } from '../support/order-payload.js';
import { startTestApp } from '../web/support.js';

let sb: TestSandbox;
let host: string;
beforeAll(async () => {
  sb = await startTestSandbox();
  host = new URL(sb.url).host;
});
afterAll(() => sb.close());

function expectRefused(res: { status: number; body: any; headers: Record<string, unknown> }) {
  expect(res.status).toBe(403);
  expect(res.body).toEqual(expect.objectContaining({ message: expect.stringMatching(/web page/), requestId: expect.any(String) }));
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
}

describe('the sandbox controls refuse other web pages', () => {
  it('refuses a reset posted by another site (Origin), and keeps the orders', async () => {
    expect((await sb.create(buildOrderPayload('FOREIGN-1'))).status).toBe(201);
    const res = await sb.call('POST', '/sandbox/reset', { headers: { origin: 'http://evil.example' } });
    expectRefused(res);
    expect(res.body.message).toContain('http://evil.example');
    expect((await sb.call('GET', '/sandbox/stats')).body.orders).toBe(1);
  });

  it('refuses clock and fault changes from another site, with Origin or only Sec-Fetch-Site', async () => {
    const before = (await sb.call('GET', '/sandbox/clock')).body.now;
    expectRefused(await sb.call('POST', '/sandbox/clock', { body: { advanceHours: 5 }, headers: { origin: 'null' } }));
    expectRefused(await sb.call('POST', '/sandbox/clock', { body: { advanceHours: 5 }, headers: { 'sec-fetch-site': 'cross-site' } }));
    expectRefused(await sb.call('POST', '/sandbox/faults', { body: { errorRate: 1 }, headers: { origin: `http://localhost.evil.example` } }));
    expect((await sb.call('GET', '/sandbox/clock')).body.now).toBe(before);
    expect((await sb.call('GET', '/sandbox/faults')).body.faults).toEqual({});
  });

  it('still serves scripts and curl (no Origin) and its own origin', async () => {
    expect((await sb.call('POST', '/sandbox/faults', { body: {} })).status).toBe(200);
    expect((await sb.call('POST', '/sandbox/faults', { body: {}, headers: { origin: `http://${host}`, 'sec-fetch-site': 'same-origin' } })).status).toBe(200);
    expect((await sb.call('POST', '/sandbox/reset')).status).toBe(200);
  });

  it('refuses a DNS-rebinding read: a Host that names another site', async () => {
    const port = new URL(sb.url).port;
    expectRefused(await sb.call('GET', '/sandbox/stats', { headers: { host: `evil.example:${port}` } }));
    expectRefused(await sb.call('POST', '/sandbox/reset', { headers: { host: `evil.example:${port}`, origin: `http://evil.example:${port}` } }));
    for (const ok of [`localhost:${port}`, `127.0.0.1:${port}`, `app.localhost:${port}`]) {
      expect((await sb.call('GET', '/sandbox/stats', { headers: { host: ok } })).status, ok).toBe(200);
    }
  });

  it('leaves the API itself to its tokens', async () => {
    const res = await sb.call('GET', '/api/v0/orders/NOPE', { token: await sb.token(), headers: { origin: 'http://evil.example' } });
    expect(res.status).toBe(404);
  });

  it('guards the sandbox embedded in serve --sandbox too', async () => {
    const web = await startTestApp();
    try {
      const res = await request(`${web.app.sandboxUrl}/sandbox/reset`, { method: 'POST', headers: { origin: 'http://evil.example' } });
      expect(res.statusCode).toBe(403);
      expect(((await res.body.json()) as { message: string }).message).toContain('evil.example');
    } finally {
      await web.close();
    }
  });
});

describe('refuseForeignCaller', () => {
  const base = { method: 'POST', host: '127.0.0.1:8787', origin: undefined, secFetchSite: undefined, localAddress: '127.0.0.1' };
  it('checks the Host only on a loopback connection (a sandbox in a container is reached by name)', () => {
    expect(refuseForeignCaller({ ...base, method: 'GET', host: 'sandbox:8787', localAddress: '172.17.0.2' })).toBeNull();
    expect(refuseForeignCaller({ ...base, method: 'GET', host: 'sandbox:8787' })).toMatch(/IP address or localhost/);
    expect(refuseForeignCaller({ ...base, method: 'GET', host: '[::1]:8787', localAddress: '::1' })).toBeNull();
  });
  it('lets a same-site Sec-Fetch-Site through only as same-origin or none', () => {
    expect(refuseForeignCaller({ ...base, secFetchSite: 'same-site' })).toMatch(/same-site/);
    expect(refuseForeignCaller({ ...base, secFetchSite: 'none' })).toBeNull();
  });
});
