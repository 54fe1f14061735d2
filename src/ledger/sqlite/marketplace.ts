/** The marketplace lines and written confirmations of an SQLite ledger (types.ts). */
import type { Database } from 'better-sqlite3';
import { preparedOnce } from '../../sqlite/open-database.js';
import type { MarketplaceStore, StoredMarketplaceLine, WrittenConfirmation } from '../marketplace-types.js';
import { toLine, type LineRow, type WrittenRow } from '../marketplace-rows.js';

export const SQLITE_MARKETPLACE_TABLES = `
  CREATE TABLE marketplace_lines (
    customer_order_id     TEXT NOT NULL,
    customer_line_item_id TEXT NOT NULL,
    marketplace           TEXT NOT NULL,
    profile               TEXT NOT NULL,
    identifiers           TEXT NOT NULL,
    PRIMARY KEY (customer_order_id, customer_line_item_id)
  ) STRICT, WITHOUT ROWID;
  CREATE TABLE confirmations_written (
    file            TEXT NOT NULL,
    package_id      TEXT NOT NULL,
    tracking_number TEXT NOT NULL,
    written_at      TEXT NOT NULL,
    PRIMARY KEY (package_id, file, tracking_number)
  ) STRICT, WITHOUT ROWID;
`;

const toWritten = (r: WrittenRow): WrittenConfirmation => ({ file: r.file, packageId: r.package_id, trackingNumber: r.tracking_number, writtenAt: r.written_at });

export function createSqliteMarketplace(db: Database, now: () => Date): MarketplaceStore {
  const sql = preparedOnce(db);
  const insertLines = db.transaction((lines: readonly StoredMarketplaceLine[]) => {
    const insert = sql(
      `INSERT INTO marketplace_lines (customer_order_id, customer_line_item_id, marketplace, profile, identifiers) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (customer_order_id, customer_line_item_id) DO UPDATE SET marketplace = excluded.marketplace, profile = excluded.profile, identifiers = excluded.identifiers`,
    );
    for (const l of lines) insert.run(l.customerOrderId, l.customerLineItemId, l.marketplace, l.profile, JSON.stringify(l.identifiers));
  });
  return {
    async recordLines(lines) {
      insertLines(lines);
    },
    async linesOf(ids) {
      if (ids.length === 0) return [];
      // One statement whatever the number of ids (they travel as one JSON array), and one JSON text back:
      // a row object and a JSON.parse per line cost more than the lookup itself.
      const text = sql(
        `SELECT json_group_array(json_array(customer_order_id, customer_line_item_id, marketplace, profile, json(identifiers)))
         FROM marketplace_lines WHERE customer_order_id IN (SELECT value FROM json_each(?))`,
      ).pluck().get(JSON.stringify(ids)) as string;
      return (JSON.parse(text) as [string, string, string, string, Record<string, string>][]).map(([customerOrderId, customerLineItemId, marketplace, profile, identifiers]) => ({
        customerOrderId,
        customerLineItemId,
        marketplace,
        profile,
        identifiers,
      }));
    },
    async writtenOf(packageIds) {
      if (packageIds.length === 0) return new Set();
      // The keys writtenKey makes, built by SQLite: no row object per confirmation.
      const keys = sql(
        `SELECT file || char(0) || package_id || char(0) || tracking_number FROM confirmations_written WHERE package_id IN (SELECT value FROM json_each(?))`,
      ).pluck().all(JSON.stringify(packageIds)) as string[];
      return new Set(keys);
    },
    async recordWritten(entries) {
      if (entries.length === 0) return;
      // One statement for the batch, in key order (neighbouring B-tree pages, not one row's call each).
      sql(
        `INSERT OR IGNORE INTO confirmations_written (file, package_id, tracking_number, written_at)
         SELECT value ->> 0, value ->> 1, value ->> 2, coalesce(value ->> 3, ?) FROM json_each(?) ORDER BY 2, 1, 3`,
      ).run(now().toISOString(), JSON.stringify(entries.map((e) => (e.writtenAt ? [e.file, e.packageId, e.trackingNumber, e.writtenAt] : [e.file, e.packageId, e.trackingNumber]))));
    },
    async recordWrittenPackages(json) {
      sql(
        `INSERT OR IGNORE INTO confirmations_written (file, package_id, tracking_number, written_at)
         SELECT f.value, p.value ->> 0, p.value ->> 1, ? FROM json_each(?) p, json_each(p.value) f WHERE f.key >= 2 ORDER BY 2, 1, 3`,
      ).run(now().toISOString(), json);
    },
    async *allLines(batchSize) {
      let after: [string, string] = ['', ''];
      for (;;) {
        const rows = sql('SELECT * FROM marketplace_lines WHERE (customer_order_id, customer_line_item_id) > (?, ?) ORDER BY customer_order_id, customer_line_item_id LIMIT ?').all(after[0], after[1], batchSize) as LineRow[];
        if (rows.length === 0) return;
        const last = rows[rows.length - 1]!;
        after = [last.customer_order_id, last.customer_line_item_id];
        yield rows.map(toLine);
      }
    },
    async *allWritten(batchSize) {
      let after: [string, string, string] = ['', '', ''];
      for (;;) {
        const rows = sql('SELECT * FROM confirmations_written WHERE (package_id, file, tracking_number) > (?, ?, ?) ORDER BY package_id, file, tracking_number LIMIT ?').all(...after, batchSize) as WrittenRow[];
        if (rows.length === 0) return;
        const last = rows[rows.length - 1]!;
        after = [last.package_id, last.file, last.tracking_number];
        yield rows.map(toWritten);
      }
    },
  };
}
