/** The company login's settings, as src/options.ts resolves them (flags, environment, config file). */
import type { Role } from '../accounts/roles.js';
import { isLoopbackHost } from '../loopback-host.js';
import type { SsoDefaultRole } from './sso-roles.js';

export interface SsoSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Role of a person seen first, when no group maps to one; `none` refuses them. */
  defaultRole: SsoDefaultRole;
  /** The login page offers the company login only; POST /login is refused. */
  isOnly: boolean;
  /** Groups claim values and the role each gives (the highest wins). */
  groupRoles: Record<string, Role>;
}

/** An http:// issuer only on this computer (a test or a local provider): anywhere else the login would cross the network in clear. */
export function checkIssuerUrl(issuer: string): URL {
  const url = new URL(issuer);
  if (url.protocol === 'https:') return url;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return url;
  throw new Error(`the OpenID issuer must be an https:// address (http:// only on this computer), not ${url.protocol}//${url.host}`);
}
