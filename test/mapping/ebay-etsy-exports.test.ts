/**
 * eBay's orders report and Etsy's Sold Order Items CSV, built from their real column sets with planted
 * problems: detected with no option, eBay's `Nov-18-26` sale dates read, the recipient taken from the
 * ship-to columns (never the buyer's), per-item tax added up to the order's, and each good order sent
 * with the right products, quantities and prices.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JsonOrder } from '../../src/run-report/json.js';
import { useTempDir } from '../support/temp-dir.js';
import { importExports, MARKETPLACE_FIXTURES, validateExport } from './exports-support.js';

const EBAY = join(MARKETPLACE_FIXTURES, 'ebay-orders-report.csv');
const ETSY = join(MARKETPLACE_FIXTURES, 'etsy-sold-order-items.csv');
const at = useTempDir('ebay-etsy-exports');

const validate = (file: string) => validateExport(at, file, `${file.split('/').pop()}.result.csv`);

/** Etsy's export with a phone column added, as a shop that has the numbers would add it. */
function etsyWithPhones(): string {
  const lines = readFileSync(ETSY, 'utf8').trimEnd().split('\r\n');
  const phones = ['Ship Phone', '512-555-0101', '512-555-0101', '207-555-0102', '303-555-0103'];
  const file = at('etsy-with-phones.csv');
  writeFileSync(file, lines.map((l, i) => `${l},${phones[i]}`).join('\r\n') + '\r\n');
  return file;
}

describe('an eBay orders report', () => {
  it('is detected; its Nov-18-26 dates are read; a 31st of November, a missing ZIP and a missing SKU are on their cells', async () => {
    const { result, byId } = await validate(EBAY);
    expect(result.report.input[0]!.mapping).toMatchObject({ profile: 'ebay', detected: true });
    expect(byId.get('01-13579-24680')).toEqual({ status: 'valid', issues: [] });
    expect(byId.get('02-13579-24681')).toEqual({ status: 'valid', issues: [] });
    expect(byId.get('03-13579-24682')).toEqual({ status: 'invalid', issues: [[6, 'Sale Date', 'invalid_date']] });
    expect(byId.get('04-13579-24683')).toEqual({ status: 'invalid', issues: [[7, 'Ship To Zip', 'required']] });
    expect(byId.get('05-13579-24684')).toEqual({ status: 'invalid', issues: [[8, 'Custom Label', 'required']] });
    const bad = ([...result.report.orders] as JsonOrder[]).find((o) => o.customerOrderId === '03-13579-24682')!;
    expect(bad.issues[0]!.message).toContain('Sale Date "Nov-31-26" is not a date');
    expect(bad.issues[0]!.message).toContain('like Nov-18-26 (MMM-DD-YY');
  });
});

describe("an Etsy Sold Order Items export", () => {
  it('is detected, and says once that it has no phone and what to do', async () => {
    const { result, byId } = await validate(ETSY);
    expect(result.report.input[0]!.mapping).toMatchObject({ profile: 'etsy', detected: true });
    expect(result.report.input[0]!.issues).toEqual([expect.objectContaining({ column: 'phone', code: 'missing_column', message: expect.stringContaining('The file has no "Ship Phone" column, which the Etsy sold order items export profile (etsy) reads for phone, and every order needs a phone: add the column to the file, or give phone a constant in a copy of the profile') })]);
    expect(byId.get('3003')!.issues).toContainEqual([5, 'Quantity', 'invalid_integer']);
  });

  it('with a phone column, reads the good orders and refuses the planted quantity', async () => {
    const { byId } = await validate(etsyWithPhones());
    expect(byId.get('3001')).toEqual({ status: 'valid', issues: [] });
    expect(byId.get('3002')).toEqual({ status: 'valid', issues: [] });
    expect(byId.get('3003')).toEqual({ status: 'invalid', issues: [[5, 'Quantity', 'invalid_integer']] });
  });
});

describe('eBay and Etsy exports imported with no option', () => {
  it("sends the recipient from the ship-to columns, never the buyer's, and the order's tax as the sum of its items'", async () => {
    const { result, orders } = await importExports(at, [EBAY, etsyWithPhones()]);
    expect(result.report.summary).toEqual({ accepted: 4, invalid: 4 });

    const gift = orders.get('01-13579-24680')!;
    expect(gift.customerDetails.shippingAddress).toEqual({
      fullName: 'Ann Lee', email: 'pat.payer@example.com', addressLines: ['1 Main St'], city: 'Springfield', provinceOrState: 'IL',
      postalOrZipCode: '62704', countryCode: 'US', phone: '(217) 555-0134',
    });
    expect(gift.orderDetails).toMatchObject({ marketplaceOrderId: '01-13579-24680', orderDate: '2026-11-18T00:00:00.000Z', subTotal: 25, salesTax: 2.06, grandTotal: 27.06 });
    expect(gift.orderDetails.lineItems).toEqual([{ productId: 'PRD-1001', customerLineItemId: '2190000001', name: 'Ceramic mug, blue', quantity: 2, unitPrice: 12.5 }]);
    expect(gift.orderShippingDetails).toEqual({ carrierId: 'CarrierXGround' });
    const two = orders.get('02-13579-24681')!;
    expect(two.orderDetails).toMatchObject({ subTotal: 36, salesTax: 2.26 });
    expect(two.orderDetails.lineItems.map((l) => [l.customerLineItemId, l.productId, l.quantity, l.unitPrice])).toEqual([['2190000002', 'PRD-1002', 1, 18], ['2190000003', 'PRD-1003', 3, 6]]);
    expect(two.customerDetails.shippingAddress.addressLines).toEqual(['22 Beacon St', 'Apt 3']);
    expect(two.orderShippingDetails).toEqual({ carrierId: 'CarrierX2Day' });

    const etsy = orders.get('3001')!;
    expect(etsy.customerDetails.shippingAddress).toMatchObject({ fullName: 'Jane Doe', countryCode: 'US', phone: '512-555-0101' });
    expect(etsy.orderDetails).toMatchObject({ orderDate: '2026-11-18T00:00:00.000Z', salesTax: 1.08, subTotal: 13 });
    const scarf = orders.get('3002')!;
    expect(scarf.orderDetails.lineItems).toEqual([{ productId: 'PRD-1019', customerLineItemId: '4003', name: 'Wool scarf', quantity: 1, unitPrice: 40, discount: 4 }]);
    expect(scarf.customerDetails.shippingAddress.postalOrZipCode).toBe('04101');
  });
});
