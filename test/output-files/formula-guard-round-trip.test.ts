/**
 * The apostrophe the result CSV puts before formula-like text is a guard, not data: a corrected result
 * file (or the web app's Fix CSV) read again sends each value as the original sheet had it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import ExcelJS from 'exceljs';
import Papa from 'papaparse';
import { describe, expect, test } from 'vitest';
import { checkFile } from '../../src/validate/check-file.js';
import { runValidate } from '../../src/validate/run-validate.js';
import type { CreateOrderPayload } from '../../src/contract/schemas.js';
import { silentLogger } from '../../src/log.js';
import { FORMULA_LIKE, neutraliseFormula, removeFormulaGuard } from '../../src/formula-guard.js';
import { generateCsv } from '../../src/output-files/write-result-csv.js';
import { writeFixCsv } from '../../src/web/fix-csv.js';
import { cells, col, sampleInput } from '../support/result-rows.js';
import { useTempDir } from '../support/temp-dir.js';

const file = useTempDir('formula-guard');
const context = { now: new Date('2026-11-20T12:00:00Z'), timezone: 'UTC', sourcesOfSale: ['OtherMarketplace'] };

/** Every first character the guard protects, each before a few kinds of text. */
const GUARDED_STARTS = ['=', '+', '-', '@', '\t', '\r'];
const GUARDED_VALUES = GUARDED_STARTS.flatMap((c) => [`${c}Mug`, `${c}1 617 555 0100`, `${c}SUM(A1)`, `${c}`]);

describe('the formula guard as an escape', () => {
  test.each(GUARDED_VALUES.map((v) => [v]))('%j is guarded when written and reads back as it was', (value) => {
    const written = neutraliseFormula(value);
    expect(written).toBe(`'${value}`);
    expect(removeFormulaGuard(written)).toBe(value);
  });

  test.each(["'quoted", "'-5", "'+4477", "'12", "'", "''=x", 'plain', "O'Brien", '-12345'])('leaves %j alone: no guard of ours before it', (value) => {
    expect(removeFormulaGuard(value)).toBe(value);
  });

  test('leaves plain numbers such as -12345 and +4477 unguarded, in the result CSV too', () => {
    for (const n of ['-12345', '+4477', '-0.5', '+1,234.50']) expect(FORMULA_LIKE.test(n)).toBe(false);
    const row = cells('A-1', { customerOrderId: '-12345', phone: '+4477', name: '=1+2' });
    const csv = [...generateCsv(sampleInput({}, [{ rowNumber: 2, cells: row, status: 'valid', issues: [], needsFix: false }]))].join('');
    const written = Papa.parse<string[]>(csv.replace(/^\ufeff/, ''), { skipEmptyLines: true }).data[1]!;
    expect(written[col('customerOrderId')]).toBe('-12345');
    expect(written[col('phone')]).toBe('+4477');
    expect(written[col('name')]).toBe("'=1+2");
  });
});

const H = 'customerOrderId,orderDate,sourceOfSale,fullName,addressLine1,city,provinceOrState,postalOrZipCode,countryCode,phone,productId,customerLineItemId,name,quantity,unitPrice,salesTax';
/** Line names: one per guarded first character, and an apostrophe before a letter, which is data. */
const NAMES = ['-Mug- special', '=Mug', '+Mug', '@Mug', '\tMug tab', '\rMug CR', "'quoted"];

/** The QA sheet of the report: a phone and names the guard protects; line 1 has quantity `firstQuantity`. */
function writeSheet(name: string, firstQuantity: number): string {
  const rows = NAMES.map((n, i) => ['RT-1', '2026-11-19', 'OtherMarketplace', '=Ann', '1 St', 'Boston', 'MA', '02134', 'US', '+1 617 555 0100', 'PRD-1001', String(i + 1), n, i === 0 ? String(firstQuantity) : '1', '1.00', '0']);
  const path = file(name);
  writeFileSync(path, `${H}\n${Papa.unparse(rows, { newline: '\n' })}\n`);
  return path;
}

