/** Every issue code the checker produces, with a failing and a passing case from the spec's tables. */
import { describe, expect, it } from 'vitest';
import { NOW, checkOne, codes, contextAt, isoDaysBefore, issuesWith, laterRow, validRow } from './support.js';

const DAY_MS = 86_400_000;

describe('a valid order', () => {
  it('has no issues and is valid', async () => {
    const order = await checkOne([validRow()]);
    expect(order.issues).toEqual([]);
    expect(order.status).toBe('valid');
  });
});

describe('required', () => {
  it('reports a blank required order value on the order first row, at its cell', async () => {
    const order = await checkOne([validRow({ fullName: '  ' })]);
    expect(order.status).toBe('invalid');
    expect(issuesWith(order, 'required')).toEqual([
      { row: 2, column: 'fullName', code: 'required', severity: 'error', message: 'fullName is empty: every order needs one.', colIndex: 9 },
    ]);
  });

  it('accepts an order-level value given only on a later row', async () => {
    const order = await checkOne([validRow({ city: '', quantity: '1' }), validRow({ customerLineItemId: '2', quantity: '1' })]);
    expect(order.issues).toEqual([]);
  });

  it('reports a blank line value on its own row', async () => {
    const order = await checkOne([validRow({ quantity: '1' }), validRow({ customerLineItemId: '2', quantity: '1', productId: '' })]);
    expect(issuesWith(order, 'required').map((i) => [i.row, i.column])).toEqual([[3, 'productId']]);
  });

  it('reports a row without customerOrderId as an invalid order of its own', async () => {
    const rows = [validRow({ quantity: '1' }), validRow({ customerOrderId: '', customerLineItemId: '2', quantity: '1' })];
    const { check } = await import('./support.js');
    const sheet = await check(rows);
    expect(sheet.orders.map((o) => [o.customerOrderId, o.rows, o.status])).toEqual([
      ['SO-1', [2], 'invalid'], // its totals no longer add up without the second line
      [null, [3], 'invalid'],
    ]);
    expect(codes(sheet.orders.at(1)!)).toContain('required');
    expect(issuesWith(sheet.orders.at(1)!, 'required')[0]!.message).toMatch(/every row must name its order/);
  });

  it('accepts an address whose first line is blank, sending the non-blank lines', async () => {
    const order = await checkOne([validRow({ addressLine1: '', addressLine2: 'Apt 4B', addressLine3: '12 Side St' })]);
    expect(order.issues).toEqual([]);
    expect(order.payload?.customerDetails.shippingAddress.addressLines).toEqual(['Apt 4B', '12 Side St']);
    const later = await checkOne([validRow({ addressLine1: '', addressLine2: '', quantity: '1' }), laterRow({ addressLine1: '', addressLine2: 'Apt 4B', customerLineItemId: '2', quantity: '1' })]);
    expect(later.issues).toEqual([]);
    expect(later.payload?.customerDetails.shippingAddress.addressLines).toEqual(['Apt 4B']);
  });

  it('still needs one non-blank address line, asked for at addressLine1', async () => {
    const order = await checkOne([validRow({ addressLine1: ' ', addressLine2: '', addressLine3: '' })]);
    expect(order.status).toBe('invalid');
    expect(issuesWith(order, 'required')).toEqual([
      { row: 2, column: 'addressLine1', code: 'required', severity: 'error', message: 'addressLine1 is empty, and so are the other address lines: every order needs a shipping address line.', colIndex: 11 },
    ]);
  });

  it('asks for a carrier when other shipping details are filled in', async () => {
    const order = await checkOne([validRow({ shipLabelNameDisplay: 'Acme Mugs' })]);
    expect(issuesWith(order, 'required')).toMatchObject([{ row: 2, column: 'carrierId', message: expect.stringMatching(/shipLabelNameDisplay is filled in/) }]);
    expect((await checkOne([validRow({ shipLabelNameDisplay: 'Acme Mugs', carrierId: 'CarrierXGround' })])).issues).toEqual([]);
  });
});

