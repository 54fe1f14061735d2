/**
 * The persistent PackageStore: a SQLite file per ledger, beside a ledger file
 * (`<ledger file name>.reconcile.db`), or for a PostgreSQL ledger in this host's local folder. It is a
 * cache of what the API said, never the only copy of anything: a file of an unknown version is
 * emptied and rebuilt (the next run fetches the whole window), never migrated.
 */
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { type Ledger, localFolderOf } from '../ledger/index.js';
import type Database from 'better-sqlite3';
import { openDatabase, readPragma } from '../sqlite/open-database.js';
import type { OrderRead, PackageRecord } from '../contract/schemas.js';
import { newestUpdate, normaliseInstant, type Coverage, type PackageStore, type StoredOrderRead } from './package-store.js';
import type { RollUpStatus } from './types.js';

const SCHEMA_VERSION = 1;

/**
 * Where reconcile keeps its store for a ledger file: `a.db` -> `a.db.reconcile.db` beside it. Named
 * after the whole file name, so two ledgers in one folder (each bound to its own API) never share a
 * store, and `a.db` and `a.sqlite` do not collide either. The `reconcile.db` that all ledgers of a
 * folder once shared is simply left unused: being a cache, the first run per ledger fetches its
 * whole window again.
 */
export function packageStorePathFor(ledgerPath: string): string {
  return join(dirname(ledgerPath), `${basename(ledgerPath)}.reconcile.db`);
}

/**
 * Where reconcile keeps its store for a ledger; null for a ledger in memory (nothing to remember for).
 * A PostgreSQL ledger is shared by hosts, each with a store of its own (a store and the ledger's
 * watermark that disagree make a run fetch its whole window: safe): `reconcile-<hash>.db` in `folder`,
 * default the host's local folder for that ledger (`.order-batch` here). The name is a hash of the
 * ledger's address as it is shown, without its password: no secret is in a file name, and a
 * password changed keeps the store.
 */
export function packageStorePathForLedger(ledger: Pick<Ledger, 'backend' | 'location'>, folder?: string): string | null {
  if (ledger.backend === 'sqlite') return ledger.location === ':memory:' ? null : packageStorePathFor(ledger.location);
  const name = createHash('sha256').update(ledger.location).digest('hex').slice(0, 16);
  return join(folder ?? localFolderOf(ledger.location), `reconcile-${name}.db`);
}

function createSchema(db: Database.Database): void {
  if ((readPragma(db, 'user_version') as number) !== SCHEMA_VERSION) {
    db.exec('DROP TABLE IF EXISTS order_packages; DROP TABLE IF EXISTS orders; DROP TABLE IF EXISTS meta;');
  }
  db.exec(`
    CREATE TABLE IF NOT EXISTS order_packages (
      customer_order_id TEXT PRIMARY KEY,
      newest_update     TEXT NOT NULL,
      json              TEXT NOT NULL
    ) STRICT;
    CREATE INDEX IF NOT EXISTS order_packages_by_update ON order_packages (newest_update);
    CREATE TABLE IF NOT EXISTS orders (
      customer_order_id TEXT PRIMARY KEY,
      json              TEXT,
      status            TEXT NOT NULL,
      read_at           TEXT NOT NULL
    ) STRICT;
    CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
  `);
  db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
}

export function openSqlitePackageStore(path: string): PackageStore {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = openDatabase(path, { timeout: 5_000 });
  try {
    db.exec('PRAGMA journal_mode = WAL');
    // A cache: a commit lost to a power cut is fetched again next run.
    db.exec('PRAGMA synchronous = NORMAL');
    createSchema(db);
  } catch (error) {
    db.close();
    throw error;
  }

  const upsertPackages = db.prepare<[string, string, string]>(
    `INSERT INTO order_packages (customer_order_id, newest_update, json) VALUES (?, ?, ?)
     ON CONFLICT (customer_order_id) DO UPDATE SET newest_update = excluded.newest_update, json = excluded.json`,
  );
  const selectPackages = db.prepare<[string], string>('SELECT json FROM order_packages WHERE customer_order_id = ?').pluck();
  const ordersUpdatedSince = db.prepare<[string], string>('SELECT customer_order_id FROM order_packages WHERE newest_update >= ?').pluck();
  const upsertOrder = db.prepare<[string, string | null, string, string]>(
    `INSERT INTO orders (customer_order_id, json, status, read_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (customer_order_id) DO UPDATE SET json = excluded.json, status = excluded.status, read_at = excluded.read_at`,
  );
  const selectOrder = db.prepare<[string], { json: string | null; status: string; read_at: string }>('SELECT json, status, read_at FROM orders WHERE customer_order_id = ?');
  const countOrders = db.prepare<[], number>('SELECT count(*) FROM orders').pluck();
  const selectAllOrders = db.prepare<[], { customer_order_id: string; json: string | null; status: string; read_at: string }>(
    'SELECT customer_order_id, json, status, read_at FROM orders',
  );
  const selectMeta = db.prepare<[string], string>('SELECT value FROM meta WHERE key = ?').pluck();
  const upsertMeta = db.prepare<[string, string]>('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
  const deleteMeta = db.prepare<[string]>('DELETE FROM meta WHERE key = ?');

  const putPackages = db.transaction((entries: Iterable<[string, readonly PackageRecord[]]>) => {
    for (const [id, records] of entries) upsertPackages.run(id, newestUpdate(records), JSON.stringify(records));
  });
  const putReads = db.transaction((entries: Iterable<[string, StoredOrderRead]>) => {
    for (const [id, entry] of entries) upsertOrder.run(id, entry.read === null ? null : JSON.stringify(entry.read), entry.status, entry.readAt);
  });

  const toStoredRead = (row: { json: string | null; status: string; read_at: string }): StoredOrderRead => ({
    read: row.json === null ? null : (JSON.parse(row.json) as OrderRead),
    status: row.status as RollUpStatus,
    readAt: row.read_at,
  });
  const getOrderRead = (customerOrderId: string): StoredOrderRead | undefined => {
    const row = selectOrder.get(customerOrderId);
    return row ? toStoredRead(row) : undefined;
  };

  return {
    isPersistent: path !== ':memory:',
    putOrderPackages: (entries) => putPackages(entries),
    packagesOf(customerOrderId) {
      const json = selectPackages.get(customerOrderId);
      return json === undefined ? [] : (JSON.parse(json) as PackageRecord[]);
    },
    orderIdsUpdatedSince: (sinceIso) => ordersUpdatedSince.all(normaliseInstant(sinceIso)),
    putOrderReads: (entries) => putReads(entries),
    getOrderRead,
    getOrderReads(customerOrderIds) {
      const out = new Map<string, StoredOrderRead | undefined>(customerOrderIds.map((id) => [id, undefined]));
      // A lookup per id costs more than one pass over the table once the ids are a fair share of it
      // (a first run asks about every selected order of an empty table).
      if (customerOrderIds.length * 4 < countOrders.get()!) {
        for (const id of customerOrderIds) out.set(id, getOrderRead(id));
        return out;
      }
      for (const row of selectAllOrders.iterate()) if (out.has(row.customer_order_id)) out.set(row.customer_order_id, toStoredRead(row));
      return out;
    },
    getCoverage(): Coverage | null {
      const value = selectMeta.get('coverage');
      return value === undefined ? null : (JSON.parse(value) as Coverage);
    },
    setCoverage(coverage) {
      if (coverage === null) deleteMeta.run('coverage');
      else upsertMeta.run('coverage', JSON.stringify(coverage));
    },
    close() {
      if (db.open) db.close();
    },
  };
}
