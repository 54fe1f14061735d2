/** `ledger copy` on an SQLite ledger file: read-only in one read transaction, or written in one transaction under the run lock. */
import { toStoredToken, type StoredToken, type TokenRow } from '../token-types.js';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type Database from 'better-sqlite3';
import { LedgerError } from '../errors.js';
import { type OrderRow, toRecord } from '../order-row.js';
import { orderDateColumn } from '../intent-columns.js';
import { MIGRATIONS, readSchemaVersion } from '../sqlite/schema.js';
import { openDatabase } from '../../sqlite/open-database.js';
import { openSqliteLedger } from '../sqlite/sqlite-ledger.js';
import { toRun, type RunRow } from '../run-row.js';
import { createSqliteMarketplace } from '../sqlite/marketplace.js';
import type { LedgerOptions } from '../types.js';
import type { StoredUser } from '../team-types.js';
import { mappingsOfUnmigrated, toMapping, type MappingRow } from '../mapping-rows.js';
import { auditValues, toAudit, toUser, type AuditRow, type UserRow } from '../team-rows.js';
import { auditKey, withoutSeq } from './decide.js';
import { leasedKey, leasedRowOf, selectLeasedSql, upsertLeasedSql, type LeasedTable } from './leased-rows.js';
import type { CopiedAudit, CopiedOrder, CopySource, CopyTarget, NamedValue, TargetOrder } from './types.js';

function toCopied(row: OrderRow): CopiedOrder {
  const record = toRecord(row);
  // Orders recorded before the order_date column (schema version 2) have theirs in the payload only.
  const orderDate = row.order_date ?? orderDateColumn(record.payload.orderDetails?.orderDate);
  return { ...record, payloadJson: row.payload, orderDate };
}

function hasTable(db: Database.Database, name: string): boolean {
  return db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(name) !== undefined;
}

function namedValues(db: Database.Database, table: 'settings' | 'watermarks'): NamedValue[] {
  if (!hasTable(db, table)) return [];
  return (db.prepare(`SELECT name, value, updated_at FROM ${table} ORDER BY name`).all() as { name: string; value: string; updated_at: string }[]).map((r) => ({
    name: r.name,
    value: r.value,
    updatedAt: r.updated_at,
  }));
}

export async function openSqliteSource(path: string): Promise<CopySource> {
  const location = resolve(path);
  if (!existsSync(location)) throw new LedgerError(location, `There is no ledger at ${location}: nothing to copy.`);
  let db: Database.Database;
  try {
    db = openDatabase(location, { readonly: true, fileMustExist: true });
    const version = readSchemaVersion(db);
    if (version === 0) throw new LedgerError(location, `The file ${location} is not an order-batch ledger: there is nothing to copy.`);
    if (version > MIGRATIONS.length) throw new LedgerError(location, `The ledger ${location} was written by a newer order-batch: upgrade order-batch to copy it.`);
    // One read transaction: every table as of one instant, whatever a run writes meanwhile.
    db.exec('BEGIN');
  } catch (error) {
    if (error instanceof LedgerError) throw error;
    const code = (error as { code?: string }).code;
    throw new LedgerError(location, code === 'SQLITE_NOTADB' ? `The file ${location} is not an order-batch ledger (not an SQLite database).` : `Cannot read the ledger ${location}: ${(error as Error).message}`, { cause: error });
  }
  return {
    location,
    async *orders(batchSize) {
      const page = db.prepare('SELECT * FROM orders WHERE customer_order_id > ? ORDER BY customer_order_id LIMIT ?');
      let after = '';
      for (;;) {
        const rows = page.all(after, batchSize) as OrderRow[];
        if (rows.length > 0) yield rows.map(toCopied);
        if (rows.length < batchSize) return;
        after = rows.at(-1)!.customer_order_id;
      }
    },
    runs: async () => (db.prepare('SELECT * FROM runs ORDER BY seq').all() as RunRow[]).map(toRun),
    settings: async () => (hasTable(db, 'mappings') ? namedValues(db, 'settings') : mappingsOfUnmigrated(namedValues(db, 'settings')).settings),
    watermarks: async () => namedValues(db, 'watermarks'),
    mappings: async () =>
      hasTable(db, 'mappings') ? (db.prepare('SELECT * FROM mappings ORDER BY name').all() as MappingRow[]).map(toMapping) : mappingsOfUnmigrated(namedValues(db, 'settings')).mappings,
    tokens: async () => (hasTable(db, 'api_tokens') ? (db.prepare('SELECT * FROM api_tokens ORDER BY label').all() as TokenRow[]).map(toStoredToken) : []),
    marketplace: async () => (hasTable(db, 'marketplace_lines') ? createSqliteMarketplace(db, () => new Date()) : null),
    users: async () => (hasTable(db, 'users') ? (db.prepare('SELECT * FROM users ORDER BY name').all() as UserRow[]).map(toUser) : []),
    async *audit(batchSize) {
      if (!hasTable(db, 'audit')) return;
      const page = db.prepare('SELECT * FROM audit WHERE seq > ? ORDER BY seq LIMIT ?');
      for (let after = 0; ; ) {
        const rows = page.all(after, batchSize) as AuditRow[];
        if (rows.length > 0) yield rows.map((row) => withoutSeq(toAudit(row)));
        if (rows.length < batchSize) return;
        after = Number(rows.at(-1)!.seq);
      }
    },
    leasedRows: async (table) => (hasTable(db, table.table) ? readLeased(db, table) : []),
    close: async () => {
      if (db.inTransaction) db.exec('ROLLBACK');
      db.close();
    },
  };
}

