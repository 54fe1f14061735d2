/** The API payload of valid orders, and a property test that keeps the checker and the sandbox in step. */
import { describe, expect, it } from 'vitest';
import { createOrderSchema } from '../../src/contract/schemas.js';
import { checkCreatePayload } from '../../src/sandbox/create-order.js';
import type { Product } from '../../src/sandbox/catalogue.js';
import type { IssueCode } from '../../src/issues/index.js';
import { NOW, check, checkOne, contextAt, laterRow, validRow, type RowSpec } from './support.js';

describe('the payload of a valid order', () => {
  it('holds every field of the sheet in the API shape, money in dollars and dates in UTC', async () => {
    const order = await checkOne([
      validRow({ quantity: '1', discount: '1.50', discountTotal: '3.00', carrierId: 'CarrierX2Day', shippingAccountNumber: '0012345', requestedDeliveryDate: '2026-11-28' }),
      laterRow({ productId: 'PRD-2', name: 'Saucer', discount: '1.50' }),
    ]);
    expect(order.issues).toEqual([]);
    expect(order.payload).toEqual({
      customerDetails: {
        shippingAddress: {
          fullName: 'Maria Lopez',
          email: 'maria@example.com',
          addressLines: ['123 Main St', 'Apt 4B'],
          city: 'Springfield',
          provinceOrState: 'IL',
          postalOrZipCode: '62704',
          countryCode: 'US',
          phone: '(217) 555-0134',
        },
      },
      orderDetails: {
        customerOrderId: 'SO-1',
        marketplaceOrderId: '113-4567890-1234567',
        orderDate: '2026-11-19T14:30:00.000Z',
        sourceOfSale: 'OtherMarketplace',
        lineItems: [
          { productId: 'PRD-1001', customerLineItemId: '1', name: 'Ceramic mug, blue', quantity: 1, unitPrice: 29.99, discount: 1.5 },
          { productId: 'PRD-2', customerLineItemId: '2', name: 'Saucer', quantity: 1, unitPrice: 29.99, discount: 1.5 },
        ],
        discountTotal: 3,
        subTotal: 59.98,
        salesTax: 4.95,
        grandTotal: 64.93,
        requestedDeliveryDate: '2026-11-28T00:00:00.000Z',
      },
      orderShippingDetails: { carrierId: 'CarrierX2Day', shippingAccountNumber: '0012345' },
    });
  });

  it('leaves out optional fields that are blank and orderShippingDetails when none is set', async () => {
    const order = await checkOne([validRow({ marketplaceOrderId: '', email: '', addressLine2: '' })]);
    expect(Object.keys(order.payload!.orderDetails)).toEqual(['customerOrderId', 'orderDate', 'sourceOfSale', 'lineItems', 'subTotal', 'salesTax', 'grandTotal']);
    expect(order.payload!.customerDetails.shippingAddress.addressLines).toEqual(['123 Main St']);
    expect(order.payload).not.toHaveProperty('orderShippingDetails');
  });

  it('is absent for an invalid order', async () => {
    const order = await checkOne([validRow({ quantity: '0' })]);
    expect(order.payload).toBeUndefined();
  });
});

// ---- Property test: whatever the checker calls valid, the sandbox accepts. ----