describe('too_long', () => {
  it.each([
    ['customerOrderId', 40],
    ['marketplaceOrderId', 40],
    ['fullName', 100],
    ['email', 100],
    ['city', 50],
    ['productId', 50],
    ['customerLineItemId', 40],
    ['name', 100],
    ['addressLine1', 255],
  ] as const)('accepts %s at %i characters and refuses one more', async (field, limit) => {
    const value = (n: number): string => (field === 'email' ? `${'a'.repeat(n - 12)}@example.com` : 'A'.repeat(n));
    const fits = await checkOne([validRow({ [field]: value(limit) })]);
    expect(fits.issues).toEqual([]);
    const over = await checkOne([validRow({ [field]: value(limit + 1) })]);
    expect(codes(over)).toEqual(['too_long']);
    expect(over.issues[0]!.message).toContain(`is ${limit + 1} characters long; the limit is ${limit}`);
  });

});

describe('not_allowed', () => {
  it('refuses a source of sale outside the configured list, naming the closest', async () => {
    const order = await checkOne([validRow({ sourceOfSale: 'OtherMarketplaces' })]);
    expect(codes(order)).toEqual(['not_allowed']);
    expect(order.issues[0]!.message).toContain('the closest is OtherMarketplace');
  });

  it('refuses a case-only difference and says how to write it', async () => {
    const order = await checkOne([validRow({ carrierId: 'carrierxground' })]);
    expect(codes(order)).toEqual(['not_allowed']);
    expect(order.issues[0]!.message).toBe('carrierId "carrierxground" must be written exactly CarrierXGround: values are case sensitive.');
  });

  it('accepts configured sources of sale', async () => {
    const ctx = contextAt(NOW, { sourcesOfSale: ['OtherMarketplace', 'ShopA'] });
    expect((await checkOne([validRow({ sourceOfSale: 'ShopA' })], ctx)).issues).toEqual([]);
  });
});

describe('invalid_number', () => {
  it('refuses a line whose quantity x unitPrice is past exact cents, on both cells of the product', async () => {
    const order = await checkOne([validRow({ quantity: '100000000', unitPrice: '999999999.99', subTotal: '', grandTotal: '' })]);
    expect(order.status).toBe('invalid');
    const issues = order.issues.filter((i) => i.severity === 'error');
    // The quantity is a fine whole number and the price a fine amount: not invalid_integer; their product is the amount at fault.
    expect(issues.map((i) => [i.row, i.column, i.code])).toEqual([
      [2, 'quantity', 'invalid_number'],
      [2, 'unitPrice', 'invalid_number'],
    ]);
    expect(issues[0]!.message).toBe(
      'quantity 100000000 x unitPrice 999999999.99 is more than 90071992547409.91, the largest amount that adds up exactly in cents: check both cells, one is probably mistyped.',
    );
    expect(order.payload).toBeUndefined();
  });

  it('refuses lines fine alone that add up past exact cents, on the subTotal', async () => {
    const big = { quantity: '50000', unitPrice: '999999999.99', subTotal: '', grandTotal: '' };
    const order = await checkOne([validRow(big), laterRow({ ...big, customerLineItemId: '2' })]);
    const issues = order.issues.filter((i) => i.severity === 'error');
    expect(issues.map((i) => [i.row, i.column, i.code])).toEqual([[3, 'subTotal', 'invalid_number']]);
    expect(issues[0]!.message).toMatch(/^The lines of order SO-1 up to row 3 add up \(unitPrice x quantity\) to more than 90071992547409\.91/);
  });

  it('refuses an amount with a comma as decimal mark', async () => {
    const order = await checkOne([validRow({ unitPrice: '29,99' })]);
    expect(codes(order)).toEqual(['invalid_number']);
    expect(order.issues[0]).toMatchObject({ row: 2, column: 'unitPrice', colIndex: 28 });
  });

  it('refuses more than 2 decimals, with a message that says so', async () => {
    const order = await checkOne([validRow({ salesTax: '4.955' })]);
    expect(issuesWith(order, 'invalid_number')[0]!.message).toBe('salesTax "4.955" has more than 2 decimals: amounts are in whole cents, like 12.35.');
  });

  it('reads $ signs and thousands commas', async () => {
    const order = await checkOne([validRow({ unitPrice: '$1,000.00', quantity: '1', subTotal: '$1,000', grandTotal: '1,004.95' })]);
    expect(order.issues).toEqual([]);
  });
});

