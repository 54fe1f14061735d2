/**
 * Opening a ledger wherever it lives (PRODUCT.md section 8): a file path is SQLite, a
 * postgres:// or postgresql:// URL is PostgreSQL. The one place that picks the backend.
 */
import { existsSync } from 'node:fs';
import { parseLedgerLocation } from './location.js';
import { openSqliteLedger } from './sqlite/sqlite-ledger.js';
import type { Ledger, LedgerOptions } from './types.js';

/** Opens (creating when needed) the ledger at `location`. Throws LedgerError (a UsageError) when it cannot be used. */
export async function openLedger(location: string, options: LedgerOptions = {}): Promise<Ledger> {
  const where = parseLedgerLocation(location);
  let ledger: Ledger;
  if (where.backend === 'sqlite') ledger = openSqliteLedger(where.path, options);
  else {
    // Loaded only for a PostgreSQL ledger: the SQLite default does not pay for the client's start-up.
    const { openPostgresLedger } = await import('./postgres/postgres-ledger.js');
    ledger = await openPostgresLedger(where.url, options);
  }
  // Said at debug level: an entry point opens its ledger once per run, and the log shows it.
  options.logger?.debug({ ledger: ledger.location }, 'ledger opened');
  return ledger;
}

/**
 * Whether a ledger is there to be read without creating one: an SQLite file that exists; a
 * PostgreSQL database always counts (opening it says when it cannot be used).
 */
export function ledgerExists(location: string): boolean {
  const where = parseLedgerLocation(location);
  return where.backend === 'postgres' || where.path === ':memory:' || existsSync(where.path);
}
