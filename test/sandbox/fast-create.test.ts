import { describe, expect, it } from 'vitest';
import { createOrderSchema } from '../../src/contract/schemas.js';
import { fastParseCreateOrder } from '../../src/sandbox/fast-create.js';
import { withField } from './helpers.js';
import { buildOrderPayload } from '../support/order-payload.js';

const SOURCES = ['OtherMarketplace', 'ShopA'];
const schema = createOrderSchema(SOURCES);

/** A valid order exercising every optional field. */
function fullOrder() {
  const o = buildOrderPayload('F-1', { lines: [{ quantity: 2, discount: 0.5 }, { productId: 'BND-2001', customerLineItemId: 'L2' }], carrierId: 'CarrierX2Day' }) as any;
  o.orderDetails.requestedDeliveryDate = '2031-03-20T00:00:00Z';
  o.orderShippingDetails = { carrierId: 'CarrierX2Day', shippingAccountNumber: 'A1', shipLabelNameDisplay: 'Shop', shippingContactName: 'Shop Inc', shippingContactPhoneNumber: '555' };
  return o;
}

const A = 'customerDetails.shippingAddress';
const D = 'orderDetails';
const L = 'orderDetails.lineItems[0]';

/** One change per rule of the schema, on each side of its boundary, plus shapes the fast path must not guess at. */
const MUTATIONS: [string, unknown][] = [
  [`${A}.fullName`, 'x'.repeat(100)], [`${A}.fullName`, 'x'.repeat(101)], [`${A}.fullName`, '  padded  '], [`${A}.fullName`, '   '], [`${A}.fullName`, 5], [`${A}.fullName`, undefined],
  [`${A}.email`, undefined], [`${A}.email`, 'no-at-sign'], [`${A}.email`, `${'a'.repeat(88)}@example.com`], [`${A}.email`, `${'a'.repeat(89)}@example.com`], [`${A}.email`, null], [`${A}.email`, ' a@b.co'],
  [`${A}.addressLines`, []], [`${A}.addressLines`, ['a', 'b', 'c']], [`${A}.addressLines`, ['a', 'b', 'c', 'd']], [`${A}.addressLines`, [' x ']], [`${A}.addressLines`, ['']], [`${A}.addressLines`, ['x'.repeat(255)]], [`${A}.addressLines`, ['x'.repeat(256)]], [`${A}.addressLines`, 'one line'], [`${A}.addressLines`, [1]],
  [`${A}.city`, 'x'.repeat(50)], [`${A}.city`, 'x'.repeat(51)], [`${A}.city`, ' City '],
  [`${A}.provinceOrState`, ''], [`${A}.provinceOrState`, ' Illinois '],
  [`${A}.postalOrZipCode`, '12345-6789'], [`${A}.postalOrZipCode`, '1234'], [`${A}.postalOrZipCode`, ' 62701 '], [`${A}.postalOrZipCode`, ''], [`${A}.postalOrZipCode`, 62701],
  [`${A}.countryCode`, 'CA'], [`${A}.countryCode`, 'ca'], [`${A}.countryCode`, 'XX'], [`${A}.countryCode`, ' US'],
  [`${A}.phone`, '1234567890'], [`${A}.phone`, '123456789'], [`${A}.phone`, '1'.repeat(35)], [`${A}.phone`, '1'.repeat(36)], [`${A}.phone`, 2175550142],
  [`${A}.extra`, 'stripped'], ['customerDetails', null], ['customerDetails.shippingAddress', undefined],
  [`${D}.customerOrderId`, 'x'.repeat(40)], [`${D}.customerOrderId`, 'x'.repeat(41)], [`${D}.customerOrderId`, ' id '], [`${D}.customerOrderId`, 12],
  [`${D}.marketplaceOrderId`, 'x'.repeat(41)], [`${D}.marketplaceOrderId`, undefined], [`${D}.marketplaceOrderId`, ' m '],
  [`${D}.orderDate`, 'not a date'], [`${D}.orderDate`, '2031-03-10'], [`${D}.orderDate`, 0],
  // Dates Date.parse takes but the API does not: not ISO 8601, or no such day or time.
  [`${D}.orderDate`, 'Mar 10 2031 10:00 GMT'], [`${D}.orderDate`, '2031-02-30T10:00:00Z'], [`${D}.orderDate`, '2031-03-10T24:30:00Z'], [`${D}.orderDate`, '2031-03-10T10:00'],
  [`${D}.requestedDeliveryDate`, 'March 12, 2031'], [`${D}.requestedDeliveryDate`, '2031-03-12T10:00:00+02:00'],
  [`${D}.sourceOfSale`, 'ShopA'], [`${D}.sourceOfSale`, 'ShopB'], [`${D}.sourceOfSale`, 'x'.repeat(51)],
  [`${D}.lineItems`, []], [`${D}.lineItems`, 'x'],
  [`${D}.discountTotal`, undefined], [`${D}.discountTotal`, '1'],
  [`${D}.subTotal`, -1], [`${D}.subTotal`, 0], [`${D}.subTotal`, '20'],
  [`${D}.salesTax`, -1], [`${D}.salesTax`, undefined],
  [`${D}.grandTotal`, undefined], [`${D}.requestedDeliveryDate`, 'soon'], [`${D}.requestedDeliveryDate`, undefined],
  [`${L}.productId`, 'x'.repeat(50)], [`${L}.productId`, 'x'.repeat(51)], [`${L}.productId`, ' PRD-1001 '],
  [`${L}.customerLineItemId`, 'x'.repeat(41)], [`${L}.name`, 'x'.repeat(101)], [`${L}.name`, ''],
  [`${L}.quantity`, 0], [`${L}.quantity`, -1], [`${L}.quantity`, 1.5], [`${L}.quantity`, 2 ** 53], [`${L}.quantity`, '2'],
  [`${L}.unitPrice`, 0], [`${L}.unitPrice`, -0.01], [`${L}.unitPrice`, undefined],
  [`${L}.discount`, undefined], [`${L}.discount`, -1], [`${L}.discount`, null],
  ['orderShippingDetails', undefined], ['orderShippingDetails', {}], ['orderShippingDetails.carrierId', 'CarrierXGround'], ['orderShippingDetails.carrierId', 'carrierxground'],
  ['orderShippingDetails.shippingContactName', 7], ['orderShippingDetails', null],
  ['unknownTopLevel', { a: 1 }],
];

