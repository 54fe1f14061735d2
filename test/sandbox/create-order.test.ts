import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY, START_MS, startTestSandbox, type TestSandbox, withField } from './helpers.js';
import { buildOrderPayload } from '../support/order-payload.js';

let sb: TestSandbox;
let token: string;
let seq = 0;
beforeAll(async () => {
  sb = await startTestSandbox();
  token = await sb.token();
});
afterAll(() => sb.close());

const nextId = () => `C-${++seq}`;
const post = (payload: unknown) => sb.call('POST', '/api/v0/orders', { body: payload, token });
const field = (path: string, value: unknown) => withField(buildOrderPayload(nextId()), path, value);

async function expectRejected(payload: unknown, fieldPath: string) {
  const res = await post(payload);
  expect(res.status, res.text).toBe(400);
  expect(res.body.message).toBe('0 Shippable Quantity');
  expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(fieldPath);
  expect(res.body.requestId).toEqual(expect.any(String));
}

async function expectAccepted(payload: unknown) {
  const res = await post(payload);
  expect(res.status, res.text).toBe(201);
  return res;
}

describe('creating an order', () => {
  it('answers 201 with the order as read back, Waiting to Clear, and a requestId', async () => {
    const res = await expectAccepted(buildOrderPayload('NEW-1', { lines: [{ quantity: 2, unitPrice: 10.5, discount: 1 }] }));
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.body).toEqual({
      data: {
        orderDetails: {
          customerOrderId: 'NEW-1',
          orderDate: new Date(START_MS - 3_600_000).toISOString(),
          orderRegionInfo: { city: 'Springfield', state: 'IL', country: 'US', portalCode: '62701' },
          sourceOfSale: 'OtherMarketplace',
          lineItems: [
            { productId: 'PRD-1001', name: 'Item 1', customerLineItemId: 'L1', quantity: 2, unitPrice: 9.5, discount: 1, disposition: 'api_order', status: 'Waiting to Clear' },
          ],
          subTotal: 19,
          salesTax: 1.25,
          discountTotal: 2,
          grandTotal: 20.25,
          disposition: 'api',
        },
      },
      requestId: expect.any(String),
    });
  });

  it("answers 409 \"Order '<id>' already exists.\" to a second order with the same customerOrderId", async () => {
    await expectAccepted(buildOrderPayload('DUP-1'));
    const before = sb.stats().duplicatesRejected;
    const res = await post(buildOrderPayload('DUP-1'));
    expect(res.status).toBe(409);
    expect(res.body.message).toBe("Order 'DUP-1' already exists.");
    expect(sb.stats().duplicatesRejected).toBe(before + 1);
  });

  it('answers 400 with a message and no 500 when the body is not an object', async () => {
    for (const body of [[], 'text', 42, null]) {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(res.body.message).toEqual(expect.any(String));
    }
  });
});

