/** serve --trust-proxy: which reverse proxies' X-Forwarded-* headers are believed. */
import { isIP } from 'node:net';
import { UsageError } from './errors.js';

/**
 * Which reverse proxies are trusted for X-Forwarded-*: a count of hops (the nearest `hops` addresses
 * of the chain are proxies; the client is the one before them), or the proxies' own addresses and
 * networks. Never "every hop": the leftmost X-Forwarded-For is whatever the client wrote.
 */
export type TrustProxy = { hops: number } | { addresses: string[] };

const PROXY_ADDRESS_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isProxyAddress(text: string): boolean {
  if (PROXY_ADDRESS_NAMES.has(text)) return true;
  const [address = '', prefix, ...rest] = text.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  if (/^\d+$/.test(prefix)) return Number(prefix) <= (family === 4 ? 32 : 128);
  return family === 4 && isIP(prefix) === 4;
}

/** --trust-proxy (bare: 1 hop), `--trust-proxy 2`, `--trust-proxy 10.0.0.0/8,127.0.0.1`, or the config file's trustProxy. */
export function parseTrustProxy(value: boolean | number | string | readonly string[] | undefined, from = '--trust-proxy'): TrustProxy | false {
  if (value === undefined || value === false) return false;
  if (value === true) return { hops: 1 };
  if (typeof value === 'number') return { hops: value };
  const text = typeof value === 'string' ? value.trim() : '';
  if (/^\d+$/.test(text)) {
    const hops = Number(text);
    if (hops < 1 || hops > 32) throw new UsageError(`${from} takes a count of proxies from 1 to 32, not ${hops}.`);
    return { hops };
  }
  const addresses = (typeof value === 'string' ? value.split(',') : [...value]).map((a) => a.trim()).filter((a) => a !== '');
  const wrong = addresses.find((a) => !isProxyAddress(a));
  if (addresses.length === 0 || wrong !== undefined) {
    throw new UsageError(
      `${from} takes how many proxies stand before the app (1 when bare) or their addresses, such as 10.0.0.0/8,127.0.0.1; "${wrong ?? String(value)}" is neither.`,
    );
  }
  return { addresses };
}
