/**
 * Two ledgers in one folder, each bound to its own API: reconcile keeps one package store per
 * ledger file, so neither run sees the other's orders, packages or tracking coverage.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runReconcileAt } from '../support/run-reconcile-at.js';
import { openLedger } from '../../src/ledger/index.js';
import { silentLogger } from '../../src/log.js';
import { expectOrderFromPayload } from '../../src/reconcile/expected.js';
import { packageStorePathFor } from '../../src/reconcile/package-store-sqlite.js';
import { nowAt, pkg, readOf, sentPayload } from './builders.js';
import { createFakeApi, type FakeApi } from './fake-api.js';
import { seedWorld } from './support.js';
import { useTempFolders } from '../support/temp-dir.js';

const newDir = useTempFolders('reconcile-two-ledgers');

/** A ledger file holding `count` accepted orders `<prefix>-nn`, all shipped by its own fake API. */
async function ledgerWithApi(path: string, prefix: string, count: number): Promise<FakeApi> {
  const api = createFakeApi();
  const ledger = await openLedger(path);
  const payloads = Array.from({ length: count }, (_, i) => sentPayload(`${prefix}-${String(i).padStart(2, '0')}`));
  await seedWorld({ api, ledger }, payloads, (api, p) => {
    const id = p.orderDetails.customerOrderId;
    api.orders.set(id, readOf(expectOrderFromPayload(p), 'Shipped'));
    api.packages.set(`P-${id}`, pkg({ id: `P-${id}`, order: id, tracking: `TRK-${id}`, items: [{ line: 'L1', productId: 'PRD-1001', quantity: 1 }] }));
  });
  await ledger.close();
  return api;
}

function runOn(dir: string, ledgerFile: string, api: FakeApi, hours: number) {
  return runReconcileAt({
    connection: { auth: 'oauth' },
    useSandbox: false,
    ledgerPath: join(dir, ledgerFile),
    now: nowAt(hours),
    isNowPinned: true,
    out: join(dir, `${ledgerFile}-${hours}.xlsx`),
    confirmationsPath: join(dir, `${ledgerFile}-${hours}.csv`),
    concurrency: 4,
    maxAttempts: 2,
    lateAfterDays: 3,
    logger: silentLogger,
    connectionOverride: { client: api, baseUrl: `http://${ledgerFile}.example`, isSandbox: false, close: async () => {} },
  });
}

describe('two ledgers in one folder', () => {
  it('each keep their own package store: neither report holds the other ledger orders or packages', async () => {
    const dir = newDir();
    // More orders than are read one by one: tracking updates, the store and its coverage all come into play.
    const apiA = await ledgerWithApi(join(dir, 'a.db'), 'A', 30);
    const apiB = await ledgerWithApi(join(dir, 'b.db'), 'B', 29);

    const a = await runOn(dir, 'a.db', apiA, 24);
    const b = await runOn(dir, 'b.db', apiB, 25);
    // Once more each, now that both stores hold a run's worth.
    const a2 = await runOn(dir, 'a.db', apiA, 26);

    for (const [result, own, other, count] of [
      [a, 'A-', 'B-', 30],
      [b, 'B-', 'A-', 29],
      [a2, 'A-', 'B-', 30],
    ] as const) {
      const ids = result.orders.map((o) => o.customerOrderId);
      expect(ids.filter((id) => id.startsWith(other))).toEqual([]);
      expect(result.orders.flatMap((o) => o.trackingNumbers).filter((t) => !t.startsWith(`TRK-${own}`))).toEqual([]);
      expect(result.orders.flatMap((o) => o.exceptions.map((e) => e.type))).not.toContain('unknown_order');
      expect(result.report.summary).toMatchObject({ shipped: count });
      expect(result.hasExceptions).toBe(false);
    }
    expect(readFileSync(join(dir, 'b.db-25.csv'), 'utf8')).not.toContain('A-');
    expect(readFileSync(join(dir, 'a.db-26.csv'), 'utf8')).not.toContain('B-');
    expect(existsSync(packageStorePathFor(join(dir, 'a.db')))).toBe(true);
    expect(existsSync(packageStorePathFor(join(dir, 'b.db')))).toBe(true);
  });
});
