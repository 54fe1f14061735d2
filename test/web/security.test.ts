/** The guards' rules, as pure functions: which hosts, which origins, which tokens. */
import { describe, expect, it } from 'vitest';
import { isLoopbackHost } from '../../src/loopback-host.js';
import { allowedHostsFor, checkOrigin, isAllowedHost, newSessionId, SESSION_ID_CHECK, sessionCookieName } from '../../src/web/security.js';

describe('the host check', () => {
  const allowed = allowedHostsFor('127.0.0.1', 8080);

  it('accepts the loopback names with the server port, in any case', () => {
    for (const host of ['127.0.0.1:8080', 'localhost:8080', 'LOCALHOST:8080', '[::1]:8080']) expect(isAllowedHost(host, allowed), host).toBe(true);
  });

  it('refuses other names, other ports and a missing Host header', () => {
    for (const host of ['attacker.example:8080', 'localhost:9090', 'localhost', '127.0.0.1', undefined]) expect(isAllowedHost(host, allowed), String(host)).toBe(false);
  });

  it('adds a specific bound address and configured names, but never the wildcard address', () => {
    expect(isAllowedHost('192.168.1.20:8080', allowedHostsFor('192.168.1.20', 8080))).toBe(true);
    expect(isAllowedHost('0.0.0.0:8080', allowedHostsFor('0.0.0.0', 8080))).toBe(false);
    expect(isAllowedHost('ops-laptop:8080', allowedHostsFor('0.0.0.0', 8080, ['ops-laptop']))).toBe(true);
  });

  it("answers under this machine's name and addresses when it listens on all of them", () => {
    const allowedHere = allowedHostsFor('0.0.0.0', 8080, [], ['batch-host', '10.1.2.3', 'fe80::1']);
    for (const host of ['batch-host:8080', '10.1.2.3:8080', '[fe80::1]:8080']) expect(isAllowedHost(host, allowedHere), host).toBe(true);
    expect(isAllowedHost('10.1.2.4:8080', allowedHere)).toBe(false);
  });

  it('tells addresses that reach this computer only from the others', () => {
    expect(['127.0.0.1', '127.3.4.5', 'localhost', '::1', '[::1]'].map(isLoopbackHost)).toEqual([true, true, true, true, true]);
    expect(['0.0.0.0', '::', '192.168.1.20', 'ops-laptop'].map(isLoopbackHost)).toEqual([false, false, false, false]);
  });
});

describe('the origin check', () => {
  const host = '127.0.0.1:8080';

  it('accepts a post from this origin, and one with neither Origin nor Sec-Fetch-Site (not from a web page)', () => {
    expect(checkOrigin({ origin: 'http://127.0.0.1:8080', host }).ok).toBe(true);
    expect(checkOrigin({ secFetchSite: 'same-origin', host }).ok).toBe(true);
    expect(checkOrigin({ host }).ok).toBe(true);
  });

  it('refuses another origin, an opaque origin and a cross-site or same-site fetch', () => {
    expect(checkOrigin({ origin: 'https://attacker.example', host }).ok).toBe(false);
    expect(checkOrigin({ origin: 'http://localhost:8080', host }).ok).toBe(false);
    expect(checkOrigin({ origin: 'null', host }).ok).toBe(false);
    expect(checkOrigin({ secFetchSite: 'cross-site', host }).ok).toBe(false);
    expect(checkOrigin({ secFetchSite: 'same-site', host }).ok).toBe(false);
  });

  it('compares the scheme too: behind a TLS proxy the page is https', () => {
    expect(checkOrigin({ origin: 'https://orders.example.com', host: 'orders.example.com', scheme: 'https' }).ok).toBe(true);
    expect(checkOrigin({ origin: 'http://orders.example.com', host: 'orders.example.com', scheme: 'https' }).ok).toBe(false);
  });
});

describe('the session cookie', () => {
  it('is named for the port, so two local servers never share a session, and alike for every instance behind a proxy', () => {
    expect(sessionCookieName(8080)).not.toBe(sessionCookieName(8081));
    expect(sessionCookieName(0)).not.toBe(sessionCookieName(0));
    expect(sessionCookieName(8080, true)).toBe(sessionCookieName(8081, true));
  });

  it('carries a 32-byte random id and nothing else is read as one', () => {
    const id = newSessionId();
    expect(SESSION_ID_CHECK.unsign(SESSION_ID_CHECK.sign(id))).toEqual({ valid: true, renew: false, value: id });
    for (const bad of ['', 'abc', `${id}x`, `${id.slice(0, -1)}!`]) expect(SESSION_ID_CHECK.unsign(bad).valid).toBe(false);
  });
});