describe('the fast creation path agrees with the contract schema', () => {
  it('parses a full valid order exactly as the schema does', () => {
    const order = fullOrder();
    const parsed = schema.safeParse(order);
    expect(parsed.success).toBe(true);
    expect(fastParseCreateOrder(order, SOURCES)).toEqual(parsed.data);
  });

  for (const [path, value] of MUTATIONS) {
    it(`agrees on ${path} = ${JSON.stringify(value)?.slice(0, 40)}`, () => {
      const order = withField(fullOrder(), path, value);
      const parsed = schema.safeParse(order);
      const fast = fastParseCreateOrder(order, SOURCES);
      if (parsed.success) expect(fast).toEqual(parsed.data);
      else expect(fast).toBeNull();
    });
  }

  it('refuses, as the API does, dates that are not ISO 8601 or name no real day or time', () => {
    for (const bad of ['Mar 10 2031 10:00 GMT', '2031-02-30T10:00:00Z', '2031-03-10T24:30:00Z', '10/03/2031']) {
      expect(schema.safeParse(withField(fullOrder(), `${D}.orderDate`, bad)).success, bad).toBe(false);
    }
    for (const good of ['2031-03-10T10:00', '2031-03-10T10:00:00.123456+05:30', '2031-03-10 10:00:00Z']) {
      expect(schema.safeParse(withField(fullOrder(), `${D}.orderDate`, good)).success, good).toBe(true);
    }
  });

  it('is not vacuous: most mutations of valid orders that the schema accepts are taken by the fast path', () => {
    const accepted = MUTATIONS.filter(([p, v]) => schema.safeParse(withField(fullOrder(), p, v)).success);
    expect(accepted.length).toBeGreaterThan(20);
    for (const [p, v] of accepted) expect(fastParseCreateOrder(withField(fullOrder(), p, v), SOURCES)).not.toBeNull();
  });
});
