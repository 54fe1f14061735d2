/**
 * A PostgreSQL ledger URL turned into node-postgres's connection settings, `sslmode` read as libpq and
 * psql read it (pg-connection-string's libpq compatibility). Left to node-postgres, `sslmode=require`
 * prints a raw "SECURITY WARNING" process warning and means verify-full until its next major version;
 * here it means what PostgreSQL's documentation says, and a mode that does not check the server's
 * certificate is said in plain words, once, where the ledger is opened.
 */
import type pg from 'pg';
import { parse, toClientConfig } from 'pg-connection-string';
import { LedgerError } from '../errors.js';

const SSL_MODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full', 'no-verify'] as const;
type SslMode = (typeof SSL_MODES)[number];

/** Keys of the URL read here, not settings of a connection. */
const URL_ONLY = ['sslmode', 'uselibpqcompat', 'sslrootcert', 'sslcert', 'sslkey'];

export interface LedgerConnection {
  config: pg.ClientConfig;
  /** What the URL's sslmode leaves unchecked, when it leaves something: for a warning. */
  weakness?: string;
}

export function connectionConfigOf(url: string, location: string): LedgerConnection {
  const given = queryValue(url, 'sslmode');
  if (given !== undefined && !isSslMode(given)) {
    throw new LedgerError(location, `The ledger URL ${location} has sslmode=${given}: use one of ${SSL_MODES.slice(0, 6).join(', ')}.`);
  }
  const mode = given;
  const hasRootCert = queryValue(url, 'sslrootcert') !== undefined;
  if (mode === 'verify-ca' && !hasRootCert) {
    throw new LedgerError(location, `The ledger URL ${location} has sslmode=verify-ca but no sslrootcert: name the file of the certificate authority to check the server against (sslrootcert=/path/ca.pem), or use sslmode=verify-full.`);
  }
  // allow and prefer cannot fall back to a plain connection in node-postgres: they are require; no-verify is node-postgres's own name for it.
  const asLibpq = mode === 'allow' || mode === 'prefer' || mode === 'no-verify' ? 'require' : mode;
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(withQuery(url, asLibpq), { useLibpqCompat: true });
  } catch (error) {
    // A certificate or key file named in the URL that cannot be read: the message names the file, never the password.
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'a file it names does not exist' : (error as Error).message;
    throw new LedgerError(location, `The ledger URL ${location} cannot be used: ${reason}.`, { cause: error });
  }
  const config = toClientConfig(parsed) as pg.ClientConfig & Record<string, unknown>;
  for (const key of URL_ONLY) delete config[key];
  const weakness = mode === undefined ? undefined : weaknessOf(mode, hasRootCert);
  return { config, ...(weakness !== undefined && { weakness: `The ledger URL ${location} has sslmode=${mode}: ${weakness}` }) };
}

function isSslMode(value: string): value is SslMode {
  return (SSL_MODES as readonly string[]).includes(value);
}

function weaknessOf(mode: SslMode, hasRootCert: boolean): string | undefined {
  const toCheck = 'use sslmode=verify-full (with sslrootcert=<file> when the server\'s certificate is not from a public authority) to check it.';
  switch (mode) {
    case 'allow':
    case 'prefer':
    case 'require':
    case 'no-verify':
      if (hasRootCert) return `the server's certificate is checked against sslrootcert, but not that it was issued for this host name; ${toCheck}`;
      return `the connection is encrypted, but the server's certificate is not checked, so a machine between this one and the server could pose as it; ${toCheck}`;
    case 'verify-ca':
      return `the server's certificate is checked against sslrootcert, but not that it was issued for this host name; ${toCheck}`;
    default:
      return undefined;
  }
}

/** A query parameter's value (the last one, as libpq takes it), undecoded beyond %xx. */
function queryValue(url: string, key: string): string | undefined {
  const query = url.split('#')[0]!.split('?')[1];
  if (query === undefined) return undefined;
  let value: string | undefined;
  for (const pair of query.split('&')) {
    const at = pair.indexOf('=');
    if ((at < 0 ? pair : pair.slice(0, at)) === key) value = decodeURIComponent(at < 0 ? '' : pair.slice(at + 1));
  }
  return value;
}

/** The URL with sslmode set to `mode` and no uselibpqcompat (the compatibility is always asked for here). */
function withQuery(url: string, mode: string | undefined): string {
  const at = url.indexOf('?');
  if (at < 0) return url;
  const base = url.slice(0, at);
  const query = url.slice(at + 1);
  const pairs = query.split('&').filter((p) => p !== '' && !/^uselibpqcompat(=|$)/.test(p));
  const kept = mode === undefined ? pairs : pairs.map((p) => (/^sslmode(=|$)/.test(p) ? `sslmode=${mode}` : p));
  return kept.length > 0 ? `${base}?${kept.join('&')}` : base;
}
