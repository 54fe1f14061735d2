import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LINE_ITEM_DISPOSITIONS } from '../../src/contract/enums.js';
import { DAY, HOUR, hourBefore, START_MS, startTestSandbox, type TestSandbox } from './helpers.js';
import { buildOrderPayload } from '../support/order-payload.js';

let sb: TestSandbox;
beforeAll(async () => {
  // No trouble in fulfillment here: reads are checked against the order exactly as created.
  sb = await startTestSandbox({ rates: { split: 0, replace: 0, cancel: 0 } });
  expect((await sb.create(buildOrderPayload('OLD-1'))).status).toBe(201);
  sb.advanceClock(31 * 24);
  const now = sb.now().getTime();
  expect((await sb.create(buildOrderPayload('NEW-1', { orderDate: hourBefore(now), lines: [{ unitPrice: 10, quantity: 3, discount: 1.5 }, { productId: 'PRD-1002', unitPrice: 4.99, quantity: 1 }] }))).status).toBe(201);
});
afterAll(() => sb.close());

async function get(path: string) {
  return sb.call('GET', path, { token: await sb.token() });
}

describe('reading one order', () => {
  it('answers { data: { orderDetails }, requestId } with read-side amounts (unitPrice - discount)', async () => {
    const res = await get('/api/v0/orders/NEW-1');
    expect(res.status).toBe(200);
    const o = res.body.data.orderDetails;
    expect(o.lineItems.map((l: any) => [l.customerLineItemId, l.unitPrice, l.discount, l.quantity])).toEqual([
      ['L1', 8.5, 1.5, 3],
      ['L2', 4.99, 0, 1],
    ]);
    expect(o.subTotal).toBe(30.49);
    expect(o.discountTotal).toBe(4.5);
    expect(o.salesTax).toBe(1.25);
    expect(o.grandTotal).toBe(31.74);
    expect(o.disposition).toBe('api');
    expect(res.body.requestId).toEqual(expect.any(String));
  });

  it('answers 404 for an unknown customerOrderId, and finds ids with reserved URL characters', async () => {
    const res = await get('/api/v0/orders/NOPE');
    expect(res.status).toBe(404);
    expect(res.body.message).toBe("Order 'NOPE' not found.");
    expect((await sb.create(buildOrderPayload('A/B #1', { orderDate: hourBefore(sb.now().getTime()) }))).status).toBe(201);
    expect((await get(`/api/v0/orders/${encodeURIComponent('A/B #1')}`)).body.data.orderDetails.customerOrderId).toBe('A/B #1');
  });

  it('redacts orderRegionInfo from 00:00 UTC of the 30th day after the creation day', async () => {
    const own = await startTestSandbox();
    try {
      expect((await own.create(buildOrderPayload('R-1'))).status).toBe(201);
      const dayStart = Math.floor(START_MS / DAY) * DAY;
      own.advanceClock((dayStart + 30 * DAY - 1 - START_MS) / HOUR);
      const token = await own.token();
      const before = await own.call('GET', '/api/v0/orders/R-1', { token });
      expect(before.body.data.orderDetails.orderRegionInfo).toEqual({ city: 'Springfield', state: 'IL', country: 'US', portalCode: '62701' });
      own.advanceClock(1 / HOUR);
      const after = await own.call('GET', '/api/v0/orders/R-1', { token });
      expect(after.body.data.orderDetails.orderRegionInfo).toEqual({ city: null, state: null, country: null, portalCode: null });
    } finally {
      await own.close();
    }
  });
});

describe('listing orders', () => {
  const ids = (res: { body: any }) => res.body.data.map((d: any) => d.orderDetails.customerOrderId).sort();

  it('lists orders of the last 30 days by default, and up to lastDays=365', async () => {
    expect(ids(await get('/api/v0/orders'))).toEqual(['A/B #1', 'NEW-1']);
    expect(ids(await get('/api/v0/orders?lastDays=32'))).toEqual(['A/B #1', 'NEW-1', 'OLD-1']);
    expect((await get('/api/v0/orders?lastDays=365')).status).toBe(200);
  });

  it('answers 400 to lastDays outside 1..365 or not a whole number', async () => {
    for (const v of ['366', '0', '-1', '1.5', 'ten', '']) {
      const res = await get(`/api/v0/orders?lastDays=${v}`);
      expect(res.status, v).toBe(400);
      expect(res.body.errors[0].field).toBe('lastDays');
    }
  });

  it('filters by orderDisposition (default api; repeatable; all)', async () => {
    expect(ids(await get('/api/v0/orders?orderDisposition=marketplace'))).toEqual([]);
    expect(ids(await get('/api/v0/orders?orderDisposition=marketplace&orderDisposition=api'))).toEqual(['A/B #1', 'NEW-1']);
    expect(ids(await get('/api/v0/orders?orderDisposition=all'))).toEqual(['A/B #1', 'NEW-1']);
    expect((await get('/api/v0/orders?orderDisposition=API')).status).toBe(400);
  });

  it('filters by orderLineItemDisposition (default all; an order with any of them)', async () => {
    expect(ids(await get('/api/v0/orders?orderLineItemDisposition=api_order'))).toEqual(['A/B #1', 'NEW-1']);
    expect(ids(await get('/api/v0/orders?orderLineItemDisposition=damaged_shipment&orderLineItemDisposition=fraud'))).toEqual([]);
    expect(ids(await get('/api/v0/orders?orderLineItemDisposition=all'))).toEqual(['A/B #1', 'NEW-1']);
    for (const d of LINE_ITEM_DISPOSITIONS) expect((await get(`/api/v0/orders?orderLineItemDisposition=${d}`)).status).toBe(200);
    expect((await get('/api/v0/orders?orderLineItemDisposition=broken')).status).toBe(400);
  });

  it('answers 400 to an unknown query parameter', async () => {
    const res = await get('/api/v0/orders?lastday=3');
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/Unknown query parameter 'lastday'/);
  });
});

describe('inventory items', () => {
  it('pages the catalogue with stock per fulfillment center', async () => {
    const res = await get('/api/v0/inventory/items?pageNumber=1&itemsPerPage=2');
    expect(res.status).toBe(200);
    expect(res.body.pagination).toEqual({ page: 1, totalPages: expect.any(Number) });
    expect(res.body.data).toHaveLength(2);
    const item = res.body.data[0];
    expect(Object.keys(item).sort()).toEqual(['availableQuantity', 'fulfillmentCenters', 'name', 'productId', 'sku', 'upc']);
    expect(item.availableQuantity).toBe(item.fulfillmentCenters.reduce((s: number, c: any) => s + c.availableQuantity, 0));
  });

  it('finds one product by productId; an out-of-stock one shows 0 everywhere', async () => {
    const res = await get('/api/v0/inventory/items?productId=PRD-1999');
    expect(res.body.data).toEqual([
      expect.objectContaining({ productId: 'PRD-1999', availableQuantity: 0, fulfillmentCenters: res.body.data[0].fulfillmentCenters.map((c: any) => ({ id: c.id, availableQuantity: 0 })) }),
    ]);
    expect((await get('/api/v0/inventory/items?productId=NOPE')).body.data).toEqual([]);
  });

  it('answers 400 to itemsPerPage 101 or pageNumber 0 and takes 100', async () => {
    expect((await get('/api/v0/inventory/items?itemsPerPage=101')).status).toBe(400);
    expect((await get('/api/v0/inventory/items?pageNumber=0')).status).toBe(400);
    expect((await get('/api/v0/inventory/items?itemsPerPage=100')).body.data).toHaveLength(100);
  });
});