async function payloadOf(path: string): Promise<CreateOrderPayload | undefined> {
  const checked = await checkFile(path, { context, logger: silentLogger });
  if (!checked.ok) throw new Error(checked.message);
  expect(checked.sheet.orders).toHaveLength(1);
  const order = checked.sheet.orders.at(0)!;
  expect(order.issues.filter((i) => i.severity === 'error')).toEqual([]);
  return order.payload;
}

/** What a user does in a text editor: quantity 0 becomes 1 on the line that had it. */
function fixQuantity(path: string): void {
  const text = readFileSync(path, 'utf8');
  const fixed = text.replace(/(,PRD-1001,1,"?'?-Mug- special"?),0,/, '$1,1,');
  expect(fixed).not.toBe(text);
  writeFileSync(path, fixed);
}

describe('a corrected result CSV read again', () => {
  test('sends every value as the original sheet had it, without the apostrophes the result file added', async () => {
    const input = writeSheet('rt.csv', 0);
    const out = file('rt.result.csv');
    const validated = await runValidate({ files: [input], out, context, logger: silentLogger });
    expect(validated.report.summary).toEqual({ invalid: 1 });
    const written = readFileSync(out, 'utf8');
    // The result file does guard them (that is what is undone).
    expect(written).toContain(`"'+1 617 555 0100"`);
    expect(written).toContain(`"'-Mug- special"`);
    fixQuantity(out);

    const sent = await payloadOf(out);
    expect(sent).toEqual(await payloadOf(writeSheet('rt-fixed.csv', 1)));
    expect(sent!.customerDetails.shippingAddress.phone).toBe('+1 617 555 0100');
    expect(sent!.customerDetails.shippingAddress.fullName).toBe('=Ann');
    expect(sent!.orderDetails.lineItems.map((l) => l.name)).toEqual(['-Mug- special', '=Mug', '+Mug', '@Mug', 'Mug tab', 'Mug CR', "'quoted"]);
  });

  test('still holds one guard after a second round of corrections, never two', async () => {
    const first = file('twice.result.csv');
    await runValidate({ files: [writeSheet('twice.csv', 0)], out: first, context, logger: silentLogger });
    const second = file('twice.result.result.csv');
    await runValidate({ files: [first], out: second, context, logger: silentLogger });
    expect(readFileSync(second, 'utf8')).not.toContain("''");
    fixQuantity(second);
    expect(await payloadOf(second)).toEqual(await payloadOf(writeSheet('twice-fixed.csv', 1)));
  });

  test("the web app's Fix CSV reads back as the original too", async () => {
    const checked = await checkFile(writeSheet('web.csv', 0), { context, logger: silentLogger });
    if (!checked.ok) throw new Error(checked.message);
    const fix = file('web.fix.csv');
    expect(await writeFixCsv(fix, checked.sheet)).toBe(NAMES.length);
    expect(readFileSync(fix, 'utf8')).toContain(`"'+1 617 555 0100"`);
    fixQuantity(fix);
    expect(await payloadOf(fix)).toEqual(await payloadOf(writeSheet('web-fixed.csv', 1)));
  });

  test('a workbook that kept the apostrophe as text (the CSV saved as xlsx) is read the same way', async () => {
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('Orders');
    sheet.addRow(H.split(','));
    sheet.addRow(['RT-1', '2026-11-19', 'OtherMarketplace', "'=Ann", '1 St', 'Boston', 'MA', '02134', 'US', "'+1 617 555 0100", 'PRD-1001', '1', "'-Mug- special", 1, 1, 0]);
    sheet.addRow(['RT-1', '', '', '', '', '', '', '', '', '', 'PRD-1001', '2', "'quoted", 1, 1, '']);
    const path = file('rt.xlsx');
    await workbook.xlsx.writeFile(path);
    const sent = await payloadOf(path);
    expect(sent!.customerDetails.shippingAddress.phone).toBe('+1 617 555 0100');
    expect(sent!.customerDetails.shippingAddress.fullName).toBe('=Ann');
    expect(sent!.orderDetails.lineItems.map((l) => l.name)).toEqual(['-Mug- special', "'quoted"]);
  });
});
