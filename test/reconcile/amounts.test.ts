import { describe, expect, it } from 'vitest';
import { checkReadAmounts } from '../../src/reconcile/amounts.js';
import { expectOrderFromPayload } from '../../src/reconcile/expected.js';
import type { CreateOrderPayload } from '../../src/contract/schemas.js';
import { expected, readOf } from './builders.js';

const order = expected('M-1', [
  { id: 'L1', productId: 'PRD-1001', quantity: 3, price: 19.99, discount: 2 },
  { id: 'L2', productId: 'PRD-1002', quantity: 1, price: 5.1 },
]);

describe('read-side amounts (PRODUCT.md section 6)', () => {
  it('accepts an order read back with unit prices net of discount and totals built on them', () => {
    const read = readOf(order);
    expect(read.subTotal).toBe(59.07);
    expect(read.grandTotal).toBe(60.57);
    expect(checkReadAmounts(order, read)).toEqual([]);
  });

  it('flags a read unit price that still includes the discount', () => {
    const read = readOf(order, 'Shipped', { L1: { unitPrice: 19.99 } });
    expect(checkReadAmounts(order, read)).toEqual([
      {
        type: 'amount_mismatch',
        customerLineItemId: 'L1',
        detail: 'Unit price of line L1 is 19.99 in the API, expected 17.99 (unit price 19.99 less discount 2.00).',
      },
    ]);
  });

  it('flags a subTotal computed the creation way (discounts not subtracted) and the grandTotal built on it', () => {
    const read = { ...readOf(order), subTotal: 65.07, grandTotal: 66.57 };
    const found = checkReadAmounts(order, read).map((e) => e.detail);
    expect(found).toEqual([
      'subTotal is 65.07 in the API, expected 59.07 (sum of unit price less discount times quantity, as sent).',
      'grandTotal is 66.57 in the API, expected 60.57 (subTotal plus salesTax).',
    ]);
  });

  it('flags a salesTax and a discountTotal that differ from what was sent', () => {
    const read = { ...readOf(order), salesTax: 2, discountTotal: 2 };
    expect(checkReadAmounts(order, read).map((e) => e.detail)).toEqual([
      'salesTax is 2.00 in the API, expected 1.50 (as sent).',
      'discountTotal is 2.00 in the API, expected 6.00 (sum of discount times quantity, as sent).',
    ]);
  });

  it('flags an amount that is not a whole number of cents', () => {
    const read = { ...readOf(order), subTotal: 59.075 };
    expect(checkReadAmounts(order, read)[0]!.detail).toContain('is not a whole number of cents');
  });

  it('ignores lines the network added when checking totals of an order we sent', () => {
    const read = readOf(order);
    read.lineItems.push({ productId: 'PRD-1009', customerLineItemId: 'L9', quantity: 1, unitPrice: 7, disposition: 'out_of_stock', status: 'Shipped' });
    expect(checkReadAmounts(order, read)).toEqual([]);
  });

  it('checks an order we did not send against its own arithmetic', () => {
    const read = readOf(order);
    expect(checkReadAmounts(undefined, read)).toEqual([]);
    expect(checkReadAmounts(undefined, { ...read, grandTotal: 61 }).map((e) => e.detail)).toEqual(['grandTotal is 61.00 in the API, expected 60.57 (subTotal plus salesTax).']);
  });

  it('reads the expected order from a created payload in cents, an absent discount being none', () => {
    const payload = {
      customerDetails: { shippingAddress: { fullName: 'A', addressLines: ['1'], city: 'c', provinceOrState: 's', postalOrZipCode: '12345', countryCode: 'US', phone: '5555555555' } },
      orderDetails: {
        customerOrderId: 'E-1',
        orderDate: '2030-03-01T00:00:00Z',
        sourceOfSale: 'OtherMarketplace',
        lineItems: [{ productId: 'PRD-1001', customerLineItemId: 'L1', name: 'n', quantity: 2, unitPrice: 0.1 }],
        subTotal: 0.2,
        salesTax: 0,
        grandTotal: 0.2,
      },
    } satisfies CreateOrderPayload;
    const e = expectOrderFromPayload(payload, '2030-03-01T01:00:00Z');
    expect(e.lines[0]).toMatchObject({ unitPriceCents: 10, discountCents: 0, quantity: 2 });
    expect([e.subTotalCents, e.discountTotalCents, e.marketplaceOrderId, e.submittedAt]).toEqual([20, null, null, '2030-03-01T01:00:00Z']);
  });
});
