/**
 * Where a ledger lives, as `--ledger`, the config file's `ledger` and ORDER_BATCH_LEDGER give it
 * (PRODUCT.md section 8): a file path means SQLite, a `postgres://` or `postgresql://` URL means a
 * PostgreSQL database. Pure, so options.ts checks a location before anything is opened.
 */
import { fileURLToPath } from 'node:url';
import { UsageError } from '../errors.js';

export type LedgerLocation = { backend: 'sqlite'; path: string } | { backend: 'postgres'; url: string };

const POSTGRES_URL = /^postgres(?:ql)?:\/\//i;
/** Any `scheme://`: a URL, never a file name (a Windows drive, `C:\`, has no `//`). */
const ANY_URL = /^([a-z][a-z0-9+.-]*):\/\//i;

/** Throws UsageError for an empty location or a URL of another kind; never echoes a password. */
export function parseLedgerLocation(text: string): LedgerLocation {
  if (text.trim() === '') throw new UsageError('The ledger location is empty: give a file path or a postgres:// URL.');
  if (POSTGRES_URL.test(text)) return { backend: 'postgres', url: text };
  const scheme = ANY_URL.exec(text)?.[1]?.toLowerCase();
  if (scheme === 'file') {
    try {
      return { backend: 'sqlite', path: fileURLToPath(text) };
    } catch (error) {
      throw new UsageError(`The ledger location ${text} is not a usable file URL (${(error as Error).message}): give a file path instead.`, { cause: error });
    }
  }
  if (scheme !== undefined) {
    throw new UsageError(`The ledger location ${scheme}://… is not one order-batch can use: give a file path (SQLite) or a postgres:// or postgresql:// URL (PostgreSQL).`);
  }
  return { backend: 'sqlite', path: text };
}

/**
 * The location fit to print and log: a URL's password (and a `password` query parameter) replaced
 * by `***`; a path as it is.
 */
export function redactLedgerLocation(text: string): string {
  if (!ANY_URL.test(text)) return text;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    // Not parseable: show the scheme alone rather than risk a secret.
    return `${ANY_URL.exec(text)![1]}://…`;
  }
  if (url.password !== '') url.password = '***';
  for (const key of [...url.searchParams.keys()]) {
    if (/^(password|passwd|pass|sslpassword)$/i.test(key)) url.searchParams.set(key, '***');
  }
  return url.toString();
}
