/**
 * Reconcile against the real sandbox after moving its clock: orders created through the API
 * client and recorded in a ledger file, fulfilled with splits, bundles, replacements and
 * cancellations, and the result checked against what the sandbox shipped (read back directly).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import type { ApiClient } from '../../src/api/types.js';
import type { CreateOrderPayload, PackageRecord } from '../../src/contract/schemas.js';
import { openLedger } from '../../src/ledger/index.js';
import type { Ledger } from '../../src/ledger/types.js';
import { silentLogger } from '../../src/log.js';
import { reconcile } from '../../src/reconcile/reconcile-run.js';
import { createMemoryPackageStore } from '../../src/reconcile/package-store.js';
import { CATALOGUE_IDS, startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { buildOrderPayload } from '../support/order-payload.js';
import { useTempFolder } from '../support/temp-dir.js';
import { sandboxClient } from './support.js';

const ORDERS = 40;
const START = '2031-05-04T08:00:00.000Z';
let sandbox: SandboxHandle;
let client: ApiClient;
let ledger: Ledger;
const dir = useTempFolder('reconcile-e2e');

function payload(n: number, orderDate: string): CreateOrderPayload {
  const products = [...CATALOGUE_IDS.samples, ...CATALOGUE_IDS.bundles];
  const lines = Array.from({ length: 1 + (n % 3) }, (_, i) => ({
    productId: products[(n * 7 + i * 5) % products.length]!,
    quantity: 1 + ((n + i) % 4),
    unitPrice: 12.5,
    discount: i === 0 ? 2.5 : 0,
  }));
  return buildOrderPayload(`E2E-${String(n).padStart(3, '0')}`, { orderDate, lines, salesTax: 1.25, carrierId: n % 2 === 0 ? 'CarrierXGround' : 'CarrierX2Day' });
}

beforeAll(async () => {
  sandbox = await startSandbox({ startTime: START, freezeClock: true, seed: 7, rates: { split: 0.5, replace: 0.3, cancel: 0.15 } });
  client = sandboxClient(sandbox, () => sandbox.now().getTime());
  ledger = await openLedger(join(dir, 'ledger.db'), { now: () => sandbox.now() });
  const seeding = await ledger.startRun({ command: 'import', files: [] });
  for (let n = 0; n < ORDERS; n++) {
    const p = payload(n, sandbox.now().toISOString());
    await seeding.recordIntent({ payload: p });
    await seeding.markSending(p.orderDetails.customerOrderId);
    const created = await client.createOrder(p);
    expect(created.status).toBe(201);
    await seeding.markAccepted(p.orderDetails.customerOrderId, { submittedAt: sandbox.now() });
    sandbox.advanceClock(0.05);
  }
  await seeding.finish({ summary: {} });
});

afterAll(async () => {
  await ledger?.close();
  await client?.close();
  await sandbox?.close();
});

const run = (name: string, extra: Partial<Parameters<typeof reconcile>[0]> = {}) =>
  reconcile({ ledger, client, now: sandbox.now(), lateAfterDays: 3, out: join(dir, `${name}.xlsx`), logger: silentLogger, perOrderMax: 0, ...extra });

describe('reconcile against the sandbox', () => {
  it('sees orders waiting before anything shipped', async () => {
    const out = await run('early');
    expect(out.report.summary.waiting).toBe(ORDERS);
    expect(out.orders.every((o) => o.trackingNumbers.length === 0)).toBe(true);
  });

  it('matches what the sandbox shipped a week later: splits, bundles, replacements and cancellations', async () => {
    sandbox.advanceClock(24 * 7);
    const out = await run('week', { confirmationsPath: join(dir, 'confirm.csv') });
    expect(out.report.orders).toHaveLength(ORDERS);

    let splits = 0;
    let replaced = 0;
    let bundles = 0;
    for (const order of out.orders) {
      const truth: PackageRecord[] = (await client.getPackages(order.customerOrderId)).data;
      const live = truth.filter((p) => !p.replacedByPackageId);
      replaced += truth.length - live.length;
      if (live.length > 1) splits++;
      expect(order.trackingNumbers).toEqual(live.map((p) => p.trackingDetail.trackingNumber));
      const read = (await client.getOrder(order.customerOrderId))!.order;
      for (const line of order.lines.filter((l) => !l.isAddedByNetwork)) {
        const contents = live.flatMap((p) => p.packageContents).filter((c) => c.customerLineItemId === line.customerLineItemId);
        const apiLine = read.lineItems.find((l) => l.customerLineItemId === line.customerLineItemId)!;
        if (contents.some((c) => c.productId !== line.productId)) {
          bundles++;
          // A bundle counts in bundles: shipped when the API says so, never its component units.
          expect(line.shipped).toBe(apiLine.status === 'Shipped' ? line.ordered - line.canceledUnits : 0);
        } else {
          expect(line.shipped).toBe(contents.reduce((n, c) => n + c.quantity, 0));
        }
        expect(line.status).toBe(apiLine.status);
      }
    }
    expect(splits).toBeGreaterThan(0);
    expect(replaced).toBeGreaterThan(0);
    expect(bundles).toBeGreaterThan(0);
    const types = new Set(out.orders.flatMap((o) => o.exceptions.map((e) => e.type)));
    expect(types).toContain('replaced_package');
    expect(types).toContain('canceled_line');
    // The sandbox reads amounts back as PRODUCT.md section 6 says; nothing is late after a week when all shipped.
    expect(types).not.toContain('amount_mismatch');
    expect(out.report.summary.waiting).toBe(0);
    expect(out.report.summary.not_found).toBe(0);
    expect((out.report.summary.delivered ?? 0) + (out.report.summary.shipped ?? 0)).toBeGreaterThan(ORDERS / 2);
  });

  it('gives the same answer reading order by order as paging tracking updates incrementally', async () => {
    sandbox.advanceClock(24);
    const incremental = await run('incremental');
    const perOrder = await run('per-order', { perOrderMax: 1000 });
    expect(incremental.report.orders).toEqual(perOrder.report.orders);
  });

  it('reports an order the API does not know as not_found', async () => {
    const seeding = await ledger.startRun({ command: 'import', files: [] });
    const ghost = payload(999, sandbox.now().toISOString());
    await seeding.recordIntent({ payload: ghost });
    await seeding.markSending(ghost.orderDetails.customerOrderId);
    await seeding.markAccepted(ghost.orderDetails.customerOrderId, { submittedAt: sandbox.now() });
    const out = await run('ghost');
    const order = out.orders.find((o) => o.customerOrderId === ghost.orderDetails.customerOrderId)!;
    expect([order.status, order.exceptions.map((e) => e.type)]).toEqual(['not_found', ['missing_order']]);
    expect(out.hasExceptions).toBe(true);
  });

  it('reads each order of a sandbox restarted without its state: all not_found, the workbook written', async () => {
    // The sandbox answers 404 both for the order and for its packages: neither may stop the run.
    const fresh = await startSandbox({ startTime: sandbox.now(), freezeClock: true, seed: 7 });
    const freshClient = createApiClient({ baseUrl: fresh.url, clientId: fresh.clientId, clientSecret: fresh.clientSecret, now: () => fresh.now().getTime() });
    try {
      const out = await run('restarted', { client: freshClient, perOrderMax: 1000, store: createMemoryPackageStore() });
      expect(out.report.summary).toEqual({ waiting: 0, partially_shipped: 0, shipped: 0, delivered: 0, canceled: 0, exception: 0, not_found: ORDERS + 1 });
      expect(out.orders.every((o) => o.exceptions.map((e) => e.type).join() === 'missing_order')).toBe(true);
      expect(existsSync(out.output)).toBe(true);
    } finally {
      await freshClient.close();
      await fresh.close();
    }
  });
});
