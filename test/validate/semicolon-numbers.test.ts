/**
 * A CSV separated by semicolons is what Excel saves where the comma is the decimal mark: there `1,000`
 * may be 1 or 1000. The file's decimal mark is decided once from all its amounts and said once; a value
 * that cannot be read two ways is read as it is; one that can, in a file that does not say, is refused
 * with one explanation for the file. In a comma-separated file `"1,000.00"` is still a thousand.
 */
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runValidate } from '../../src/validate/run-validate.js';
import { silentLogger } from '../../src/log.js';
import { useTempDir } from '../support/temp-dir.js';

const at = useTempDir('semicolon-numbers');
const context = { now: new Date('2026-11-20T12:00:00Z'), timezone: 'UTC', sourcesOfSale: ['OtherMarketplace'] };
const HEADERS = ['customerOrderId', 'orderDate', 'sourceOfSale', 'fullName', 'addressLine1', 'city', 'provinceOrState', 'postalOrZipCode', 'countryCode', 'phone', 'productId', 'customerLineItemId', 'name', 'quantity', 'unitPrice', 'salesTax'];
const row = (id: string, quantity: string, unitPrice: string) => [id, '2026-11-19 10:00', 'OtherMarketplace', 'Maria Lopez', '123 Main St', 'Springfield', 'IL', '62704', 'US', '217-555-0134', 'PRD-1001', '1', 'Mug', quantity, unitPrice, '0'];

async function validate(name: string, lines: string[][], delimiter: string) {
  const file = at(name);
  const quote = (cell: string) => (cell.includes(delimiter) || cell.includes(',') ? `"${cell}"` : cell);
  writeFileSync(file, [HEADERS, ...lines].map((cells) => cells.map(quote).join(delimiter)).join('\r\n') + '\r\n');
  return runValidate({ files: [file], out: at(`${name}.result.csv`), context, logger: silentLogger });
}