describe('invalid_integer and not_positive', () => {
  it('refuses a fractional quantity', async () => {
    expect(codes(await checkOne([validRow({ quantity: '2.5' })]))).toEqual(['invalid_integer']);
  });

  it('reads 2.0 as 2', async () => {
    expect((await checkOne([validRow({ quantity: '2.0' })])).issues).toEqual([]);
  });

  it('refuses quantity 0 and accepts 1', async () => {
    expect(codes(await checkOne([validRow({ quantity: '0' })]))).toEqual(['not_positive']);
    const one = await checkOne([validRow({ quantity: '1', subTotal: '29.99', grandTotal: '34.94' })]);
    expect(one.issues).toEqual([]);
  });
});

describe('negative', () => {
  it('refuses a unitPrice of -0.01 and accepts 0', async () => {
    expect(codes(await checkOne([validRow({ unitPrice: '-0.01' })]))).toEqual(['negative']);
    expect((await checkOne([validRow({ unitPrice: '0', subTotal: '0', grandTotal: '4.95' })])).issues).toEqual([]);
  });

  it('refuses a negative subTotal, accounting style included', async () => {
    const order = await checkOne([validRow({ subTotal: '(59.98)' })]);
    expect(codes(order)).toEqual(['negative']);
  });
});

describe('invalid_date', () => {
  it('refuses a date that does not exist and says which formats work', async () => {
    const order = await checkOne([validRow({ orderDate: '2026-02-30' })]);
    expect(codes(order)).toEqual(['invalid_date']);
    expect(order.issues[0]!.message).toContain('use YYYY-MM-DD');
  });

  it('reads a requestedDeliveryDate in US form', async () => {
    const order = await checkOne([validRow({ requestedDeliveryDate: '12/1/2026' })]);
    expect(order.issues).toEqual([]);
    expect(order.payload?.orderDetails.requestedDeliveryDate).toBe('2026-12-01T00:00:00.000Z');
  });
});

describe('order date window', () => {
  const at = (ms: number): string => new Date(ms).toISOString();

  it('refuses an order exactly 30 days old and accepts one 1 ms younger', async () => {
    const old = await checkOne([validRow({ orderDate: at(NOW.getTime() - 30 * DAY_MS) })]);
    expect(codes(old)).toEqual(['order_date_too_old']);
    expect(old.issues[0]!.message).toContain('30 days before now');
    const fresh = await checkOne([validRow({ orderDate: at(NOW.getTime() - 30 * DAY_MS + 1) })]);
    expect(fresh.issues).toEqual([]);
  });

  it('refuses an order 1 ms in the future and accepts one placed right now', async () => {
    const future = await checkOne([validRow({ orderDate: at(NOW.getTime() + 1) })]);
    expect(codes(future)).toEqual(['order_date_in_future']);
    expect(future.issues[0]!.message).toContain('is in the future');
    expect((await checkOne([validRow({ orderDate: at(NOW.getTime()) })])).issues).toEqual([]);
  });

  it('evaluates the window at ctx.now, never the wall clock: a year from now', async () => {
    // A year past both the wall clock and the fixed test instant, whenever this runs.
    const now = new Date(Math.max(Date.now(), NOW.getTime()) + 365 * DAY_MS);
    const ctx = contextAt(now);
    expect((await checkOne([validRow({ orderDate: isoDaysBefore(now, 1) })], ctx)).issues).toEqual([]);
    expect(codes(await checkOne([validRow({ orderDate: isoDaysBefore(now, 31) })], ctx))).toEqual(['order_date_too_old']);
    // The default test instant's "yesterday" is long gone by then.
    expect(codes(await checkOne([validRow()], ctx))).toEqual(['order_date_too_old']);
  });

  it('reads a date alone as the start of that day in the sheet time zone', async () => {
    // 2026-11-20 starts at 05:00Z in New York, seven hours before NOW: not in the future.
    const ctx = contextAt(NOW, { timezone: 'America/New_York' });
    const order = await checkOne([validRow({ orderDate: '2026-11-20' })], ctx);
    expect(order.issues).toEqual([]);
    expect(order.payload?.orderDetails.orderDate).toBe('2026-11-20T05:00:00.000Z');
    // 2026-11-20 08:00 in New York is 13:00Z: an hour after NOW.
    expect(codes(await checkOne([validRow({ orderDate: '2026-11-20 08:00' })], ctx))).toEqual(['order_date_in_future']);
  });
});

