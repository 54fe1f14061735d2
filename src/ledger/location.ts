/**
 * Where a ledger lives, as `--ledger`, the config file's `ledger` and ORDER_BATCH_LEDGER give it
 * (PRODUCT.md section 8): a file path means SQLite, a `postgres://` or `postgresql://` URL means a
 * PostgreSQL database. Pure, so options.ts checks a location before anything is opened.
 */
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError } from '../errors.js';
import { redactUrl } from '../redact.js';

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

/** The location fit to print and log: a URL without its password (see redactUrl); a path as it is. */
export function redactLedgerLocation(text: string): string {
  return redactUrl(text);
}

/**
 * The folder for what a host keeps beside its ledger (the embedded sandbox's world, the web app's
 * uploads): a file's own folder; for a PostgreSQL ledger, shared by hosts, `.order-batch` here.
 */
export function localFolderOf(location: string): string {
  const where = parseLedgerLocation(location);
  return where.backend === 'sqlite' ? dirname(where.path) : LOCAL_FOLDER;
}

const LOCAL_FOLDER = '.order-batch';
