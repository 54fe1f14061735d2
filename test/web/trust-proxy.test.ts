/**
 * Behind a TLS reverse proxy (--trust-proxy): the session cookie is Secure and named alike on every
 * instance, the client's address comes from X-Forwarded-For (the audit trail records it), and the
 * forwarded host and scheme are the ones the origin check compares with.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLedger } from '../../src/ledger/index.js';
import { parseTrustProxy, type TrustProxy } from '../../src/options.js';
import { runServe } from '../../src/web/server.js';
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

describe('which proxies are trusted', () => {
  const loginFrom = async (trustProxy: TrustProxy, forwardedFor: string) => {
    const web = await startTestApp({ trustProxy, allowedHosts: ['orders.example.com'], accounts: [{ name: 'otto', role: 'operator', password: 'operator password 1' }] });
    try {
      const response = await request(`${web.app.url}/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: web.app.url, 'x-forwarded-for': forwardedFor },
        body: 'username=otto&password=operator%20password%201',
      });
      await response.body.text();
      expect(response.statusCode).toBe(303);
      const ledger = await openLedger(web.ledgerPath);
      const [entry] = await ledger.audit.list({ limit: 1 });
      await ledger.close();
      return entry?.address;
    } finally {
      await web.close();
    }
  };

  it('takes the address the nearest proxy saw, not the one the client wrote at the left', async () => {
    expect(await loginFrom({ hops: 1 }, '198.51.100.66, 203.0.113.7')).toBe('203.0.113.7');
    expect(await loginFrom({ hops: 2 }, '198.51.100.66, 203.0.113.7')).toBe('198.51.100.66');
  });

  it('believes the headers of the proxies named only', async () => {
    expect(await loginFrom({ addresses: ['127.0.0.1'] }, '198.51.100.66, 203.0.113.7')).toBe('203.0.113.7');
    expect(await loginFrom({ addresses: ['127.0.0.0/8', '203.0.113.0/24'] }, '198.51.100.66, 203.0.113.7')).toBe('198.51.100.66');
    expect(await loginFrom({ addresses: ['10.0.0.0/8'] }, '198.51.100.66, 203.0.113.7')).toBe('127.0.0.1');
  });

  it('reads --trust-proxy as hops (bare: 1) or addresses, and refuses anything else', () => {
    expect(parseTrustProxy(true)).toEqual({ hops: 1 });
    expect(parseTrustProxy('2')).toEqual({ hops: 2 });
    expect(parseTrustProxy(3)).toEqual({ hops: 3 });
    expect(parseTrustProxy('10.0.0.0/8, 127.0.0.1,::1,loopback')).toEqual({ addresses: ['10.0.0.0/8', '127.0.0.1', '::1', 'loopback'] });
    expect(parseTrustProxy(['10.0.0.0/255.0.0.0'])).toEqual({ addresses: ['10.0.0.0/255.0.0.0'] });
    expect(parseTrustProxy(false)).toBe(false);
    expect(() => parseTrustProxy('0')).toThrow('--trust-proxy takes a count of proxies from 1 to 32, not 0.');
    expect(() => parseTrustProxy('proxy.internal')).toThrow(/--trust-proxy takes how many proxies .*"proxy\.internal" is neither/);
    expect(() => parseTrustProxy('10.0.0.0/33', 'trustProxy in config file c.json')).toThrow(/^trustProxy in config file c\.json takes/);
  });
});

describe('serve behind a proxy', () => {
  it('says to open the public name the proxy answers to, and that logins are required', async () => {
    const web = await startTestApp({ accounts: [{ name: 'otto', role: 'operator', password: 'operator password 1' }] });
    const lines: string[] = [];
    try {
      const app = await runServe({ ...web.options, trustProxy: { hops: 1 }, allowedHosts: ['orders.example.com'], print: (line) => lines.push(line) });
      await app.close();
    } finally {
      await web.close();
    }
    expect(lines[1]).toMatch(/^Open https:\/\/orders\.example\.com\/ in a browser/);
    expect(lines[2]).toMatch(/^Accounts are required/);
  });
});