describe('numbers with a comma', () => {
  it('are read in a semicolon-separated CSV when they cannot be read two ways, and the file says its mark once', async () => {
    const result = await validate('eu.csv', [row('EU-1', '1', '12,50'), row('EU-2', '2', '1.234,50'), row('EU-3', '1', '1 234,50'), row('EU-4', '1', '1,005')], ';');
    const orders = [...result.report.orders] as { customerOrderId: string; status: string; issues: { code: string; column: string; message: string }[] }[];
    expect(orders.map((o) => o.status)).toEqual(['valid', 'valid', 'valid', 'invalid']);
    // The file's decimal mark is the comma (three amounts show it), so "1,005" is 1.005: not a whole number of cents.
    expect(orders[3]!.issues).toEqual([expect.objectContaining({ code: 'invalid_number', column: 'unitPrice' })]);
    expect(orders[3]!.issues[0]!.message).toContain("has more than 2 decimals (the comma is this file's decimal mark)");
    expect(result.report.input[0]!.notices).toEqual([expect.stringContaining('read with a comma as the decimal mark (12,50 = 12.50), as 3 of its amounts show')]);
  });

  it('are refused, naming the value and the decimal mark, when their marks cannot make a number (never read 100 times too high)', async () => {
    const result = await validate('typo.csv', [row('EU-1', '1', '12,50'), row('EU-2', '1', '12,,50'), row('EU-3', '7,0,0', '3,10'), row('EU-4', '1', '12 34,50')], ';');
    const orders = [...result.report.orders] as { status: string; issues: { code: string; column: string; message: string }[] }[];
    expect(orders.map((o) => o.status)).toEqual(['valid', 'invalid', 'invalid', 'invalid']);
    expect(orders[1]!.issues).toEqual([expect.objectContaining({ code: 'invalid_number', column: 'unitPrice' })]);
    expect(orders[1]!.issues[0]!.message).toBe('unitPrice "12,,50" is not an amount: this file\'s decimal mark is a comma, and its marks do not make a number with it (one decimal mark at most; points or spaces only between groups of three digits). Write it like 1234,50 or 1.234,50.');
    expect(orders[2]!.issues).toEqual([expect.objectContaining({ code: 'invalid_integer', column: 'quantity', message: expect.stringContaining('quantity "7,0,0" is not a whole number: this file\'s decimal mark is a comma') })]);
    expect(orders[3]!.issues[0]!.message).toContain('unitPrice "12 34,50" is not an amount');
  });

  it('say so when an amount has a point where the run said the comma is the decimal mark', async () => {
    const file = at('forced-point.csv');
    writeFileSync(file, [HEADERS, row('EU-1', '1', '12.50')].map((cells) => cells.join(';')).join('\r\n') + '\r\n');
    const result = await runValidate({ files: [file], out: at('forced-point.result.csv'), context, logger: silentLogger, readSettings: { decimalMark: 'comma' } });
    const order = ([...result.report.orders] as { status: string; issues: { message: string }[] }[])[0]!;
    expect(order.status).toBe('invalid');
    expect(order.issues[0]!.message).toBe('unitPrice "12.50" is not an amount: it uses a point as the decimal mark, but this file\'s decimal mark is a comma. Write it like 1234,50 or 1.234,50.');
  });

  it('follow the point when the file writes amounts with one: "1,000" is a thousand there', async () => {
    const result = await validate('dot.csv', [row('EU-1', '1', '1,000'), row('EU-2', '1,000', '2.00'), row('EU-3', '1', '$1,234.50')], ';');
    const orders = [...result.report.orders] as { status: string; issues: unknown[] }[];
    expect(orders.map((o) => o.status)).toEqual(['valid', 'valid', 'valid']);
  });

  it('are refused with one explanation for the file when nothing says which mark it uses', async () => {
    const result = await validate('unknown.csv', [row('EU-1', '1', '1,000'), row('EU-2', '1', '2,500')], ';');
    const orders = [...result.report.orders] as { status: string; issues: { code: string; message: string }[] }[];
    expect(orders.map((o) => o.status)).toEqual(['invalid', 'invalid']);
    expect(orders[0]!.issues[0]!.message).toBe('unitPrice "1,000" could be read two ways (a thousands separator or a decimal mark), and this file does not say which: see the note about the file\'s decimal mark.');
    expect(result.report.input[0]!.notices).toEqual([expect.stringContaining('could not be decided: none of its amounts shows which mark is the decimal one, so 2 numbers such as "1,000", "2,500"')]);
  });

  it('are read with the comma as decimal mark when the run says so (--decimal-comma), whatever the delimiter', async () => {
    const file = at('forced.csv');
    writeFileSync(file, [HEADERS, row('EU-1', '1', '1,000')].map((cells) => cells.map((c) => (c.includes(',') ? `"${c}"` : c)).join(',')).join('\r\n') + '\r\n');
    const result = await runValidate({ files: [file], out: at('forced.result.csv'), context, logger: silentLogger, readSettings: { decimalMark: 'comma' } });
    expect(([...result.report.orders] as { status: string }[])[0]!.status).toBe('valid');
    expect(result.report.input[0]!.notices).toEqual([expect.stringContaining('(--decimal-comma)')]);
  });

  it('leave a country written by name refused in a template column, the message naming its code', async () => {
    const named = row('DE-1', '1', '12.50');
    named[8] = 'États-Unis';
    const result = await validate('country.csv', [named], ',');
    const order = ([...result.report.orders] as { status: string; issues: { message: string }[] }[])[0]!;
    expect(order.issues[0]!.message).toBe('countryCode "États-Unis" is a country\'s name, not its two-letter ISO 3166-1 code: write US.');
  });

  it('keep their thousands comma in a comma-separated CSV', async () => {
    const result = await validate('us.csv', [row('US-1', '1', '1,000.00')], ',');
    expect(result.report.orders.map((o) => (o as { status: string }).status)).toEqual(['valid']);
  });
});
