import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { fastOrderRead, fastOrdersPage, fastPackagesPage } from '../../src/api/fast-pages.js';
import { ordersPageSchema, packagesPageSchema } from '../../src/api/responses.js';
import { orderReadSchema } from '../../src/contract/schemas.js';

const pkg = () => ({
  packageId: 'P1',
  customerOrderId: 'A-1',
  packageContents: [{ productId: 'PRD-1', sku: 'S', quantity: 2, customerLineItemId: 'L1', extra: true }],
  trackingDetail: { trackingNumber: 'T1', lastUpdated: '2024-05-01T00:00:00Z', trackingEvents: [{ eventType: 'Shipped', eventTimestamp: '2024-05-01T00:00:00Z' }] },
  lastUpdated: '2024-05-01T00:00:00Z',
});
const packagesPage = () => ({ data: [pkg(), { ...pkg(), packageId: 'P2', trackingDetail: {} }], pagination: { page: 1, totalPages: 3 }, requestId: 'r-1' });
const order = () => ({ customerOrderId: 'A-1', orderDate: '2024-05-01T00:00:00Z', orderRegionInfo: { city: null, country: 'US' }, lineItems: [{ productId: 'PRD-1', customerLineItemId: 'L1', quantity: 1, status: 'Shipped' }], grandTotal: 10 });
const ordersPage = () => ({ data: [{ orderDetails: order() }, { orderDetails: { ...order(), customerOrderId: 'A-2' } }], requestId: 'r-2' });

/** Every leaf replaced by a wrong-typed value (and every key removed), one at a time. */
function* mutations(value: unknown, path: (string | number)[] = []): Generator<{ path: string; apply: (root: any) => void }> {
  if (typeof value !== 'object' || value === null) return;
  for (const [key, child] of Object.entries(value)) {
    const at = [...path, Array.isArray(value) ? Number(key) : key];
    const parentOf = (root: any) => at.slice(0, -1).reduce((o, k) => o[k], root);
    yield { path: `${at.join('.')}=7`, apply: (root) => { parentOf(root)[at.at(-1)!] = typeof child === 'number' ? 'seven' : 7; } };
    yield { path: `${at.join('.')}=null`, apply: (root) => { parentOf(root)[at.at(-1)!] = null; } };
    if (!Array.isArray(value)) yield { path: `-${at.join('.')}`, apply: (root) => { delete parentOf(root)[at.at(-1)!]; } };
    yield* mutations(child, at);
  }
}

/**
 * Applies every mutation of `base()` and checks the fast reader takes only what the schema takes
 * (with the schema's value, when `valueOf` says what to compare); returns how many it refused.
 */
function refusedMutations<T>(base: () => unknown, fast: (json: unknown) => T | null, schema: z.ZodType, valueOf?: (quick: T) => unknown): number {
  let refused = 0;
  for (const m of mutations(base())) {
    const input = base();
    m.apply(input);
    const quick = fast(structuredClone(input));
    const checked = schema.safeParse(structuredClone(input));
    if (quick === null) refused++;
    else if (valueOf) expect({ path: m.path, ok: checked.success, value: valueOf(quick) }).toEqual({ path: m.path, ok: true, value: checked.data });
    else expect({ path: m.path, ok: checked.success }).toEqual({ path: m.path, ok: true });
  }
  return refused;
}

describe('the fast page readers', () => {
  it('give what the schema gives for a valid packages page, a missing trackingEvents included', () => {
    expect(fastPackagesPage(packagesPage())).toEqual(packagesPageSchema.parse(packagesPage()));
  });

  it('give the order details the schema gives for a valid orders page', () => {
    const page = ordersPageSchema.parse(ordersPage());
    expect(fastOrdersPage(ordersPage())).toEqual({ data: page.data.map((d) => d.orderDetails), requestId: page.requestId });
  });

  it('accept a mutated packages page only when the schema accepts it, with the same value', () => {
    expect(refusedMutations(packagesPage, fastPackagesPage, packagesPageSchema, (quick) => quick)).toBeGreaterThan(10);
  });

  it('accept a mutated orders page only when the schema accepts it', () => {
    expect(refusedMutations(ordersPage, fastOrdersPage, ordersPageSchema)).toBeGreaterThan(10);
  });

  it("accept a created order's echo only when the schema accepts it, with the same value", () => {
    expect(fastOrderRead(order())).toEqual(orderReadSchema.parse(order()));
    expect(refusedMutations(order, fastOrderRead, orderReadSchema, (quick) => quick)).toBeGreaterThan(5);
  });
});
