/** checkSheet over whole sheets: grouping, order of orders, kept rows, progress, missing columns. */
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { checkSheet } from '../../src/orders/check-sheet.js';
import { FIELDS } from '../../src/sheet/columns.js';
import { mapHeaders } from '../../src/sheet/headers.js';
import { check, codes, contextAt, issuesWith, laterRow, openedSheet, validRow } from './support.js';

describe('grouping rows into orders', () => {
  it('groups rows of one order wherever they are in the sheet, in the order of first rows', async () => {
    const sheet = await check([
      validRow({ customerOrderId: 'A', quantity: '1' }),
      validRow({ customerOrderId: 'B' }),
      laterRow({ customerOrderId: 'A' }),
      validRow({ customerOrderId: 'C' }),
    ]);
    expect(sheet.orders.map((o) => [o.customerOrderId, o.rows, o.status])).toEqual([
      ['A', [2, 4], 'valid'],
      ['B', [3], 'valid'],
      ['C', [5], 'valid'],
    ]);
    expect(sheet.orders.at(0)!.payload?.orderDetails.lineItems.map((l) => l.customerLineItemId)).toEqual(['1', '2']);
    expect([2, 3, 4, 5, 6].map((row) => sheet.orderIndexOfRow(row))).toEqual([0, 1, 0, 2, undefined]);
  });

  it('finds a conflict between rows far apart, after other orders came in between', async () => {
    const sheet = await check(
      [
        validRow({ customerOrderId: 'A', quantity: '1', email: 'first@example.com' }),
        ...Array.from({ length: 5 }, (_, i) => validRow({ customerOrderId: `X${i}` })),
        laterRow({ customerOrderId: 'A', email: 'second@example.com' }),
        laterRow({ customerOrderId: 'A', email: 'first@example.com', customerLineItemId: '3', quantity: '0' }),
      ],
      contextAt(),
      { batchSize: 2 },
    );
    const a = sheet.orders.at(0)!;
    expect(issuesWith(a, 'conflicting_order_value').map((i) => i.row)).toEqual([2, 8]);
    expect(issuesWith(a, 'conflicting_order_value')[0]!.message).toContain('row 2 has "first@example.com", row 8 has "second@example.com"');
    expect(codes(a)).toContain('not_positive');
  });

  it('finds duplicate line IDs across rows that are far apart', async () => {
    const sheet = await check([
      validRow({ customerOrderId: 'A', quantity: '1' }),
      validRow({ customerOrderId: 'B' }),
      laterRow({ customerOrderId: 'A', customerLineItemId: '1' }),
    ]);
    expect(issuesWith(sheet.orders.at(0)!, 'duplicate_line_item_id').map((i) => i.row)).toEqual([2, 4]);
  });

  it('treats IDs as case sensitive text, trimmed', async () => {
    const sheet = await check([validRow({ customerOrderId: ' so-1 ' }), validRow({ customerOrderId: 'SO-1' })]);
    expect(sheet.orders.map((o) => o.customerOrderId)).toEqual(['so-1', 'SO-1']);
  });

  it('gives each row without an order ID its own invalid order', async () => {
    const sheet = await check([validRow({ customerOrderId: '' }), validRow({ customerOrderId: '' })]);
    expect(sheet.orders.map((o) => [o.customerOrderId, o.rows, o.status])).toEqual([
      [null, [2], 'invalid'],
      [null, [3], 'invalid'],
    ]);
  });
});

describe('interleaved orders', () => {
  it('finds the same orders, issues and payloads whether an order\'s rows are together or scattered', async () => {
    const together = Array.from({ length: 30 }, (_, n) =>
      [1, 2, 3].map((line) =>
        (line === 1 ? validRow : laterRow)({
          customerOrderId: `SO-${n}`,
          customerLineItemId: String(line),
          quantity: '1',
          subTotal: line === 1 ? '89.97' : '',
          grandTotal: line === 1 ? '94.92' : '',
          // Every fifth order has a conflict on its last row, every seventh a duplicate line ID.
          ...(line === 3 && n % 5 === 0 && { city: 'Shelbyville' }),
          ...(line === 3 && n % 7 === 0 && { customerLineItemId: '1' }),
        }),
      ),
    ).flat();
    // Deal the rows out like cards: the rows of one order end up far apart.
    const scattered = [0, 1, 2].flatMap((k) => together.filter((_, i) => i % 3 === k));
    const summarise = async (rows: typeof together) =>
      (await check(rows, contextAt(), { batchSize: 7 })).orders
        .map((o) => ({ id: o.customerOrderId, status: o.status, codes: codes(o).sort(), payload: o.payload }))
        .sort((a, b) => a.id!.localeCompare(b.id!));
    const expected = await summarise(together);
    expect(expected.filter((o) => o.status === 'invalid').map((o) => o.id)).toEqual(['SO-0', 'SO-10', 'SO-14', 'SO-15', 'SO-20', 'SO-21', 'SO-25', 'SO-28', 'SO-5', 'SO-7']);
    expect(await summarise(scattered)).toEqual(expected);
  });
});

