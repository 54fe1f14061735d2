/**
 * What keeps other web pages out of the app. Any page a user has open can make their browser send
 * requests to it, so:
 * - the Host header must name this server (a DNS-rebinding page arrives under its own name); behind a
 *   trusted reverse proxy, the host it forwards must be a name given with --allowed-host;
 * - a state-changing request must come from this origin (Origin, else Sec-Fetch-Site);
 * - and carry the session's CSRF token (kept with the session in the ledger, so every instance knows
 *   it), the session cookie being SameSite=Strict and HttpOnly (and Secure behind a TLS proxy).
 */
import { randomBytes } from 'node:crypto';
import { hostname, networkInterfaces } from 'node:os';

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);

/**
 * The Host header values this server answers to: loopback names on its port; the bound address when
 * it is a specific one, or every address of this machine and its name when it listens on all of them;
 * and the names given with --allowed-host. Behind a proxy, those names are also answered as the proxy
 * forwards them: without a port (the public one, 443) or with the one given (`orders.example.com:8443`).
 */
export function allowedHostsFor(boundHost: string, port: number, extra: readonly string[] = [], machine: readonly string[] = machineAddresses(), isBehindProxy = false): Set<string> {
  const names = new Set(LOOPBACK_NAMES);
  const bracket = (host: string) => (host.includes(':') && !host.startsWith('[') ? `[${host}]` : host);
  if (!WILDCARD_HOSTS.has(boundHost)) names.add(bracket(boundHost));
  else for (const address of machine) names.add(bracket(address));
  for (const name of extra) names.add(name.toLowerCase());
  const allowed = new Set([...names].map((name) => `${name.toLowerCase()}:${port}`));
  if (isBehindProxy) for (const name of extra) allowed.add(name.toLowerCase());
  return allowed;
}

/** This machine's name and the addresses of its interfaces: how others on the network reach it. */
export function machineAddresses(): string[] {
  const addresses = Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address.replace(/%.*$/, '')));
  return [hostname(), ...addresses];
}

export function isWildcardHost(host: string): boolean {
  return WILDCARD_HOSTS.has(host);
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
export function checkOrigin(headers: { origin?: string | undefined; secFetchSite?: string | undefined; host: string; scheme?: string }): OriginVerdict {
  if (headers.origin !== undefined) {
    if (headers.origin.toLowerCase() === `${headers.scheme ?? 'http'}://${headers.host.toLowerCase()}`) return { ok: true };
    return { ok: false, reason: `a page at ${headers.origin} tried to change something here` };
  }
  if (headers.secFetchSite !== undefined && headers.secFetchSite !== 'same-origin' && headers.secFetchSite !== 'none') {
    return { ok: false, reason: `a ${headers.secFetchSite} page tried to change something here` };
  }
  return { ok: true };
}

export const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** 32 random bytes: the session id a browser holds (the ledger keeps only its hash). */
export function newSessionId(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Cookies are shared by every port of a host, so the name carries the port: two servers on one
 * machine (or another local app) never read each other's session. A port picked by the system
 * (0) gets a name of its own. Behind a reverse proxy every instance answers one address: one name.
 */
export function sessionCookieName(port: number, isBehindProxy = false): string {
  if (isBehindProxy) return 'order_batch_session';
  return `order_batch_session_${port === 0 ? randomBytes(4).toString('hex') : port}`;
}

/**
 * The session plugin signs nothing: a session id is 32 random bytes, looked up in the ledger by its
 * hash, so a signature would add nothing but a secret every instance must share. Anything that is
 * not an id is refused unread.
 */
export const SESSION_ID_CHECK = {
  sign: (id: string) => id,
  unsign: (value: string) => (SESSION_ID_PATTERN.test(value) ? { valid: true, renew: false, value } : { valid: false, renew: false, value: null }),
};

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
