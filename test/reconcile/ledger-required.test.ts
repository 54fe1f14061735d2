/**
 * reconcile reads a ledger; it never starts one. A mistyped --ledger used to create an empty ledger
 * and report "0 orders", exit 0. --orders and --all name their orders themselves and work without one.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runReconcileAt, type ReconcileAtOptions } from '../support/run-reconcile-at.js';
import { UsageError } from '../../src/errors.js';
import { openLedger } from '../../src/ledger/index.js';
import { silentLogger } from '../../src/log.js';
import { expected, nowAt, pkg, readOf } from './builders.js';
import { createFakeApi, type FakeApi } from './fake-api.js';
import { useTempFolder } from '../support/temp-dir.js';

const dir = useTempFolder('reconcile-ledger-required');

function apiWith(ids: string[]): FakeApi {
  const api = createFakeApi();
  for (const id of ids) {
    api.orders.set(id, readOf(expected(id, [{ id: 'L1', productId: 'PRD-1001', quantity: 1 }]), 'Shipped'));
    api.packages.set(`P-${id}`, pkg({ id: `P-${id}`, order: id, items: [{ line: 'L1', productId: 'PRD-1001', quantity: 1 }] }));
  }
  return api;
}

function options(api: FakeApi, extra: Partial<ReconcileAtOptions>): ReconcileAtOptions {
  return {
    connection: { auth: 'oauth' },
    useSandbox: false,
    ledgerPath: join(dir, 'ledger.db'),
    now: nowAt(48),
    isNowPinned: true,
    concurrency: 2,
    maxAttempts: 2,
    lateAfterDays: 3,
    logger: silentLogger,
    connectionOverride: { client: api, baseUrl: 'http://api.example', isSandbox: false, close: async () => {} },
    ...extra,
  };
}

describe('reconcile and its ledger', () => {
  it('stops with a usage error naming a ledger path where there is no file, and creates none', async () => {
    const typo = join(dir, 'typo.db');
    const api = apiWith(['A-1']);
    const error = await runReconcileAt(options(api, { ledgerPath: typo, out: join(dir, 'typo.xlsx') })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toContain(`There is no ledger at ${typo}`);
    expect((error as Error).message).toContain('import creates it');
    expect((error as Error).message).toMatch(/--orders <result file> or --all/);
    expect(existsSync(typo)).toBe(false);
    expect(existsSync(join(dir, 'typo.xlsx'))).toBe(false);
    expect(api.calls).toEqual([]);
  });

  it('reads a ledger that exists, even an empty one', async () => {
    const path = join(dir, 'empty.db');
    await (await openLedger(path)).close();
    const result = await runReconcileAt(options(apiWith([]), { ledgerPath: path, out: join(dir, 'empty.xlsx') }));
    expect(result.report.orders).toEqual([]);
  });

  it('works with --all where the ledger does not exist, and creates none', async () => {
    const path = join(dir, 'all', 'ledger.db');
    const result = await runReconcileAt(options(apiWith(['B-1', 'B-2']), { ledgerPath: path, all: true, out: join(dir, 'all.xlsx') }));
    // A fresh ledger never sent them: the API's orders are there, as unknown orders.
    expect(result.orders.map((o) => o.customerOrderId)).toEqual(['B-1', 'B-2']);
    expect(existsSync(path)).toBe(false);
  });
});