function readLeased(db: Database.Database, table: LeasedTable) {
  return (db.prepare(selectLeasedSql(table)).all() as Record<string, unknown>[]).map((row) => leasedRowOf(table, row));
}

const ORDER_COLUMNS = [
  'customer_order_id', 'payload_hash', 'payload', 'state', 'attempts', 'http_status', 'request_id', 'message', 'recorded_at',
  'first_submitted_at', 'submitted_at', 'updated_at', 'run_id', 'source_file', 'source_sha256', 'source_rows', 'marketplace_order_id',
  'source_of_sale', 'order_date',
];

export async function openSqliteTarget(path: string, options: LedgerOptions): Promise<CopyTarget> {
  // Opening as a ledger creates or upgrades the file; its run lock keeps runs out while the copy writes.
  const ledger = openSqliteLedger(path, { logger: options.logger });
  let lock;
  try {
    lock = await ledger.acquireRunLock({ command: 'ledger copy' });
  } catch (error) {
    await ledger.close();
    throw error;
  }
  const location = ledger.location;
  const db = openDatabase(location, { timeout: 5_000 });
  db.exec('BEGIN IMMEDIATE');
  const upsertOrder = db.prepare(
    `INSERT INTO orders (${ORDER_COLUMNS.join(', ')}) VALUES (${ORDER_COLUMNS.map(() => '?').join(', ')})
     ON CONFLICT (customer_order_id) DO UPDATE SET ${ORDER_COLUMNS.slice(1).map((c) => `${c} = excluded.${c}`).join(', ')}`,
  );
  const upsertRun = db.prepare(
    `INSERT INTO runs (run_id, command, files, started_at, finished_at, summary, result_files, pid, host) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (run_id) DO UPDATE SET finished_at = excluded.finished_at, summary = excluded.summary, result_files = excluded.result_files`,
  );
  const upsertNamed = (table: 'settings' | 'watermarks', values: readonly NamedValue[]) => {
    const statement = db.prepare(`INSERT INTO ${table} (name, value, updated_at) VALUES (?, ?, ?)
      ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`);
    for (const v of values) statement.run(v.name, v.value, v.updatedAt);
  };
  const end = async () => {
    db.close();
    await lock.release();
    await ledger.close();
  };
  return {
    location,
    async findOrders(ids) {
      const found = new Map<string, TargetOrder>();
      const one = db.prepare('SELECT * FROM orders WHERE customer_order_id = ?');
      for (const id of ids) {
        const row = one.get(id) as OrderRow | undefined;
        if (!row) continue;
        const record = toRecord(row);
        found.set(id, { payloadHash: record.payloadHash, state: record.state, updatedAt: record.updatedAt, isHeldByLiveRun: false, record });
      }
      return found;
    },
    async writeOrders(orders) {
      for (const o of orders) {
        upsertOrder.run(o.customerOrderId, o.payloadHash, o.payloadJson, o.state, o.attempts, o.httpStatus, o.requestId, o.message, o.recordedAt,
          o.firstSubmittedAt, o.submittedAt, o.updatedAt, o.runId, o.sourceFile, o.sourceSha256, JSON.stringify(o.sourceRows), o.marketplaceOrderId,
          o.sourceOfSale, o.orderDate);
      }
    },
    runs: async () => new Map((db.prepare('SELECT * FROM runs').all() as RunRow[]).map((row) => [row.run_id, toRun(row)])),
    async writeRuns(runs) {
      for (const r of runs) {
        upsertRun.run(r.runId, r.command, JSON.stringify(r.files), r.startedAt, r.finishedAt, r.finishedAt === null && r.summary === null ? null : JSON.stringify(r.summary), JSON.stringify(r.resultFiles), r.pid, r.host);
      }
    },
    settings: async () => new Map(namedValues(db, 'settings').map((v) => [v.name, v])),
    writeSettings: async (values) => upsertNamed('settings', values),
    watermarks: async () => new Map(namedValues(db, 'watermarks').map((v) => [v.name, v])),
    writeWatermarks: async (values) => upsertNamed('watermarks', values),
    users: async () => new Map((db.prepare('SELECT * FROM users').all() as UserRow[]).map((row) => [row.name, toUser(row)])),
    async writeUsers(users: readonly StoredUser[]) {
      const insert = db.prepare('INSERT INTO users (name, role, password_hash, is_disabled, created_at, updated_at, email) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (name) DO NOTHING');
      for (const u of users) insert.run(u.name, u.role, u.passwordHash, u.isDisabled ? 1 : 0, u.createdAt, u.updatedAt, u.email);
    },
    tokenLabels: async () => new Set(db.prepare('SELECT label FROM api_tokens').pluck().all() as string[]),
    async writeTokens(tokens: readonly StoredToken[]) {
      const insert = db.prepare('INSERT INTO api_tokens (label, token_hash, user_name, created_by, created_at, expires_at, last_used_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING');
      for (const t of tokens) insert.run(t.label, t.tokenHash, t.userName, t.createdBy, t.createdAt, t.expiresAt, t.lastUsedAt);
    },
    auditKeys: async () => new Set((db.prepare('SELECT * FROM audit').all() as AuditRow[]).map((row) => auditKey(withoutSeq(toAudit(row))))),
    async writeAudit(entries: readonly CopiedAudit[]) {
      const insert = db.prepare('INSERT INTO audit (at, actor, via, address, action, file_name, file_sha256, counts, ref, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
      for (const e of entries) insert.run(...auditValues(e, new Date(e.at)));
    },
    mappings: async () => new Map((db.prepare('SELECT * FROM mappings').all() as MappingRow[]).map((row) => [row.name, toMapping(row)])),
    async writeMappings(mappings) {
      const upsert = db.prepare(`INSERT INTO mappings (name, profile, saved_by, saved_at) VALUES (?, ?, ?, ?)
        ON CONFLICT (name) DO UPDATE SET profile = excluded.profile, saved_by = excluded.saved_by, saved_at = excluded.saved_at`);
      for (const m of mappings) upsert.run(m.name, m.profile, m.savedBy, m.savedAt);
    },
    marketplace: createSqliteMarketplace(db, () => new Date()),
    leasedRows: async (table) => new Map(readLeased(db, table).map((row) => [leasedKey(table, row), row])),
    async writeLeasedRows(table, rows) {
      const upsert = db.prepare(upsertLeasedSql(table, () => '?'));
      for (const row of rows) upsert.run(...table.columns.map((c) => row[c]));
    },
    async commit() {
      db.exec('COMMIT');
      await end();
    },
    async rollback() {
      if (db.open && db.inTransaction) db.exec('ROLLBACK');
      if (db.open) await end();
    },
  };
}
