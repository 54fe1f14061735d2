/**
 * A line break inside a one-line text cell (a quoted CSV newline, Excel's Alt+Enter) never reaches the API:
 * the lines are joined by a single space. Address cells keep theirs, as address lines.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { checkFile } from '../../src/validate/check-file.js';
import { silentLogger } from '../../src/log.js';
import { joinLines } from '../../src/orders/text.js';
import { COLUMNS } from '../../src/sheet/columns.js';
import { checkOne, codes, contextAt, laterRow, validRow } from './support.js';
import { useTempFolder } from '../support/temp-dir.js';

const dir = useTempFolder('line-breaks');

describe('joinLines', () => {
  it('joins the lines of a cell with single spaces, whatever the line break, dropping blank lines', () => {
    expect(joinLines('Ann\r\nLee')).toBe('Ann Lee');
    expect(joinLines('Ann\nLee')).toBe('Ann Lee');
    expect(joinLines('Ann\rLee')).toBe('Ann Lee');
    expect(joinLines('Ann  \n\n   Lee\n')).toBe('Ann Lee');
    expect(joinLines('Ann  Lee')).toBe('Ann  Lee');
  });
});

describe('a line break in a one-line text field', () => {
  it('is sent as a space in every one-line text field', async () => {
    const order = await checkOne([
      validRow({
        customerOrderId: 'SO-1',
        fullName: 'Ann\r\nLee',
        email: 'ann@example.com',
        city: 'Spring\nfield',
        provinceOrState: 'Illi\nnois',
        phone: '(217)\n555-0134',
        marketplaceOrderId: '113-4567890\n-1234567',
        carrierId: 'CarrierXGround',
        shippingAccountNumber: '00\n12345',
        shipLabelNameDisplay: 'Brand\r\nName',
        shippingContactName: 'Ship\rCo',
        shippingContactPhoneNumber: '217 555\n0100',
        productId: 'PRD-1001',
        customerLineItemId: '1',
        name: 'Ceramic mug,\nblue',
      }),
    ]);
    expect(order.issues).toEqual([]);
    const address = order.payload!.customerDetails.shippingAddress;
    expect(address.fullName).toBe('Ann Lee');
    expect(address.city).toBe('Spring field');
    expect(address.provinceOrState).toBe('Illi nois');
    expect(address.phone).toBe('(217) 555-0134');
    const details = order.payload!.orderDetails;
    expect(details.marketplaceOrderId).toBe('113-4567890 -1234567');
    expect(details.lineItems[0]!.name).toBe('Ceramic mug, blue');
    const shipping = order.payload!.orderShippingDetails!;
    expect(shipping.shippingAccountNumber).toBe('00 12345');
    expect(shipping.shipLabelNameDisplay).toBe('Brand Name');
    expect(shipping.shippingContactName).toBe('Ship Co');
    expect(shipping.shippingContactPhoneNumber).toBe('217 555 0100');
    expect(JSON.stringify(order.payload)).not.toMatch(/\\[rn]/);
  });

  it('is checked for length once joined, and the same name on two lines or one is one value', async () => {
    const order = await checkOne([validRow({ fullName: 'Ann\nLee', subTotal: '', grandTotal: '' }), laterRow({ fullName: 'Ann Lee' })]);
    expect(codes(order)).toEqual(['computed_total', 'computed_total']);
    expect(order.payload!.customerDetails.shippingAddress.fullName).toBe('Ann Lee');

    const max = COLUMNS.find((c) => c.field === 'fullName')!.maxLength!;
    const half = 'x'.repeat(max / 2);
    const fits = await checkOne([validRow({ fullName: `${half}\n${half.slice(1)}` })]);
    expect(fits.payload!.customerDetails.shippingAddress.fullName).toHaveLength(max);
    const tooLong = await checkOne([validRow({ fullName: `${half}\n${half}` })]);
    expect(codes(tooLong)).toEqual(['too_long']);
  });

  it('reads an Excel Alt+Enter the same way (xlsx cells)', async () => {
    const order = await checkOne([validRow({ fullName: 'Ann\nLee', name: 'Mug\nlarge' })], contextAt(), { format: 'xlsx' });
    expect(order.payload!.customerDetails.shippingAddress.fullName).toBe('Ann Lee');
    expect(order.payload!.orderDetails.lineItems[0]!.name).toBe('Mug large');
  });

  it('still splits an address cell into address lines', async () => {
    const order = await checkOne([validRow({ addressLine1: '123 Main St\r\nBuilding 5', addressLine2: '' })]);
    expect(order.payload!.customerDetails.shippingAddress.addressLines).toEqual(['123 Main St', 'Building 5']);
  });
});

describe('line breaks in real files', () => {
  const H = 'customerOrderId,orderDate,sourceOfSale,fullName,addressLine1,city,provinceOrState,postalOrZipCode,countryCode,phone,productId,customerLineItemId,name,quantity,unitPrice,salesTax';
  const context = contextAt();

  async function payloadOf(path: string) {
    const checked = await checkFile(path, { context, logger: silentLogger });
    if (!checked.ok) throw new Error(checked.message);
    const order = checked.sheet.orders.at(0)!;
    expect(order.issues.filter((i) => i.severity === 'error')).toEqual([]);
    return order.payload!;
  }

  it('joins a quoted "Ann\\r\\nLee" in a CSV', async () => {
    const path = join(dir, 'quoted.csv');
    writeFileSync(path, `${H}\r\nRT-1,2026-11-19,OtherMarketplace,"Ann\r\nLee","1 St\nFloor 2",Boston,MA,02134,US,+1 617 555 0100,PRD-1001,1,"Mug\r\nlarge",1,1.00,0\r\n`);
    const payload = await payloadOf(path);
    expect(payload.customerDetails.shippingAddress.fullName).toBe('Ann Lee');
    expect(payload.customerDetails.shippingAddress.addressLines).toEqual(['1 St', 'Floor 2']);
    expect(payload.orderDetails.lineItems[0]!.name).toBe('Mug large');
  });

  it('joins an Alt+Enter line break in an xlsx cell', async () => {
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('Orders');
    sheet.addRow(H.split(','));
    sheet.addRow(['RT-1', '2026-11-19', 'OtherMarketplace', 'Ann\nLee', '1 St', 'Boston', 'MA', '02134', 'US', '+1 617 555 0100', 'PRD-1001', '1', 'Mug\nlarge', 1, 1, 0]);
    const path = join(dir, 'alt-enter.xlsx');
    await workbook.xlsx.writeFile(path);
    const payload = await payloadOf(path);
    expect(payload.customerDetails.shippingAddress.fullName).toBe('Ann Lee');
    expect(payload.orderDetails.lineItems[0]!.name).toBe('Mug large');
  });
});