describe('invalid_postal_code and postal_code_padded', () => {
  it.each(['62704', '02134', '02134-1234'])('accepts the US ZIP %s', async (zip) => {
    expect((await checkOne([validRow({ postalOrZipCode: zip })])).issues).toEqual([]);
  });

  it('refuses 9 digits without the ZIP+4 dash and shows the dashed form', async () => {
    const order = await checkOne([validRow({ postalOrZipCode: '021341234' })]);
    expect(codes(order)).toEqual(['invalid_postal_code']);
    expect(order.issues[0]!.message).toContain('write it as 02134-1234');
  });

  it.each(['12', '123456', '6270A', '62704-12'])('refuses the US ZIP %s', async (zip) => {
    expect(codes(await checkOne([validRow({ postalOrZipCode: zip })]))).toEqual(['invalid_postal_code']);
  });

  it('pads a ZIP code that lost its leading zero, with a warning, and sends the padded one', async () => {
    const order = await checkOne([validRow({ postalOrZipCode: 2134 })], contextAt(), { format: 'xlsx' });
    expect(order.status).toBe('valid');
    expect(order.issues).toMatchObject([{ code: 'postal_code_padded', severity: 'warning', row: 2, column: 'postalOrZipCode' }]);
    expect(order.issues[0]!.message).toContain('read as 02134');
    expect(order.payload?.customerDetails.shippingAddress.postalOrZipCode).toBe('02134');
  });

  it("reads a ZIP+4 stored as a number (Excel's Zip Code + 4 format) as the ZIP+4 Excel shows, with a warning", async () => {
    // 12345678 under the format 00000-0000 shows as 01234-5678: the number lost its leading zero and its dash.
    for (const [stored, sent] of [[12345678, '01234-5678'], [621341234, '62134-1234']] as const) {
      const order = await checkOne([validRow({ postalOrZipCode: stored })], contextAt(), { format: 'xlsx' });
      expect(order.status).toBe('valid');
      expect(order.issues).toMatchObject([{ code: 'postal_code_padded', severity: 'warning', column: 'postalOrZipCode' }]);
      expect(order.issues[0]!.message).toContain(`was read as ${sent}`);
      expect(order.payload?.customerDetails.shippingAddress.postalOrZipCode).toBe(sent);
    }
    // Typed as text, nine digits stay refused: the tool does not reshape what a person typed.
    expect(codes(await checkOne([validRow({ postalOrZipCode: '621341234' })], contextAt(), { format: 'xlsx' }))).toEqual(['invalid_postal_code']);
  });

  it('leaves postal codes of other countries alone', async () => {
    const order = await checkOne([validRow({ countryCode: 'GB', postalOrZipCode: 'SW1A 1AA' })]);
    expect(order.issues).toEqual([]);
  });

  it('checks a ZIP against a country given only on a later row', async () => {
    const order = await checkOne([
      validRow({ countryCode: '', postalOrZipCode: '123', quantity: '1' }),
      validRow({ customerLineItemId: '2', quantity: '1', postalOrZipCode: '' }),
    ]);
    expect(codes(order)).toEqual(['postal_code_padded']);
    expect(order.payload?.customerDetails.shippingAddress.postalOrZipCode).toBe('00123');
  });
});

describe('invalid_country_code', () => {
  it('refuses a three-letter code and upper-cases a lower-case one silently', async () => {
    expect(codes(await checkOne([validRow({ countryCode: 'USA' })]))).toEqual(['invalid_country_code']);
    const lower = await checkOne([validRow({ countryCode: 'us' })]);
    expect(lower.issues).toEqual([]);
    expect(lower.payload?.customerDetails.shippingAddress.countryCode).toBe('US');
  });
});

describe('invalid_phone', () => {
  it('accepts a phone of 35 characters and refuses 36', async () => {
    const phone = (n: number): string => `+1 (217) 555-0134 ext ${'1'.repeat(n - 22)}`;
    expect((await checkOne([validRow({ phone: phone(35) })])).issues).toEqual([]);
    const long = await checkOne([validRow({ phone: phone(36) })]);
    expect(codes(long)).toEqual(['invalid_phone']);
    expect(long.issues[0]!.message).toContain('is 36 characters long; a phone number may have at most 35');
  });

  it('refuses 9 digits and accepts 10', async () => {
    const nine = await checkOne([validRow({ phone: '555-012-345' })]);
    expect(codes(nine)).toEqual(['invalid_phone']);
    expect(nine.issues[0]!.message).toContain('has 9 digits');
    expect((await checkOne([validRow({ phone: '555-012-3456' })])).issues).toEqual([]);
  });
});