describe('field limits at their boundaries', () => {
  const limits: [string, number][] = [
    ['customerDetails.shippingAddress.fullName', 100],
    ['customerDetails.shippingAddress.city', 50],
    ['customerDetails.shippingAddress.addressLines[0]', 255],
    ['orderDetails.customerOrderId', 40],
    ['orderDetails.marketplaceOrderId', 40],
    ['orderDetails.lineItems[0].customerLineItemId', 40],
    ['orderDetails.lineItems[0].name', 100],
  ];
  for (const [path, max] of limits) {
    it(`accepts ${path} of ${max} characters and rejects ${max + 1}`, async () => {
      const text = (n: number) => `${nextId()}-`.padEnd(n, 'x');
      await expectAccepted(field(path, text(max)));
      await expectRejected(field(path, text(max + 1)), path);
    });
  }

  it('accepts an email of 100 characters and rejects 101 or one without a domain', async () => {
    const email = (n: number) => `${'a'.repeat(n - 12)}@example.com`;
    await expectAccepted(field('customerDetails.shippingAddress.email', email(100)));
    await expectRejected(field('customerDetails.shippingAddress.email', email(101)), 'customerDetails.shippingAddress.email');
    await expectRejected(field('customerDetails.shippingAddress.email', 'ada@'), 'customerDetails.shippingAddress.email');
  });

  it('rejects a productId over 50 characters', async () => {
    await expectRejected(field('orderDetails.lineItems[0].productId', 'P'.repeat(51)), 'orderDetails.lineItems[0].productId');
  });

  it('accepts a sourceOfSale from the allowed list only', async () => {
    await expectRejected(field('orderDetails.sourceOfSale', 'othermarketplace'), 'orderDetails.sourceOfSale');
    const own = await startTestSandbox({ sourcesOfSale: ['OtherMarketplace', 'ShopA'] });
    try {
      const res = await own.create(withField(buildOrderPayload('S-1'), 'orderDetails.sourceOfSale', 'ShopA'));
      expect(res.status).toBe(201);
    } finally {
      await own.close();
    }
  });

  it('accepts 1 to 3 address lines and rejects 4', async () => {
    await expectAccepted(field('customerDetails.shippingAddress.addressLines', ['a', 'b', 'c']));
    await expectRejected(field('customerDetails.shippingAddress.addressLines', ['a', 'b', 'c', 'd']), 'customerDetails.shippingAddress.addressLines');
  });

  for (const [label, lines] of [
    ['an empty list', []],
    ['no list at all', undefined],
    ['only blank lines', ['  ', '']],
  ] as const) {
    it(`answers "Must have at least one address line." to ${label}`, async () => {
      const res = await post(field('customerDetails.shippingAddress.addressLines', lines));
      expect(res.status).toBe(400);
      expect(res.body.message).toBe('Must have at least one address line.');
      expect(res.body.errors).toContainEqual({ field: 'customerDetails.shippingAddress.addressLines', message: 'Must have at least one address line.' });
    });
  }

  it('accepts US ZIP codes of 5 digits or ZIP+4 and rejects other shapes', async () => {
    for (const zip of ['62701', '62701-1234']) await expectAccepted(field('customerDetails.shippingAddress.postalOrZipCode', zip));
    for (const zip of ['6270', '627011', '62701-123', '62701 1234', 'ABCDE']) {
      await expectRejected(field('customerDetails.shippingAddress.postalOrZipCode', zip), 'customerDetails.shippingAddress.postalOrZipCode');
    }
    const canada = withField(field('customerDetails.shippingAddress.countryCode', 'CA'), 'customerDetails.shippingAddress.postalOrZipCode', 'K1A 0B1');
    await expectAccepted(canada);
  });

  it('requires a two-letter ISO country code, exactly', async () => {
    for (const code of ['XX', 'us', 'USA']) await expectRejected(field('customerDetails.shippingAddress.countryCode', code), 'customerDetails.shippingAddress.countryCode');
  });

  it('accepts a phone with 10 digits and at most 35 characters', async () => {
    await expectAccepted(field('customerDetails.shippingAddress.phone', '217 555 014'.padEnd(34, ' ') + '2'));
    await expectRejected(field('customerDetails.shippingAddress.phone', '217-555-014'), 'customerDetails.shippingAddress.phone');
    await expectRejected(field('customerDetails.shippingAddress.phone', '2175550142'.padEnd(36, ' ')), 'customerDetails.shippingAddress.phone');
  });

  it('takes carrierId from the enumeration, case sensitive', async () => {
    await expectAccepted(field('orderShippingDetails', { carrierId: 'CarrierXOvernight' }));
    await expectRejected(field('orderShippingDetails', { carrierId: 'carrierxovernight' }), 'orderShippingDetails.carrierId');
    await expectRejected(field('orderShippingDetails', { shippingContactName: 'x' }), 'orderShippingDetails.carrierId');
  });

  it('requires quantity > 0 and whole, unitPrice >= 0', async () => {
    await expectRejected(field('orderDetails.lineItems[0].quantity', 0), 'orderDetails.lineItems[0].quantity');
    await expectRejected(field('orderDetails.lineItems[0].quantity', 1.5), 'orderDetails.lineItems[0].quantity');
    await expectRejected(field('orderDetails.lineItems[0].quantity', '1'), 'orderDetails.lineItems[0].quantity');
    const free = buildOrderPayload(nextId(), { lines: [{ unitPrice: 0 }] });
    await expectAccepted(free);
    await expectRejected(buildOrderPayload(nextId(), { lines: [{ unitPrice: -0.01 }] }), 'orderDetails.lineItems[0].unitPrice');
  });

  it('rejects a missing required field with "is required"', async () => {
    const res = await post(field('customerDetails.shippingAddress.city', undefined));
    expect(res.status).toBe(400);
    expect(res.body.errors).toContainEqual({ field: 'customerDetails.shippingAddress.city', message: 'is required' });
  });

  it('rejects a customerLineItemId used twice in one order', async () => {
    const payload = buildOrderPayload(nextId(), { lines: [{ customerLineItemId: 'A' }, { customerLineItemId: 'A', productId: 'PRD-1002' }] });
    await expectRejected(payload, 'orderDetails.lineItems[1].customerLineItemId');
  });
});

