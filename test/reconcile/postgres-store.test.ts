/**
 * A PostgreSQL ledger has its package store on disk too, one per ledger address on each host: the
 * next run fetches only what changed, and the file's name holds no password (a hash of the address
 * shown without it, so a changed password keeps the store).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import type { TrackingQuery } from '../../src/api/types.js';
import { reconcile } from '../../src/reconcile/reconcile-run.js';
import { openLedger } from '../../src/ledger/index.js';
import { redactLedgerLocation } from '../../src/ledger/location.js';
import type { Ledger } from '../../src/ledger/types.js';
import { silentLogger } from '../../src/log.js';
import { expectOrderFromPayload } from '../../src/reconcile/expected.js';
import { packageStorePathForLedger } from '../../src/reconcile/package-store-sqlite.js';
import { APP_PASSWORD } from '../support/postgres/cluster.js';
import { describePostgres, ledgerUrl, useDatabase } from '../support/postgres/database.js';
import { at, nowAt, pkg, readOf, sentPayload } from './builders.js';
import { createFakeApi, type FakeApi } from './fake-api.js';
import { seedWorld } from './support.js';
import { useTempFolder } from '../support/temp-dir.js';

const dir = useTempFolder('reconcile-pg-store');

it('names the store of a PostgreSQL ledger by a hash of its address without the password', () => {
  const shown = { backend: 'postgres' as const, location: 'postgresql://ob:***@db.example/ledger' };
  const path = packageStorePathForLedger(shown, dir)!;
  expect(path).toMatch(new RegExp(`^${dir}/reconcile-[0-9a-f]{16}\\.db$`));
  expect(packageStorePathForLedger({ ...shown, location: 'postgresql://ob:***@db.example/other' }, dir)).not.toBe(path);
  expect(packageStorePathForLedger({ backend: 'postgres', location: 'postgresql://ob@db.example/ledger' })).toMatch(/^\.order-batch\/reconcile-[0-9a-f]{16}\.db$/);
  expect(packageStorePathForLedger({ backend: 'sqlite', location: ':memory:' })).toBeNull();
});

describePostgres('reconcile on a PostgreSQL ledger', () => {
  const database = useDatabase();

  async function seed(ledger: Ledger, api: FakeApi): Promise<void> {
    const payloads = Array.from({ length: 30 }, (_, i) => sentPayload(`PG-${String(i).padStart(2, '0')}`));
    await seedWorld({ api, ledger }, payloads, (api, payload) => {
      const id = payload.orderDetails.customerOrderId;
      api.orders.set(id, readOf(expectOrderFromPayload(payload), 'Shipped'));
      api.packages.set(`P-${id}`, pkg({ id: `P-${id}`, order: id, items: [{ line: 'L1', productId: 'PRD-1001', quantity: 1 }] }));
    });
  }

  it('keeps its packages in a file of this host, and the next run fetches only what changed since', async () => {
    const api = createFakeApi();
    const ledger = await openLedger(database.url);
    try {
      await seed(ledger, api);
      const folder = join(dir, 'host');
      const run = (hours: number) =>
        reconcile({ ledger, client: api, now: nowAt(hours), lateAfterDays: 3, out: join(dir, `pg-${hours}.xlsx`), logger: silentLogger, perOrderMax: 0, storeFolder: folder });
      const first = await run(24);
      expect(first.report.summary).toMatchObject({ shipped: 30 });
      const files = readdirSync(folder);
      expect(files).toEqual([expect.stringMatching(/^reconcile-[0-9a-f]{16}\.db$/)]);
      expect(files.join(' ')).not.toContain(encodeURIComponent(APP_PASSWORD));
      expect(join(folder, files[0]!)).toBe(packageStorePathForLedger(ledger, folder));
      // The same ledger reached with another password in its address: the same store.
      expect(packageStorePathForLedger({ backend: 'postgres', location: redactLedgerLocation(ledgerUrl(database.name, 'changed')) }, folder)).toBe(join(folder, files[0]!));

      const second = await run(48);
      expect(second.report.summary).toMatchObject({ shipped: 30 });
      const windows = api.callsOf('getTrackingUpdates').map((c) => (c.arg as Extract<TrackingQuery, { startDate: string }>).startDate);
      // The first run's whole window, then from its end less the hour of overlap.
      expect([...new Set(windows)]).toEqual([at(-1), at(23)]);
    } finally {
      await ledger.close();
    }
  });
});