describe('invalid_email', () => {
  it('refuses an address without a domain and accepts a plain one', async () => {
    expect(codes(await checkOne([validRow({ email: 'maria@example' })]))).toEqual(['invalid_email']);
    expect((await checkOne([validRow({ email: 'maria.lopez+orders@example.co.uk' })])).issues).toEqual([]);
  });

  it('leaves out a blank email', async () => {
    const order = await checkOne([validRow({ email: '' })]);
    expect(order.issues).toEqual([]);
    expect(order.payload?.customerDetails.shippingAddress).not.toHaveProperty('email');
  });
});

describe('too_many_address_lines', () => {
  it('splits line breaks inside an address cell into address lines, up to 3', async () => {
    const order = await checkOne([validRow({ addressLine1: '123 Main St\nBuilding 2', addressLine2: 'Apt 4B' })]);
    expect(order.issues).toEqual([]);
    expect(order.payload?.customerDetails.shippingAddress.addressLines).toEqual(['123 Main St', 'Building 2', 'Apt 4B']);
  });

  it('refuses a fourth line', async () => {
    const order = await checkOne([validRow({ addressLine1: '123 Main St\r\nBuilding 2', addressLine2: 'Apt 4B', addressLine3: 'Back door' })]);
    expect(codes(order)).toEqual(['too_many_address_lines']);
    expect(order.issues[0]).toMatchObject({ row: 2, column: 'addressLine3' });
  });
});

describe('duplicate_line_item_id', () => {
  it('flags every row that repeats a line ID within the order', async () => {
    const order = await checkOne([
      validRow({ quantity: '1', subTotal: '89.97', grandTotal: '94.92' }),
      laterRow(),
      laterRow({ customerLineItemId: '1', productId: 'PRD-9' }),
    ]);
    expect(issuesWith(order, 'duplicate_line_item_id').map((i) => i.row)).toEqual([2, 4]);
    expect(order.issues[0]!.message).toBe('customerLineItemId "1" is used on rows 2, 4 of order SO-1: each line of an order needs its own ID.');
  });

  it('allows the same line ID in different orders', async () => {
    const { check } = await import('./support.js');
    const sheet = await check([validRow(), validRow({ customerOrderId: 'SO-2' })]);
    expect(sheet.orders.map((o) => o.issues)).toEqual([[], []]);
  });
});

describe('conflicting_order_value', () => {
  it('reports two different values of one order field on both rows, naming the other row and both values', async () => {
    const order = await checkOne([validRow({ quantity: '1', subTotal: '', grandTotal: '' }), validRow({ customerLineItemId: '2', quantity: '1', fullName: 'Maria López', subTotal: '', grandTotal: '' })]);
    const conflicts = issuesWith(order, 'conflicting_order_value');
    expect(conflicts.map((i) => [i.row, i.column])).toEqual([
      [2, 'fullName'],
      [3, 'fullName'],
    ]);
    expect(conflicts[0]!.message).toBe(
      'fullName differs within order SO-1: row 2 has "Maria Lopez", row 3 has "Maria López". Use one value on every row of the order (or leave it blank after the first row).',
    );
  });

  it('compares normalised values: $5.00 and 5 are the same amount', async () => {
    const order = await checkOne([
      validRow({ quantity: '1', salesTax: '$5.00', subTotal: '59.98', grandTotal: '64.98' }),
      validRow({ customerLineItemId: '2', quantity: '1', salesTax: '5', grandTotal: '$64.98' }),
    ]);
    expect(order.issues).toEqual([]);
  });

  it('compares dates as instants: 2026-11-19 14:30 and 11/19/2026 2:30 PM agree', async () => {
    const order = await checkOne([validRow({ quantity: '1' }), validRow({ customerLineItemId: '2', quantity: '1', orderDate: '11/19/2026 2:30 PM' })]);
    expect(order.issues).toEqual([]);
  });
});

