import { describe, expect, it } from 'vitest';
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

describe('the fast page readers', () => {
  it('give what the schema gives for a valid packages page, a missing trackingEvents included', () => {
    expect(fastPackagesPage(packagesPage())).toEqual(packagesPageSchema.parse(packagesPage()));
  });

  it('give the order details the schema gives for a valid orders page', () => {
    const page = ordersPageSchema.parse(ordersPage());
    expect(fastOrdersPage(ordersPage())).toEqual({ data: page.data.map((d) => d.orderDetails), requestId: page.requestId });
  });

  it('accept a mutated packages page only when the schema accepts it, with the same value', () => {
    let refused = 0;
    for (const m of mutations(packagesPage())) {
      const input = packagesPage();
      m.apply(input);
      const quick = fastPackagesPage(structuredClone(input));
      const schema = packagesPageSchema.safeParse(structuredClone(input));
      if (quick === null) refused++;
      else expect({ path: m.path, ok: schema.success, value: quick }).toEqual({ path: m.path, ok: true, value: schema.data });
    }
    expect(refused).toBeGreaterThan(10);
  });

  it('accept a mutated orders page only when the schema accepts it', () => {
    let refused = 0;
    for (const m of mutations(ordersPage())) {
      const input = ordersPage();
      m.apply(input);
      const quick = fastOrdersPage(structuredClone(input));
      const schema = ordersPageSchema.safeParse(structuredClone(input));
      if (quick === null) refused++;
      else expect({ path: m.path, ok: schema.success }).toEqual({ path: m.path, ok: true });
    }
    expect(refused).toBeGreaterThan(10);
  });

  it("accept a created order's echo only when the schema accepts it, with the same value", () => {
    expect(fastOrderRead(order())).toEqual(orderReadSchema.parse(order()));
    let refused = 0;
    for (const m of mutations(order())) {
      const input = order();
      m.apply(input);
      const quick = fastOrderRead(structuredClone(input));
      const schema = orderReadSchema.safeParse(structuredClone(input));
      if (quick === null) refused++;
      else expect({ path: m.path, ok: schema.success, value: quick }).toEqual({ path: m.path, ok: true, value: schema.data });
    }
    expect(refused).toBeGreaterThan(5);
  });
});
