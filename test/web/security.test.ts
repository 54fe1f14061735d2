/** The guards' rules, as pure functions: which hosts, which origins, which tokens. */
import { describe, expect, it } from 'vitest';
import { allowedHostsFor, checkOrigin, createCsrf, isAllowedHost, readCookie, sessionCookieName } from '../../src/web/security.js';

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
});

describe('CSRF tokens', () => {
  it("accepts the session's own token only", () => {
    const csrf = createCsrf(Buffer.alloc(32, 7));
    const token = csrf.tokenFor('session-a');
    expect(csrf.isValid('session-a', token)).toBe(true);
    expect(csrf.isValid('session-b', token)).toBe(false);
    expect(csrf.isValid('session-a', undefined)).toBe(false);
    expect(csrf.isValid('session-a', `${token}x`)).toBe(false);
  });

  it("refuses a token from before a restart (another server secret)", () => {
    expect(createCsrf(Buffer.alloc(32, 2)).isValid('s', createCsrf(Buffer.alloc(32, 1)).tokenFor('s'))).toBe(false);
  });
});

describe('the session cookie', () => {
  it('is named for the port, so two local servers never share a session', () => {
    expect(sessionCookieName(8080)).not.toBe(sessionCookieName(8081));
  });

  it('is read from a Cookie header among others', () => {
    expect(readCookie('a=1; order_batch_session_8080=abc; b=2', 'order_batch_session_8080')).toBe('abc');
    expect(readCookie('order_batch_session_80800=abc', 'order_batch_session_8080')).toBeUndefined();
    expect(readCookie(undefined, 'x')).toBeUndefined();
  });
});
