/**
 * Behind a TLS reverse proxy (--trust-proxy): the session cookie is Secure and named alike on every
 * instance, the client's address comes from X-Forwarded-For (the audit trail records it), and the
 * forwarded host and scheme are the ones the origin check compares with.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLedger } from '../../src/ledger/index.js';
import { startTestApp, type TestApp } from './support.js';

describe('behind a TLS reverse proxy', () => {
  let web: TestApp;
  const proxied = { 'x-forwarded-for': '203.0.113.7', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'orders.example.com' };
  beforeAll(async () => {
    web = await startTestApp({ trustProxy: { hops: 1 }, allowedHosts: ['orders.example.com'], accounts: [{ name: 'otto', role: 'operator', password: 'operator password 1' }] });
  });
  afterAll(async () => {
    await web.close();
  });
  const login = (headers: Record<string, string>) =>
    request(`${web.app.url}/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: 'username=otto&password=operator%20password%201' });

  it('logs in with a Secure cookie and records the address the proxy forwarded', async () => {
    const response = await login({ ...proxied, origin: 'https://orders.example.com' });
    await response.body.text();
    expect(response.statusCode).toBe(303);
    expect(String(response.headers['set-cookie'])).toMatch(/^order_batch_session=[\w-]{43}; Path=\/; HttpOnly; Secure; SameSite=Strict$/);
    const ledger = await openLedger(web.ledgerPath);
    const [entry] = await ledger.audit.list({ limit: 1 });
    await ledger.close();
    expect(entry).toMatchObject({ action: 'login', actor: 'otto', address: '203.0.113.7' });
  });

  it('refuses a post from a page of another origin than the public one', async () => {
    const response = await login({ ...proxied, origin: 'http://orders.example.com' });
    expect(response.statusCode).toBe(403);
    expect(await response.body.text()).toContain('came from another web site');
  });
});
