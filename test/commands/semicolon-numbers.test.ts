/**
 * A CSV separated by semicolons is what Excel saves where the comma is the decimal mark: there `1,000`
 * may be 1 or 1000. Such a number is refused with a message saying how to write it, never guessed;
 * in a comma-separated file `"1,000.00"` is still a thousand.
 */
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { validateFiles } from '../../src/commands/validate.js';
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
  return validateFiles({ files: [file], out: at(`${name}.result.csv`), context, logger: silentLogger });
}

describe('numbers with a comma', () => {
  it('are refused in a semicolon-separated CSV, whichever the comma means', async () => {
    const result = await validate('eu.csv', [row('EU-1', '1', '1,000'), row('EU-2', '1,000', '2.00'), row('EU-3', '1', '12.50')], ';');
    const [price, quantity, plain] = result.report.orders as { customerOrderId: string; status: string; issues: { code: string; column: string; message: string }[] }[];
    expect(price!.status).toBe('invalid');
    expect(price!.issues).toEqual([expect.objectContaining({ code: 'invalid_number', column: 'unitPrice' })]);
    expect(price!.issues[0]!.message).toContain('"1,000": in a file whose columns are separated by semicolons');
    expect(price!.issues[0]!.message).toContain('like 1000 or 12.50');
    expect(quantity!.issues).toEqual([expect.objectContaining({ code: 'invalid_integer', column: 'quantity' })]);
    expect(plain!.status).toBe('valid');
  });

  it('keep their thousands comma in a comma-separated CSV', async () => {
    const result = await validate('us.csv', [row('US-1', '1', '1,000.00')], ',');
    expect(result.report.orders.map((o) => (o as { status: string }).status)).toEqual(['valid']);
  });
});
