/**
 * What keeps other web pages out of the app. The app binds to loopback, but any page the user has
 * open can still make their browser send requests to it, so:
 * - the Host header must name this server (a DNS-rebinding page arrives under its own name);
 * - a state-changing request must come from this origin (Origin, else Sec-Fetch-Site);
 * - and carry the session's CSRF token (an HMAC of the session id, so nothing is stored per session),
 *   the session cookie being SameSite=Strict and HttpOnly.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);

/** The Host header values this server answers to: loopback names on its port, and the bound address when it is a specific one. */
export function allowedHostsFor(boundHost: string, port: number, extra: readonly string[] = []): Set<string> {
  const names = new Set(LOOPBACK_NAMES);
  if (!WILDCARD_HOSTS.has(boundHost)) names.add(boundHost.includes(':') && !boundHost.startsWith('[') ? `[${boundHost}]` : boundHost);
  for (const name of extra) names.add(name.toLowerCase());
  return new Set([...names].map((name) => `${name.toLowerCase()}:${port}`));
}

export function isAllowedHost(hostHeader: string | undefined, allowed: ReadonlySet<string>): boolean {
  return hostHeader !== undefined && allowed.has(hostHeader.trim().toLowerCase());
}

export type OriginVerdict = { ok: true } | { ok: false; reason: string };

/**
 * A state-changing request's origin. Browsers send Origin on every POST; older ones at least send
 * Sec-Fetch-Site. A request with neither did not come from a browser page, so it cannot be a
 * cross-site forgery (and it still needs the CSRF token).
 */
export function checkOrigin(headers: { origin?: string | undefined; secFetchSite?: string | undefined; host: string }): OriginVerdict {
  if (headers.origin !== undefined) {
    if (headers.origin.toLowerCase() === `http://${headers.host.toLowerCase()}`) return { ok: true };
    return { ok: false, reason: `a page at ${headers.origin} tried to change something here` };
  }
  if (headers.secFetchSite !== undefined && headers.secFetchSite !== 'same-origin' && headers.secFetchSite !== 'none') {
    return { ok: false, reason: `a ${headers.secFetchSite} page tried to change something here` };
  }
  return { ok: true };
}

export interface Csrf {
  tokenFor(sessionId: string): string;
  isValid(sessionId: string, token: string | undefined): boolean;
}

/** Tokens die with the server's secret: after a restart, a page reload hands out fresh ones. */
export function createCsrf(secret: Buffer = randomBytes(32)): Csrf {
  const tokenFor = (sessionId: string) => createHmac('sha256', secret).update(sessionId).digest('base64url');
  return {
    tokenFor,
    isValid(sessionId, token) {
      if (!token || !sessionId) return false;
      const expected = Buffer.from(tokenFor(sessionId));
      const given = Buffer.from(token);
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}

export const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{32}$/;

export function newSessionId(): string {
  return randomBytes(24).toString('base64url');
}

/**
 * Cookies are shared by every port of a host, so the name carries the port: two servers on one
 * machine (or another local app) never read each other's session.
 */
export function sessionCookieName(port: number): string {
  return `order_batch_session_${port}`;
}

export function sessionCookie(name: string, id: string): string {
  return `${name}=${id}; Path=/; HttpOnly; SameSite=Strict`;
}

/** One cookie's value from a Cookie header (`a=1; b=2`); session ids never need decoding. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** Headers on every answer: no framing, no sniffing, no referrer to other sites, and only our own scripts and styles. */
export const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  // Not no-referrer: under that policy browsers send `Origin: null` on form posts, and the origin check needs the real one.
  'referrer-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};