describe('totals in exact cents', () => {
  it('accepts totals that are exact in cents even when floating point is not (3 x 0.1)', async () => {
    await expectAccepted(buildOrderPayload(nextId(), { lines: [{ unitPrice: 0.1, quantity: 3 }], salesTax: 0.2 }));
  });

  it('rejects a subTotal, discountTotal or grandTotal one cent off', async () => {
    const base = () => buildOrderPayload(nextId(), { lines: [{ unitPrice: 10, quantity: 2, discount: 0.5 }] });
    await expectRejected(withField(base(), 'orderDetails.subTotal', 20.01), 'orderDetails.subTotal');
    await expectRejected(withField(base(), 'orderDetails.discountTotal', 0.99), 'orderDetails.discountTotal');
    await expectRejected(withField(base(), 'orderDetails.grandTotal', 21.24), 'orderDetails.grandTotal');
  });

  it('does not subtract discounts from subTotal on creation (api-spec 2.1.2)', async () => {
    const payload = buildOrderPayload(nextId(), { lines: [{ unitPrice: 10, quantity: 1, discount: 2 }] });
    await expectRejected(withField(withField(payload, 'orderDetails.subTotal', 8), 'orderDetails.grandTotal', 9.25), 'orderDetails.subTotal');
  });

  it('rejects amounts that are not whole cents', async () => {
    await expectRejected(buildOrderPayload(nextId(), { lines: [{ unitPrice: 1.005 }] }), 'orderDetails.lineItems[0].unitPrice');
  });
});

describe('orderDate window on the sandbox clock', () => {
  const at = (ms: number) => field('orderDetails.orderDate', new Date(ms).toISOString());

  it('accepts now and anything less than 30 days old', async () => {
    await expectAccepted(at(START_MS));
    await expectAccepted(at(START_MS - 30 * DAY + 1000));
  });

  it('rejects exactly 30 days old and anything in the future', async () => {
    await expectRejected(at(START_MS - 30 * DAY), 'orderDetails.orderDate');
    await expectRejected(at(START_MS + 1000), 'orderDetails.orderDate');
  });

  it('reads a date-time without an offset as UTC and answers it in UTC', async () => {
    const res = await expectAccepted(field('orderDetails.orderDate', '2031-03-10T14:00:00'));
    expect(res.body.data.orderDetails.orderDate).toBe('2031-03-10T14:00:00.000Z');
  });

  it('rejects a date that is not one', async () => {
    await expectRejected(field('orderDetails.orderDate', '2031-02-30T10:00:00Z'), 'orderDetails.orderDate');
    await expectRejected(field('orderDetails.orderDate', 'yesterday'), 'orderDetails.orderDate');
  });
});

describe('products and stock', () => {
  it('rejects a productId the inventory does not know with 400', async () => {
    const res = await post(buildOrderPayload(nextId(), { lines: [{ productId: 'NOPE-1' }] }));
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toEqual({ field: 'orderDetails.lineItems[0].productId', message: expect.stringMatching(/Unknown ProductId 'NOPE-1'/) });
  });

  it('answers 409 with the exact message when no fulfillment center has the product', async () => {
    const res = await post(buildOrderPayload(nextId(), { lines: [{ productId: 'PRD-1001' }, { productId: 'PRD-1999' }] }));
    expect(res.status).toBe(409);
    expect(res.body.message).toBe("Shippable Inventory out of stock for ProductId 'PRD-1999'.");
    const bundle = await post(buildOrderPayload(nextId(), { lines: [{ productId: 'BND-2009' }] }));
    expect(bundle.status).toBe(409);
  });

  it('accepts a product stocked in one center only, and more units than one center holds', async () => {
    await expectAccepted(buildOrderPayload(nextId(), { lines: [{ productId: 'PRD-1151', quantity: 5 }] }));
    await expectAccepted(buildOrderPayload(nextId(), { lines: [{ productId: 'PRD-1182', quantity: 5 }] }));
  });

  it('decrements stock per center on acceptance, never on rejection', async () => {
    const readStock = async () => {
      const res = await sb.call('GET', '/api/v0/inventory/items?productId=PRD-1160', { token });
      return res.body.data[0].availableQuantity as number;
    };
    const before = await readStock();
    await expectAccepted(buildOrderPayload(nextId(), { lines: [{ productId: 'PRD-1160', quantity: 7 }] }));
    await expectRejected(withField(buildOrderPayload(nextId(), { lines: [{ productId: 'PRD-1160', quantity: 7 }] }), 'orderDetails.subTotal', 1), 'orderDetails.subTotal');
    expect(await readStock()).toBe(before - 7);
  });

  it('answers 409 once the network runs out, not before', async () => {
    const own = await startTestSandbox();
    try {
      expect((await own.create(buildOrderPayload('S-1', { lines: [{ productId: 'PRD-1183', quantity: 6 }] }))).status).toBe(201);
      const res = await own.create(buildOrderPayload('S-2', { lines: [{ productId: 'PRD-1183', quantity: 1 }] }));
      expect(res.status).toBe(409);
      expect(res.body.message).toBe("Shippable Inventory out of stock for ProductId 'PRD-1183'.");
    } finally {
      await own.close();
    }
  });
});