describe('the kept rows', () => {
  it('gives back every row as read, in sheet order, for the result file', async () => {
    const rows = [validRow({ quantity: '1' }), laterRow(), validRow({ customerOrderId: 'SO-2', name: 'Mug; "blue", large\nsecond line' })];
    const sheet = await check(rows);
    const kept = [...sheet.rows];
    expect(sheet.rows.size).toBe(3);
    expect(kept.map((r) => r.rowNumber)).toEqual([2, 3, 4]);
    const expected = rows.map((row) => FIELDS.map((f) => row[f] ?? ''));
    expect(kept.map((r) => r.cells)).toEqual(expected);
  });

  it('keeps xlsx cells with their types, on an order\'s later rows too', async () => {
    const at = (): Date => new Date(Date.UTC(2026, 10, 19, 14, 30));
    const rows = [validRow({ quantity: 1, unitPrice: 29.99, salesTax: 4.95, orderDate: at() }), laterRow({ quantity: 1, unitPrice: 29.99, salesTax: 4.95, orderDate: at() })];
    const sheet = await check(rows, contextAt(), { format: 'xlsx' });
    expect(sheet.orders.map((o) => [o.status, o.issues])).toEqual([['valid', []]]);
    const kept = [...sheet.rows].map((r) => r.cells);
    expect(kept).toEqual(rows.map((row) => FIELDS.map((f) => row[f] ?? '')));
    expect(kept[1]![FIELDS.indexOf('orderDate')]).toEqual(at());
    expect(kept[1]![FIELDS.indexOf('unitPrice')]).toBe(29.99);
  });
});

describe('sheet-level outcomes', () => {
  it('still checks every order when a required column is missing, and calls them all invalid', async () => {
    const fields = FIELDS.filter((f) => f !== 'phone');
    const sheet = await check([validRow()], contextAt(), { fields });
    expect(sheet.fileIssues.map((i) => [i.code, i.column])).toEqual([['missing_column', 'phone']]);
    // Every order carries the error that makes it invalid, not an empty list beside an 'invalid' status.
    expect(sheet.orders.map((o) => [o.status, o.issues.map((i) => [i.row, i.column, i.code, i.severity])])).toEqual([['invalid', [[2, 'phone', 'missing_column', 'error']]]]);
    expect(sheet.orders.at(0)!.issues[0]!.message).toContain('no phone column');
    expect(sheet.orders.at(0)!.payload).toBeUndefined();
  });

  it('reads columns by their headers as written, in any order, and names issues by them', async () => {
    const fields = [...FIELDS].reverse();
    const headers = fields.map((f) => (f === 'postalOrZipCode' ? 'ZIP' : f === 'quantity' ? 'Qty' : f));
    const sheet = await check([validRow({ postalOrZipCode: '1', quantity: 'x' })], contextAt(), { fields, headers });
    expect(sheet.orders.at(0)!.issues.map((i) => [i.column, i.colIndex])).toEqual([
      ['ZIP', fields.indexOf('postalOrZipCode')],
      ['Qty', fields.indexOf('quantity')],
    ]);
  });

  it('reports progress after each batch', async () => {
    const seen: number[] = [];
    const opened = openedSheet({ rows: [validRow(), validRow({ customerOrderId: 'SO-2' }), validRow({ customerOrderId: 'SO-3' })], batchSize: 2 });
    await checkSheet(opened, mapHeaders(opened.headers), contextAt(), { onProgress: (n) => seen.push(n) });
    expect(seen).toEqual([2, 3]);
  });

  it('builds the payload each time it is read, so callers may change their copy', async () => {
    const order = (await check([validRow()])).orders.at(0)!;
    const first = order.payload!;
    first.orderDetails.customerOrderId = 'changed';
    expect(order.payload!.orderDetails.customerOrderId).toBe('SO-1');
  });

  it('returns the sheet facts the result writer needs', async () => {
    const sheet = await check([validRow()]);
    expect(sheet).toMatchObject({ file: 'orders.csv', format: 'csv', headerRow: 1, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(sheet.columns).toEqual([...FIELDS]);
  });

  it('refuses an unknown time zone as a usage error', async () => {
    await expect(check([validRow()], contextAt(undefined, { timezone: 'Mars/Olympus' }))).rejects.toBeInstanceOf(UsageError);
  });
});
