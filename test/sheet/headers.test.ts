import { describe, expect, it } from 'vitest';
import { COLUMNS } from '../../src/sheet/columns.js';
import { toColumnLetter } from '../../src/sheet/column-letters.js';
import { mapHeaders, suggestField } from '../../src/sheet/headers.js';

const REQUIRED = COLUMNS.filter((c) => c.requiredColumn).map((c) => c.field);

describe('mapping header row to fields', () => {
  it('maps field names regardless of case, spaces, underscores and hyphens', () => {
    const { columns, issues } = mapHeaders(['Customer Order ID', 'customer_line_item_id', 'UNIT-PRICE', 'postal or zip code']);
    expect(columns).toEqual(['customerOrderId', 'customerLineItemId', 'unitPrice', 'postalOrZipCode']);
    expect(issues.filter((i) => i.code !== 'missing_column')).toEqual([]);
  });

  it('accepts the common aliases', () => {
    const { columns } = mapHeaders(['Order ID', 'Zip', 'State', 'Address 1', 'Qty', 'Price', 'Ship To Name']);
    expect(columns).toEqual(['customerOrderId', 'postalOrZipCode', 'provinceOrState', 'addressLine1', 'quantity', 'unitPrice', 'fullName']);
  });

  it("reads no buyer's column as the recipient's, and no shipping column as the shipper's", () => {
    const { columns } = mapHeaders(['Order ID', 'Buyer Name', 'Buyer Email', 'Ship To Name', 'Shipping Contact', 'Shipping Contact Phone']);
    expect(columns).toEqual(['customerOrderId', null, null, 'fullName', null, null]);
  });

  it('names the first ten columns that are not order fields and counts the rest in one warning', () => {
    const extra = Array.from({ length: 1_000 }, (_, i) => (i % 100 === 99 ? '' : `Extra ${i}`));
    const { columns, issues } = mapHeaders([...REQUIRED, ...extra]);
    expect(columns.slice(REQUIRED.length).every((c) => c === null)).toBe(true);
    const unknown = issues.filter((i) => i.code === 'unknown_column');
    expect(unknown).toHaveLength(11);
    expect(unknown.slice(0, 10).map((i) => i.column)).toEqual(extra.slice(0, 10));
    expect(unknown[10]).toEqual({ row: 1, column: null, code: 'unknown_column', severity: 'warning', message: expect.stringMatching(/^990 more columns are not order fields and are ignored/) });
    expect(mapHeaders([...REQUIRED, ...extra.slice(0, 11)]).issues.at(-1)!.message).toMatch(/^1 more column is not an order field and is ignored/);
  });

  it('needs nothing else when every required column is there', () => {
    expect(mapHeaders([...REQUIRED]).issues).toEqual([]);
  });

  it('warns about an unknown column, on the header row, and suggests the field it resembles', () => {
    const { columns, issues } = mapHeaders([...REQUIRED, 'Custmer Emial'], 3);
    expect(columns.at(-1)).toBeNull();
    expect(issues).toEqual([
      {
        row: 3,
        column: 'Custmer Emial',
        code: 'unknown_column',
        severity: 'warning',
        colIndex: REQUIRED.length,
        message: expect.stringContaining('did you mean email?'),
      },
    ]);
  });

  it('warns about an unknown column without guessing when nothing is close', () => {
    const [issue] = mapHeaders([...REQUIRED, 'Internal notes']).issues;
    expect(issue!.code).toBe('unknown_column');
    expect(issue!.message).not.toContain('did you mean');
    expect(issue!.message).toContain('"Internal notes"');
  });

  it('reports each missing required column as a file-level error with the spellings to use', () => {
    const headers = REQUIRED.filter((f) => f !== 'phone' && f !== 'postalOrZipCode');
    const { issues } = mapHeaders(headers);
    expect(issues.map((i) => [i.code, i.severity, i.row, i.column])).toEqual([
      ['missing_column', 'error', null, 'postalOrZipCode'],
      ['missing_column', 'error', null, 'phone'],
    ]);
    expect(issues[0]!.message).toContain('add a column headed "postalOrZipCode"');
    expect(issues[0]!.message).toContain('"zip"');
    expect(issues[0]).not.toHaveProperty('colIndex');
  });

  it('ignores the second of two columns meaning the same field, with a warning saying so', () => {
    const { columns, issues } = mapHeaders([...REQUIRED, 'Order Number']);
    expect(columns.at(-1)).toBeNull();
    expect(columns.indexOf('customerOrderId')).toBe(0);
    expect(issues).toHaveLength(1);
    expect(issues[0]!.code).toBe('unknown_column');
    expect(issues[0]!.message).toContain('also means customerOrderId');
    expect(issues[0]!.message).toContain('column A');
  });

  it("passes over a result file's own columns without a warning, and warns of them in an ordinary sheet", () => {
    const ours = ['status', 'issues', 'httpStatus', 'requestId', 'submittedAt'];
    const result = mapHeaders([...REQUIRED, ...ours]);
    expect(result.columns.slice(REQUIRED.length)).toEqual([null, null, null, null, null]);
    expect(result.issues).toEqual([]);
    // Without our issues column it is somebody's sheet: a status column there is worth a word.
    expect(mapHeaders([...REQUIRED, 'status']).issues).toEqual([expect.objectContaining({ code: 'unknown_column', column: 'status' })]);
  });

  it('ignores a column with a blank header, with a warning naming its letter', () => {
    const { columns, issues } = mapHeaders([REQUIRED[0]!, '', ...REQUIRED.slice(1)]);
    expect(columns[1]).toBeNull();
    expect(issues).toEqual([expect.objectContaining({ code: 'unknown_column', column: null, colIndex: 1, message: expect.stringContaining('Column B has no header') })]);
  });
});

describe('helpers', () => {
  it('names columns with spreadsheet letters', () => {
    expect([0, 25, 26, 27, 51, 52, 701, 702].map(toColumnLetter)).toEqual(['A', 'Z', 'AA', 'AB', 'AZ', 'BA', 'ZZ', 'AAA']);
  });

  it('suggests a field for a typo of a field or alias, and none for an unrelated word', () => {
    expect(suggestField('Quantiy')).toBe('quantity');
    expect(suggestField('zipp code')).toBe('postalOrZipCode');
    expect(suggestField('notes')).toBeNull();
  });

  it("never suggests a recipient's column for the shipper's fields, nor the reverse", () => {
    // `shippingname` is three letters from `shippername`, `shippingphone` from `shipperphone`.
    expect(suggestField('Shipping Name')).not.toBe('shippingContactName');
    expect(suggestField('Shipping Phone')).not.toBe('shippingContactPhoneNumber');
    expect(suggestField('Shipper Fone')).not.toBe('phone');
    expect(suggestField('shiper phone')).toBe('shippingContactPhoneNumber');
  });
});