describe('totals', () => {
  it('refuses a subTotal one cent off, giving expected and found', async () => {
    const order = await checkOne([validRow({ subTotal: '59.97', grandTotal: '64.92' })]);
    expect(codes(order)).toEqual(['subtotal_mismatch', 'grand_total_mismatch']);
    expect(order.issues[0]!.message).toContain('subTotal is 59.97 but the lines add up to 59.98');
  });

  it('refuses a grandTotal one cent off', async () => {
    const order = await checkOne([validRow({ grandTotal: '64.94' })]);
    expect(codes(order)).toEqual(['grand_total_mismatch']);
    expect(order.issues[0]!.message).toBe('grandTotal is 64.94 but subTotal 59.98 plus salesTax 4.95 is 64.93. Correct it, or leave it blank to have it computed.');
  });

  it('does not blame a right grandTotal for a wrong subTotal', async () => {
    expect(codes(await checkOne([validRow({ subTotal: '59.97' })]))).toEqual(['subtotal_mismatch']);
  });

  it('adds 0.1 + 0.2 style amounts exactly: 0.10 x 1 + 0.20 x 1 is 0.30', async () => {
    const order = await checkOne([
      validRow({ unitPrice: '0.10', quantity: '1', subTotal: '0.30', salesTax: '0', grandTotal: '0.30' }),
      laterRow({ unitPrice: '0.20', salesTax: '0' }),
    ]);
    expect(order.issues).toEqual([]);
    expect(order.payload?.orderDetails).toMatchObject({ subTotal: 0.3, grandTotal: 0.3 });
  });

  it('checks discountTotal against discount x quantity, to the cent', async () => {
    const ok = await checkOne([validRow({ discount: '2.50', discountTotal: '5.00' })]);
    expect(ok.issues).toEqual([]);
    const off = await checkOne([validRow({ discount: '2.50', discountTotal: '4.99' })]);
    expect(codes(off)).toEqual(['discount_total_mismatch']);
    expect(off.issues[0]!.message).toContain("discountTotal is 4.99 but the lines' discounts add up to 5.00");
  });

  it('computes blank totals, with a warning for each', async () => {
    const order = await checkOne([validRow({ subTotal: '', grandTotal: '', discount: '1.00' })]);
    expect(order.status).toBe('valid');
    expect(order.issues.map((i) => [i.code, i.column, i.severity])).toEqual([
      ['computed_total', 'subTotal', 'warning'],
      ['computed_total', 'discountTotal', 'warning'],
      ['computed_total', 'grandTotal', 'warning'],
    ]);
    expect(order.payload?.orderDetails).toMatchObject({ subTotal: 59.98, discountTotal: 2, grandTotal: 64.93 });
  });

  it('leaves discountTotal out when no line has a discount', async () => {
    const order = await checkOne([validRow({ discount: '0' })]);
    expect(order.issues).toEqual([]);
    expect(order.payload?.orderDetails).not.toHaveProperty('discountTotal');
    expect(order.payload?.orderDetails.lineItems[0]).toMatchObject({ discount: 0 });
  });

  it('puts a totals issue on the row that holds the total', async () => {
    const order = await checkOne([
      validRow({ quantity: '1', subTotal: '', grandTotal: '' }),
      validRow({ customerLineItemId: '2', quantity: '1', subTotal: '', grandTotal: '70.00' }),
    ]);
    expect(issuesWith(order, 'grand_total_mismatch').map((i) => i.row)).toEqual([3]);
  });
});

describe('scientific_notation', () => {
  it('refuses an ID Excel turned into 1.23457E+10, telling the user to format the column as text', async () => {
    const order = await checkOne([validRow({ productId: '1.23457E+10' })]);
    expect(codes(order)).toEqual(['scientific_notation']);
    expect(order.issues[0]!.message).toContain('format the productId column as Text');
  });

  it('refuses a phone stored as a number too large to be exact', async () => {
    const order = await checkOne([validRow({ phone: 1.2345678901234567e16 })], contextAt(), { format: 'xlsx' });
    expect(codes(order)).toEqual(['scientific_notation']);
  });

  it('reads whole numbers in ID and phone cells as their digits', async () => {
    const order = await checkOne([validRow({ phone: 2175550134, customerLineItemId: 1, marketplaceOrderId: 1134567890 })], contextAt(), { format: 'xlsx' });
    expect(order.issues).toEqual([]);
    expect(order.payload?.customerDetails.shippingAddress.phone).toBe('2175550134');
    expect(order.payload?.orderDetails.lineItems[0]!.customerLineItemId).toBe('1');
  });

  it('leaves scientific-looking text alone in a name', async () => {
    expect((await checkOne([validRow({ name: '1.5E+3 widget' })])).issues).toEqual([]);
  });
});
