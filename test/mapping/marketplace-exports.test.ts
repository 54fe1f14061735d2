/**
 * Real exports (the column sets of Shopify's orders export, Amazon's order report and the WooCommerce
 * Customer/Order/Coupon Export's "Default - One Row per Item"), with planted problems, checked and
 * imported with no option but detection: good orders valid and sent with the recipient, products,
 * quantities and prices from the right columns; every planted problem on its source row and column.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JsonOrder } from '../../src/run-report/json.js';
import { formatValidateText } from '../../src/run-report/text.js';
import { readOrdersFile } from '../../src/reconcile/orders-file.js';
import { useTempDir } from '../support/temp-dir.js';
import { readWorkbook, sheet } from '../support/xlsx-files.js';
import { silentLogger } from '../../src/log.js';
import { importExports, MARKETPLACE_FIXTURES, validateExport } from './exports-support.js';
const SHOPIFY = join(MARKETPLACE_FIXTURES, 'shopify-orders.csv');
const AMAZON = join(MARKETPLACE_FIXTURES, 'amazon-order-report.txt');
const WOO = join(MARKETPLACE_FIXTURES, 'woocommerce-one-row-per-item.csv');
const at = useTempDir('marketplace-exports');

const validate = (file: string, out: string) => validateExport(at, file, out);

describe('a Shopify orders export', () => {
  it('is detected, said on the first line, and every planted problem is on its source row and column', async () => {
    const { result, byId } = await validate(SHOPIFY, 'shopify.result.xlsx');
    expect(result.report.input[0]!.mapping).toMatchObject({ profile: 'shopify', detected: true });
    expect(formatValidateText(result.report).split('\n')[0]).toBe(`${SHOPIFY}: read as a Shopify orders export (mapping profile shopify, detected from its columns).`);
    expect(byId.get('#1041')).toEqual({ status: 'valid', issues: [] });
    expect(byId.get('#1042')).toEqual({ status: 'valid', issues: [] });
    expect(byId.get('#1046')).toEqual({ status: 'valid', issues: [] });
    expect(byId.get('#1043')).toEqual({ status: 'invalid', issues: [[5, 'Shipping Zip', 'required']] });
    expect(byId.get('#1044')).toEqual({ status: 'invalid', issues: [[6, 'Lineitem quantity', 'invalid_integer']] });
    expect(byId.get('#1045')).toEqual({ status: 'invalid', issues: [[7, 'Lineitem sku', 'required']] });
    expect(byId.get('#1047')).toEqual({ status: 'invalid', issues: [[9, 'Shipping Phone', 'invalid_phone']] });
    // Neither a "not an order field" warning per column nor a computed total per order: one line for the file, if any.
    expect(result.report.input[0]!.issues).toEqual([]);
    expect(([...result.report.orders] as JsonOrder[]).flatMap((o) => o.issues.filter((i) => i.code === 'computed_total'))).toEqual([]);
  });

  it('keeps the input row for row in the result, cells highlighted in the source columns; the Fix sheet is in template form', async () => {
    await validate(SHOPIFY, 'shopify-rows.result.xlsx');
    const book = await readWorkbook(at('shopify-rows.result.xlsx'));
    const results = sheet(book, 'Results');
    const headers = (results.getRow(1).values as unknown[]).slice(1);
    expect(headers.slice(0, 3)).toEqual(['Name', 'Email', 'Financial Status']);
    const zip = headers.indexOf('Shipping Zip') + 1;
    expect(results.getRow(5).getCell(zip).note).toBeTruthy();
    const fix = sheet(book, 'Fix');
    const fixHeaders = (fix.getRow(1).values as unknown[]).slice(1) as string[];
    const value = (row: number, field: string) => fix.getRow(row).getCell(fixHeaders.indexOf(field) + 1).value;
    expect(fixHeaders[0]).toBe('customerOrderId');
    expect(value(2, 'customerOrderId')).toBe('#1043');
    expect(value(2, 'fullName')).toBe('Robin Recipient');
    expect(value(2, 'sourceOfSale')).toBe('OtherMarketplace');
    expect(value(2, 'customerLineItemId')).toBe('1');
    expect(value(2, 'productId')).toBe('PRD-1004');
    expect(fix.getRow(2).getCell(fixHeaders.indexOf('postalOrZipCode') + 1).note).toContain('Shipping Zip is empty');
  });
});

describe('an Amazon order report (tab-delimited)', () => {
  it('is detected; an amount that is no whole number of cents per unit, a bad ZIP and a future date are on their cells', async () => {
    const { result, byId } = await validate(AMAZON, 'amazon.result.csv');
    expect(result.report.input[0]!.mapping).toMatchObject({ profile: 'amazon', detected: true });
    expect(byId.get('113-4567890-1234567')).toEqual({ status: 'valid', issues: [] });
    expect(byId.get('114-5566778-8990011')).toEqual({ status: 'valid', issues: [] });
    expect(byId.get('114-0149180-7966659')).toEqual({ status: 'invalid', issues: [[4, 'item-price', 'invalid_number']] });
    expect(byId.get('112-9988776-5544332')).toEqual({ status: 'invalid', issues: [[5, 'ship-postal-code', 'invalid_postal_code']] });
    expect(byId.get('111-2233445-6677889')).toEqual({ status: 'invalid', issues: [[6, 'purchase-date', 'order_date_in_future']] });
  });
});

describe('a WooCommerce export, Default - One Row per Item', () => {
  it('is detected; a missing SKU and city and a thirteenth month are on their cells', async () => {
    const { result, byId } = await validate(WOO, 'woo.result.csv');
    expect(result.report.input[0]!.mapping).toMatchObject({ profile: 'woocommerce', detected: true });
    expect(byId.get('5001')).toEqual({ status: 'valid', issues: [] });
    expect(byId.get('5002')).toEqual({ status: 'valid', issues: [] });
    expect(byId.get('5003')).toEqual({ status: 'invalid', issues: [[5, 'item_sku', 'required']] });
    expect(byId.get('5004')).toEqual({ status: 'invalid', issues: [[6, 'shipping_city', 'required']] });
    expect(byId.get('5005')).toEqual({ status: 'invalid', issues: [[7, 'date', 'invalid_date']] });
  });
});

describe('imported with no option', () => {
  it('sends every good order with the recipient, products, quantities and prices from the right columns', async () => {
    const { result, orders } = await importExports(at, [SHOPIFY, AMAZON, WOO]);
    expect(result.report.summary).toEqual({ accepted: 7, invalid: 10 });

    const shopify = orders.get('#1041')!;
    expect(shopify.customerDetails.shippingAddress).toEqual({
      fullName: 'Robin Recipient', email: 'buyer@example.com', addressLines: ['14 Elm St', 'Apt 2'], city: 'Somerville', provinceOrState: 'MA',
      postalOrZipCode: '02143', countryCode: 'US', phone: '+1 617-555-0142',
    });
    expect(shopify.orderDetails).toMatchObject({ marketplaceOrderId: '#1041', sourceOfSale: 'OtherMarketplace', orderDate: '2026-11-17T14:12:40.000Z', subTotal: 54.98, discountTotal: 2, salesTax: 4.2, grandTotal: 59.18 });
    expect(shopify.orderDetails.lineItems).toEqual([
      { productId: 'PRD-1001', customerLineItemId: '1', name: 'Ceramic mug, blue', quantity: 2, unitPrice: 12.99, discount: 1 },
      { productId: 'PRD-1002', customerLineItemId: '2', name: 'Tea towel', quantity: 1, unitPrice: 29, discount: 0 },
    ]);
    expect(shopify.orderShippingDetails).toEqual({ carrierId: 'CarrierXGround' });
    expect(orders.get('#1046')!.customerDetails.shippingAddress.countryCode).toBe('CA');
    expect(orders.get('#1046')!.orderShippingDetails).toEqual({ carrierId: 'CarrierX2Day' });

    const amazon = orders.get('113-4567890-1234567')!;
    expect(amazon.customerDetails.shippingAddress).toMatchObject({ fullName: 'Dana Recipient', addressLines: ['77 Lake Shore Dr', 'Unit 5'], postalOrZipCode: '60611-1234', phone: '312-555-0123' });
    expect(amazon.orderDetails).toMatchObject({ salesTax: 1.8, subTotal: 35.97, grandTotal: 37.77, discountTotal: 2 });
    expect(amazon.orderDetails.lineItems).toEqual([
      { productId: 'PRD-1008', customerLineItemId: '59686379847882', name: 'Bucket hat, khaki', quantity: 2, unitPrice: 12.99, discount: 1 },
      { productId: 'PRD-1009', customerLineItemId: '59686379847883', name: 'Sun visor', quantity: 1, unitPrice: 9.99, discount: 0 },
    ]);

    const woo = orders.get('5001')!;
    expect(woo.customerDetails.shippingAddress).toMatchObject({ fullName: 'Mia Receiver', addressLines: ['450 Castro St'], phone: '(415) 555-0101', countryCode: 'US' });
    expect(woo.orderDetails.lineItems[0]).toEqual({ productId: 'PRD-1014', customerLineItemId: '301', name: 'Linen shirt - M', quantity: 2, unitPrice: 20, discount: 2 });
    expect(orders.get('5002')!.customerDetails.shippingAddress.countryCode).toBe('US');

    // Reconcile --orders reads the result of an export the same way import read the export.
    const sentFile = await readOrdersFile(join(at('imported'), 'shopify-orders.import-result.xlsx'), { logger: silentLogger });
    expect(sentFile.customerOrderIds).toEqual(['#1041', '#1042', '#1046']);
    expect(sentFile.skipped).toEqual({ invalid: 4 });
    const expected = sentFile.expected.get('#1041')!;
    expect(expected).toMatchObject({ marketplaceOrderId: '#1041', sourceOfSale: 'OtherMarketplace', orderDate: '2026-11-17T14:12:40.000Z' });
    expect(expected.lines.map((l) => [l.customerLineItemId, l.productId, l.quantity])).toEqual([['1', 'PRD-1001', 2], ['2', 'PRD-1002', 1]]);
  });
});
