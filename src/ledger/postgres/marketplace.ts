/** The marketplace lines and written confirmations of a PostgreSQL ledger (types.ts), shared by every host. */
import type { TeamContext } from './team-accounts.js';
import { writtenKey, type MarketplaceStore, type WrittenConfirmation } from '../marketplace-types.js';
import { toLine, type LineRow, type WrittenRow } from '../marketplace-rows.js';

export const POSTGRES_MARKETPLACE_MIGRATION = {
  name: '0006-marketplace-lines',
  sql: `
    -- Per order line read with a marketplace profile, the identifiers the marketplace knows it by (the
    -- SQLite ledger has the same tables), and which package went into which confirmation file.
    CREATE TABLE marketplace_lines (
      customer_order_id     text COLLATE "C" NOT NULL,
      customer_line_item_id text COLLATE "C" NOT NULL,
      marketplace           text NOT NULL,
      profile               text NOT NULL,
      identifiers           text NOT NULL,
      PRIMARY KEY (customer_order_id, customer_line_item_id)
    );
    CREATE TABLE confirmations_written (
      file            text COLLATE "C" NOT NULL,
      package_id      text COLLATE "C" NOT NULL,
      tracking_number text COLLATE "C" NOT NULL,
      written_at      timestamptz NOT NULL,
      PRIMARY KEY (package_id, file, tracking_number)
    );
  `,
};

export function createPostgresMarketplace({ query, now }: TeamContext): MarketplaceStore {
  return {
    async recordLines(lines) {
      if (lines.length === 0) return;
      await query(
        `INSERT INTO marketplace_lines (customer_order_id, customer_line_item_id, marketplace, profile, identifiers)
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[])
         ON CONFLICT (customer_order_id, customer_line_item_id) DO UPDATE SET marketplace = excluded.marketplace, profile = excluded.profile, identifiers = excluded.identifiers`,
        [lines.map((l) => l.customerOrderId), lines.map((l) => l.customerLineItemId), lines.map((l) => l.marketplace), lines.map((l) => l.profile), lines.map((l) => JSON.stringify(l.identifiers))],
      );
    },
    async linesOf(ids) {
      if (ids.length === 0) return [];
      const { rows } = await query<LineRow>('SELECT * FROM marketplace_lines WHERE customer_order_id = ANY($1::text[])', [ids]);
      return rows.map(toLine);
    },
    async writtenOf(packageIds) {
      if (packageIds.length === 0) return new Set();
      const { rows } = await query<WrittenRow>('SELECT file, package_id, tracking_number FROM confirmations_written WHERE package_id = ANY($1::text[])', [packageIds]);
      return new Set(rows.map((r) => writtenKey(r.file, r.package_id, r.tracking_number)));
    },
    async recordWritten(entries) {
      if (entries.length === 0) return;
      const at = now().toISOString();
      await query(
        `INSERT INTO confirmations_written (file, package_id, tracking_number, written_at)
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[]) ON CONFLICT DO NOTHING`,
        [entries.map((e) => e.file), entries.map((e) => e.packageId), entries.map((e) => e.trackingNumber), entries.map((e) => e.writtenAt ?? at)],
      );
    },
    async recordWrittenPackages(json) {
      await query(
        `INSERT INTO confirmations_written (file, package_id, tracking_number, written_at)
         SELECT f.file, p.value ->> 0, p.value ->> 1, $2::timestamptz
         FROM jsonb_array_elements($1::jsonb) p, jsonb_array_elements_text(p.value) WITH ORDINALITY f(file, n) WHERE f.n > 2
         ON CONFLICT DO NOTHING`,
        [json, now().toISOString()],
      );
    },
    async *allLines(batchSize) {
      let after = ['', ''];
      for (;;) {
        const { rows } = await query<LineRow>(
          'SELECT * FROM marketplace_lines WHERE (customer_order_id, customer_line_item_id) > ($1, $2) ORDER BY customer_order_id, customer_line_item_id LIMIT $3',
          [after[0], after[1], batchSize],
        );
        if (rows.length === 0) return;
        const last = rows[rows.length - 1]!;
        after = [last.customer_order_id, last.customer_line_item_id];
        yield rows.map(toLine);
      }
    },
    async *allWritten(batchSize) {
      let after = ['', '', ''];
      for (;;) {
        const { rows } = await query<WrittenRow>(
          `SELECT file, package_id, tracking_number, to_json(written_at)#>>'{}' AS written_at FROM confirmations_written
           WHERE (package_id, file, tracking_number) > ($1, $2, $3) ORDER BY package_id, file, tracking_number LIMIT $4`,
          [...after, batchSize],
        );
        if (rows.length === 0) return;
        const last = rows[rows.length - 1]!;
        after = [last.package_id, last.file, last.tracking_number];
        yield rows.map((r): WrittenConfirmation => ({ file: r.file, packageId: r.package_id, trackingNumber: r.tracking_number, writtenAt: new Date(r.written_at).toISOString() }));
      }
    },
  };
}
