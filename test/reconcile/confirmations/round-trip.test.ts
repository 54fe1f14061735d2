/**
 * The loop closed: marketplace exports imported with their built-in profiles into a sandbox, shipped
 * (split and replaced packages by seed), reconciled twice into a confirmations folder. Every shipped
 * item is confirmed once, in its marketplace's file; the second run adds only what is new.
 */
import { mkdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../../src/api/types.js';
import { runImportAt } from '../../support/run-import-at.js';
import { reconcile } from '../../../src/reconcile/reconcile-run.js';
import { openLedger } from '../../../src/ledger/index.js';
import type { Ledger } from '../../../src/ledger/types.js';
import { silentLogger } from '../../../src/log.js';
import { startSandbox, type SandboxHandle } from '../../../src/sandbox/index.js';
import { context, MARKETPLACE_FIXTURES, NOW } from '../../mapping/exports-support.js';
import { sandboxImportOptions } from '../../import/sandbox-import-options.js';
import { useTempFolder } from '../../support/temp-dir.js';
import { sandboxClient } from '../support.js';

const EXPORTS = ['amazon-order-report.txt', 'ebay-orders-report.csv', 'shopify-orders.csv', 'woocommerce-one-row-per-item.csv', 'etsy-sold-order-items.csv'];

const dir = useTempFolder('confirmations');
let sandbox: SandboxHandle;
let client: ApiClient;
let ledger: Ledger;

const at = (name: string) => join(dir, name);
const lines = (path: string) => readFileSync(path, 'utf8').split('\r\n').filter((l) => l !== '');

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, startTime: NOW, freezeClock: true, seed: 11, rates: { split: 0.6, replace: 0.4, cancel: 0 } });
  mkdirSync(at('imported'));
  const imported = await runImportAt(sandboxImportOptions(sandbox, { context, ledgerPath: at('ledger.db') }, { files: EXPORTS.map((f) => join(MARKETPLACE_FIXTURES, f)), out: at('imported') }));
  expect(imported.report.summary.accepted ?? 0).toBeGreaterThan(0);
  client = sandboxClient(sandbox, () => sandbox.now().getTime());
  ledger = await openLedger(at('ledger.db'), { now: () => sandbox.now() });
});

afterAll(async () => {
  await ledger?.close();
  await client?.close();
  await sandbox?.close();
});

const run = (name: string, extra: Partial<Parameters<typeof reconcile>[0]> = {}) =>
  reconcile({ ledger, client, now: sandbox.now(), since: new Date(NOW.getTime() - 86_400_000), lateAfterDays: 3, out: at(`${name}.xlsx`), confirmationsPath: at(name), logger: silentLogger, perOrderMax: 0, ...extra });

describe('confirmations of imported marketplace orders', () => {
  it("keeps each line's marketplace identifiers in the ledger, read with the built-in profile", async () => {
    const amazon = await ledger.marketplace.linesOf(['113-4567890-1234567']);
    expect(amazon.map((l) => l.identifiers.orderItemId).sort()).toEqual(['59686379847882', '59686379847883']);
    expect(amazon.every((l) => l.marketplace === 'amazon' && l.profile === 'amazon')).toBe(true);
  });

  it('confirms every shipped item once, in its marketplace file, and only new packages on the next run', async () => {
    sandbox.advanceClock(24 * 3);
    const first = await run('day3');
    const firstFiles = first.report.confirmationFiles ?? [];
    expect(firstFiles.map((f) => f.marketplace)).toContain('generic');
    const amazonFile = at('day3/amazon-shipping-confirmation.txt');
    if (existsSync(amazonFile)) expect(lines(amazonFile)[0]).toBe('order-id\torder-item-id\tquantity\tship-date\tcarrier-code\tcarrier-name\ttracking-number\tship-method');

    sandbox.advanceClock(24 * 10);
    const second = await run('day13');
    const orders = [...second.orders];
    const live = orders.flatMap((o) => o.packages.filter((p) => p.isLive && p.trackingNumber));
    const genericRows = [...lines(at('day3/confirmations.csv')).slice(1), ...lines(at('day13/confirmations.csv')).slice(1)];
    // Each live package once across both runs (a package replaced after the first run confirms its replacement's number in the second).
    for (const p of live) expect(genericRows.filter((r) => r.includes(p.trackingNumber!))).toHaveLength(1);

    // Per marketplace file, every shipped unit of each line once, across both runs.
    const amazonRows = ['day3', 'day13'].flatMap((d) => (existsSync(at(`${d}/amazon-shipping-confirmation.txt`)) ? lines(at(`${d}/amazon-shipping-confirmation.txt`)).slice(1) : []));
    const amazonOrders = orders.filter((o) => o.customerOrderId.startsWith('113-') || o.customerOrderId.startsWith('114-'));
    expect(amazonOrders.length).toBeGreaterThan(0);
    for (const o of amazonOrders) {
      for (const line of o.lines.filter((l) => !l.isAddedByNetwork && l.shipped > 0)) {
        const units = amazonRows.filter((r) => r.split('\t')[1] === line.customerLineItemId).reduce((n, r) => n + Number(r.split('\t')[2]), 0);
        expect(units).toBeGreaterThanOrEqual(line.shipped);
      }
    }
    const third = await run('day13-again');
    expect(lines(at('day13-again/confirmations.csv'))).toHaveLength(1);
    expect(third.report.confirmationFiles?.filter((f) => f.marketplace !== 'generic')).toEqual([]);
  });
});