/** mulberry32: a small seedable generator, so a failure can be replayed. */
function createRandom(seed: number): (n: number) => number {
  let a = seed >>> 0;
  return (n) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

const cents = (c: number): string => `${Math.floor(c / 100)}.${String(c % 100).padStart(2, '0')}`;

interface Mutation {
  code: IssueCode;
  apply(rows: RowSpec[]): void;
}

/** Changes that break one rule each; the checker must call the order invalid with that code. */
const MUTATIONS: Mutation[] = [
  { code: 'subtotal_mismatch', apply: (rows) => (rows[0]!.subTotal = cents(Number(String(rows[0]!.subTotal).replace('.', '')) + 1)) },
  { code: 'grand_total_mismatch', apply: (rows) => (rows[0]!.grandTotal = '0.01') },
  { code: 'not_positive', apply: (rows) => (rows.at(-1)!.quantity = '0') },
  { code: 'negative', apply: (rows) => (rows.at(-1)!.unitPrice = '-0.01') },
  { code: 'invalid_postal_code', apply: (rows) => (rows[0]!.postalOrZipCode = '1234567890') },
  { code: 'too_long', apply: (rows) => (rows[0]!.fullName = 'N'.repeat(101)) },
  { code: 'order_date_in_future', apply: (rows) => (rows[0]!.orderDate = new Date(NOW.getTime() + 60_000).toISOString()) },
  { code: 'order_date_too_old', apply: (rows) => (rows[0]!.orderDate = new Date(NOW.getTime() - 30 * 86_400_000).toISOString()) },
  { code: 'invalid_email', apply: (rows) => (rows[0]!.email = 'no-at-sign.example.com') },
  { code: 'invalid_phone', apply: (rows) => (rows[0]!.phone = '555 0134') },
  { code: 'invalid_number', apply: (rows) => (rows.at(-1)!.unitPrice = '1.005') },
  { code: 'not_allowed', apply: (rows) => (rows[0]!.carrierId = 'CarrierXground') },
  { code: 'duplicate_line_item_id', apply: (rows) => rows.push({ ...rows.at(-1)!, subTotal: '', grandTotal: '' }) },
  { code: 'required', apply: (rows) => rows.forEach((row) => (row.city = '')) },
  { code: 'invalid_country_code', apply: (rows) => (rows[0]!.countryCode = 'XX') },
];

function generateOrder(random: (n: number) => number, id: string): RowSpec[] {
  const lines = 1 + random(4);
  const hasDiscounts = random(3) === 0;
  const items = Array.from({ length: lines }, (_, k) => ({
    unit: random(3) === 0 ? random(100) : random(500_000), // cents, cheap amounts like 0.10 included
    quantity: 1 + random(5),
    discount: hasDiscounts && random(2) === 0 ? random(500) : null,
    k,
  }));
  const sub = items.reduce((s, i) => s + i.unit * i.quantity, 0);
  const disc = items.reduce((s, i) => s + (i.discount ?? 0) * i.quantity, 0);
  const tax = random(10_000);
  const ageMs = 1 + random(29 * 86_400_000);
  const orderDate = random(2) === 0 ? new Date(NOW.getTime() - ageMs).toISOString() : new Date(NOW.getTime() - ageMs).toISOString().slice(0, 16).replace('T', ' ');
  const giveTotals = random(4) !== 0;
  const orderValues: RowSpec = {
    customerOrderId: id,
    orderDate,
    subTotal: giveTotals ? cents(sub) : '',
    salesTax: cents(tax),
    grandTotal: giveTotals ? cents(sub + tax) : '',
    discountTotal: giveTotals && disc > 0 ? cents(disc) : '',
    postalOrZipCode: ['62704', '02134-1234', '00501'][random(3)]!,
    email: random(3) === 0 ? '' : `buyer${id}@example.com`,
    carrierId: ['', 'CarrierXGround', 'CarrierX2Day', 'CarrierXOvernight'][random(4)]!,
    requestedDeliveryDate: random(2) === 0 ? '' : '2026-12-01',
  };
  return items.map((item) => ({
    ...validRow({
      ...orderValues,
      productId: `PRD-${random(20)}`,
      customerLineItemId: String(item.k + 1),
      quantity: String(item.quantity),
      unitPrice: random(5) === 0 ? `$${cents(item.unit)}` : cents(item.unit),
      discount: item.discount === null ? '' : cents(item.discount),
    }),
  }));
}

describe('checker and sandbox agree', () => {
  it('for 400 generated orders, valid and mutated: what the checker calls valid the schema and the sandbox accept', async () => {
    const random = createRandom(20261120);
    const ctx = contextAt();
    const expectedCodes = new Map<string, IssueCode | null>();
    const rows: RowSpec[] = [];
    for (let n = 0; n < 400; n++) {
      const id = `SO-${n}`;
      const order = generateOrder(random, id);
      const mutation = n % 2 === 0 ? null : MUTATIONS[random(MUTATIONS.length)]!;
      mutation?.apply(order);
      expectedCodes.set(id, mutation?.code ?? null);
      rows.push(...order);
    }
    const sheet = await check(rows, ctx, { batchSize: 97 });
    const schema = createOrderSchema(ctx.sourcesOfSale);
    const products = new Map<string, Product>(Array.from({ length: 20 }, (_, i) => [`PRD-${i}`, { productId: `PRD-${i}`, sku: '', upc: '', name: '' }]));
    let valid = 0;
    for (const order of sheet.orders) {
      const mutated = expectedCodes.get(order.customerOrderId!);
      if (mutated) {
        expect.soft(order.status, `${order.customerOrderId} mutated with ${mutated}`).toBe('invalid');
        expect.soft(order.issues.map((i) => i.code), order.customerOrderId!).toContain(mutated);
        continue;
      }
      expect.soft(order.issues.filter((i) => i.severity === 'error'), order.customerOrderId!).toEqual([]);
      expect(order.status).toBe('valid');
      valid++;
      const payload = order.payload!;
      const parsed = schema.safeParse(payload);
      expect.soft(parsed.success, `${order.customerOrderId}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
      const answer = checkCreatePayload(structuredClone(payload), { schema, nowMs: ctx.now.getTime(), products });
      expect.soft(answer, order.customerOrderId!).toMatchObject({ ok: true });
    }
    expect(valid).toBe(200);
  });
});
