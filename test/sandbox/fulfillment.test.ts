import { describe, expect, it } from 'vitest';
import { buildSeededCatalogue } from '../../src/sandbox/catalogue.js';
import { cutUnits, planFulfillment } from '../../src/sandbox/fulfillment.js';
import { DEFAULT_RATES, type StoredOrder } from '../../src/sandbox/model.js';
import { rngFor } from '../../src/sandbox/random.js';
import { reserveUnits, shuffled } from '../../src/sandbox/stock.js';
import { packageLastUpdated, statusAt, viewOrder } from '../../src/sandbox/views.js';
import { DAY, HOUR, START_MS } from './helpers.js';
import { buildOrderPayload } from '../support/order-payload.js';

const catalogue = buildSeededCatalogue();
const ctx = { seed: 3, rates: { split: 0.3, replace: 0.2, cancel: 0.1 }, products: catalogue.products };

function stored(id: string, lines: { productId: string; quantity: number }[]): StoredOrder {
  const payload = buildOrderPayload(id, { lines }) as unknown as StoredOrder['payload'];
  const preference = shuffled(catalogue.centers, rngFor(ctx.seed, `reserve:${id}`));
  const allocations = lines.map((l) => reserveUnits(catalogue.stock, catalogue, catalogue.products.get(l.productId)!, l.quantity, preference));
  return { payload, createdAtMs: START_MS, allocations };
}

describe('planned fulfillment', () => {
  const orders = Array.from({ length: 300 }, (_, i) =>
    stored(`PLAN-${i}`, [
      { productId: 'PRD-1001', quantity: 1 + (i % 4) },
      { productId: i % 3 === 0 ? 'BND-2003' : 'PRD-1010', quantity: 1 + (i % 2) },
    ]),
  );
  const plans = orders.map((o) => planFulfillment(o, ctx));

  it('ships every reserved unit of a line that is not canceled, exactly once (replacements aside)', () => {
    plans.forEach((plan, i) => {
      const order = orders[i]!;
      order.payload.orderDetails.lineItems.forEach((item, line) => {
        const original = plan.lines[line]!;
        const canceled = original.statuses.some((s) => s.status === 'Order Canceled');
        const shipped = plan.packages
          .filter((p) => !plan.packages.some((q) => q.replacedByPackageId === p.packageId))
          .flatMap((p) => p.contents)
          .filter((c) => c.customerLineItemId === item.customerLineItemId && c.productId === c.lineItemProductId)
          .reduce((n, c) => n + c.quantity, 0);
        const isBundle = Boolean(catalogue.products.get(item.productId)!.components);
        if (!isBundle) expect(shipped).toBe(canceled ? 0 : item.quantity);
      });
    });
  });

  it('keeps every timeline in order: clear after 2 h, labels within 25 h, tendered within 37 h', () => {
    for (const plan of plans) {
      for (const p of plan.packages) {
        const [label, tendered] = p.events.map((e) => e.atMs);
        expect(p.events.map((e) => e.atMs)).toEqual([...p.events.map((e) => e.atMs)].sort((a, b) => a - b));
        if (plan.packages.some((q) => q.replacedByPackageId === p.packageId)) continue;
        expect(label).toBeGreaterThanOrEqual(START_MS + 2 * HOUR);
        expect(label).toBeLessThanOrEqual(START_MS + 25 * HOUR);
        expect(tendered! - label!).toBeLessThanOrEqual(12 * HOUR);
      }
      for (const line of plan.lines) expect(line.statuses.map((s) => s.atMs)).toEqual([...line.statuses.map((s) => s.atMs)].sort((a, b) => a - b));
    }
  });

  it('replaces only into packages of the same order, with a later label', () => {
    const replaced = plans.flatMap((plan) => plan.packages.filter((p) => p.replacedByPackageId).map((p) => ({ plan, p })));
    expect(replaced.length).toBeGreaterThan(10);
    for (const { plan, p } of replaced) {
      const next = plan.packages.find((q) => q.packageId === p.replacedByPackageId)!;
      expect(next.createdAtMs).toBe(p.replacedAtMs);
      expect(next.contents).toEqual(p.contents);
    }
  });

  it('uses each share of trouble at roughly its rate', () => {
    const lines = plans.flatMap((p) => p.lines);
    const canceled = lines.filter((l) => l.disposition === 'out_of_stock_in_location').length;
    expect(canceled / 600).toBeGreaterThan(0.05);
    expect(canceled / 600).toBeLessThan(0.16);
  });

  it('has every line Shipped or Order Canceled and everything delivered or replaced after 20 days', () => {
    const later = START_MS + 20 * DAY;
    plans.forEach((plan, i) => {
      const view = viewOrder(orders[i]!, plan.lines, later);
      for (const l of view.lineItems) expect(['Shipped', 'Order Canceled']).toContain(l.status);
      for (const p of plan.packages) {
        const done = p.events.some((e) => e.type === 'delivered') || p.replacedAtMs !== undefined;
        expect(done).toBe(true);
        expect(packageLastUpdated(p, later)).toBe(Math.max(...p.events.map((e) => e.atMs), p.replacedAtMs ?? 0));
      }
    });
  });

  it('shows nothing before the order exists and Waiting to Clear at creation', () => {
    const plan = plans[0]!;
    expect(statusAt(plan.lines[0]!, START_MS - 1)).toBeNull();
    expect(statusAt(plan.lines[0]!, START_MS)).toBe('Waiting to Clear');
    expect(packageLastUpdated(plan.packages[0]!, START_MS)).toBeNull();
  });

  it('is a pure function of order and seed', () => {
    expect(planFulfillment(orders[5]!, ctx)).toEqual(plans[5]);
    expect(planFulfillment(orders[5]!, { ...ctx, seed: 4 })).not.toEqual(plans[5]);
  });

  it('defaults to gentle rates', () => {
    expect(DEFAULT_RATES).toEqual({ split: 0.2, replace: 0.05, cancel: 0.05 });
  });
});

describe('cutting a shipment into packages', () => {
  it('cuts units into nearly equal runs that add up, keeping lines in order', () => {
    const chunks = [
      { lineIndex: 0, units: 5 },
      { lineIndex: 1, units: 2 },
    ];
    const parts = cutUnits(chunks, 3);
    expect(parts).toEqual([[{ lineIndex: 0, units: 2 }], [{ lineIndex: 0, units: 2 }], [{ lineIndex: 0, units: 1 }, { lineIndex: 1, units: 2 }]]);
    expect(cutUnits(chunks, 1)).toEqual([chunks]);
  });
});
