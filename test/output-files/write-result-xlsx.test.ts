import { existsSync, readdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { openSheet } from '../../src/sheet/read-sheet.js';
import { COLORS } from '../../src/output-files/xlsx-styles.js';
import { writeResultXlsx } from '../../src/output-files/write-result-xlsx.js';
import type { ResultRow } from '../../src/output-files/types.js';
import { columnLetter, TEMPLATE_HEADERS } from '../../src/output-files/template-form.js';
import type ExcelJS from 'exceljs';
import { cells, HEADERS, sampleInput } from '../support/result-rows.js';
import { useTempDir } from '../support/temp-dir.js';
import { fillOf, noteOf, readParts, readWorkbook, rowValues, sheet, validationsOf } from '../support/xlsx-files.js';

const file = useTempDir('xlsx');
const STATUS = HEADERS.length + 1;
const ISSUES = HEADERS.length + 2;
/** Spreadsheet column number of an input header. */
const c = (header: string): number => HEADERS.indexOf(header) + 1;

describe('writeResultXlsx: the Results sheet', () => {
  const path = file('result.xlsx');
  let workbook: ExcelJS.Workbook;
  let results: ExcelJS.Worksheet;
  beforeAll(async () => {
    await writeResultXlsx(path, sampleInput({ extraColumns: ['httpStatus', 'requestId'] }));
    workbook = await readWorkbook(path);
    results = sheet(workbook, 'Results');
  });

  test('keeps the input headers in order, then status, issues and the extra columns', () => {
    expect(rowValues(results, 1)).toEqual([...HEADERS, 'status', 'issues', 'httpStatus', 'requestId']);
  });

  test('puts every input row at its own row number, so a skipped blank row stays blank', () => {
    expect(results.getCell(2, 1).value).toBe('A-1');
    expect(results.getCell(4, 1).value).toBe('B-2');
    expect(results.getRow(5).cellCount).toBe(0);
    expect(results.getCell(6, 1).value).toBe('B-2');
  });

  test('keeps numbers as numbers, dates as dates with a date format, and text as text', () => {
    expect(results.getCell(2, c('salesTax')).value).toBe(4.95);
    expect(results.getCell(2, c('orderDate')).value).toEqual(new Date(Date.UTC(2026, 10, 20, 14, 30)));
    expect(results.getCell(2, c('orderDate')).numFmt).toBe('yyyy-mm-dd hh:mm');
    expect(results.getCell(6, c('orderDate')).numFmt).toBe('yyyy-mm-dd');
    expect(results.getCell(2, c('zip')).value).toBe('02134');
    expect(results.getCell(4, c('Gift note')).value).toBe('=HYPERLINK("http://x")');
    expect(results.getCell(4, c('Gift note')).formula).toBeUndefined();
  });

  test('highlights the exact bad cell with the error fill and puts the message in its note', () => {
    const zip = results.getCell(4, c('zip'));
    expect(fillOf(zip)).toBe(COLORS.errorFill);
    expect(noteOf(zip)).toBe('ZIP code "1234" must be 5 digits or ZIP+4 (12345-6789).');
    const blankName = results.getCell(4, c('fullName'));
    expect(blankName.value).toBeNull();
    expect(fillOf(blankName)).toBe(COLORS.errorFill);
    expect(noteOf(blankName)).toBe('fullName is required.');
    expect(fillOf(results.getCell(4, c('city')))).toBeUndefined();
    expect(noteOf(results.getCell(4, c('city')))).toBeUndefined();
  });

  test('marks a warning cell with the warning fill, and flags an unknown column in its header', () => {
    expect(fillOf(results.getCell(3, c('zip')))).toBe(COLORS.warningFill);
    expect(noteOf(results.getCell(3, c('zip')))).toContain('(warning)');
    expect(fillOf(results.getCell(1, c('Gift note')))).toBe(COLORS.warningFill);
    expect(noteOf(results.getCell(1, c('Gift note')))).toContain('not an order field');
  });

  test('writes each row\'s issues, column first, and points clean rows of a bad order at the bad rows', () => {
    expect(results.getCell(2, ISSUES).value).toBeNull();
    expect(results.getCell(3, ISSUES).value).toBe('zip (warning): ZIP code 2134 lost its leading zero; read as "02134".');
    expect(results.getCell(4, ISSUES).value).toBe('zip: ZIP code "1234" must be 5 digits or ZIP+4 (12345-6789).\nfullName: fullName is required.');
    expect(results.getCell(6, ISSUES).value).toBe('order has errors on row 4');
  });

  test('colours the status cell by status', () => {
    expect(results.getCell(2, STATUS).value).toBe('valid');
    expect(fillOf(results.getCell(2, STATUS))).toBe(COLORS.goodFill);
    expect(fillOf(results.getCell(4, STATUS))).toBe(COLORS.errorFill);
  });

  test('has a bold frozen header and an autofilter over the whole range', () => {
    expect(results.getCell(1, 1).font?.bold).toBe(true);
    expect(results.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
    expect(results.autoFilter).toBe(`A1:${columnLetter(HEADERS.length + 4)}6`);
  });

  test('sets column widths from the kind of each column', () => {
    expect(results.getColumn(c('orderDate')).width).toBe(17);
    expect(results.getColumn(ISSUES).width).toBe(60);
  });

  test('orders the sheets Results, Fix, Summary and a hidden Lists, and opens on the Summary', () => {
    expect(workbook.worksheets.map((w) => [w.name, w.state])).toEqual([
      ['Results', 'visible'],
      ['Fix', 'visible'],
      ['Summary', 'visible'],
      ['Lists', 'hidden'],
    ]);
    expect(workbook.views[0]?.activeTab).toBe(2);
  });

  test('declares the filter ranges so LibreOffice shows the filter arrows too', async () => {
    const [xml] = (await readParts(path, /^xl\/workbook\.xml$/)).values();
    expect(xml).toContain(`<definedName name="_xlnm._FilterDatabase" localSheetId="0">&apos;Results&apos;!$A$1:$${columnLetter(HEADERS.length + 4)}$6</definedName>`);
    expect(xml).toMatch(/<definedName name="_xlnm._FilterDatabase" localSheetId="1">&apos;Fix&apos;!\$A\$1:\$AE\$3<\/definedName>/);
  });

  test('gives each sheet\'s notes their own block of shape ids, so Excel does not repair the file', async () => {
    const vml = [...(await readParts(path, /^xl\/drawings\/vmlDrawing\d+\.vml$/)).values()];
    expect(vml).toHaveLength(2);
    const blocks = vml.map((x) => /<o:idmap v:ext="edit" data="([\d,]+)"/.exec(x)![1]!.split(',').map(Number));
    const ids = vml.map((x) => [...x.matchAll(/id="_x0000_s(\d+)"/g)].map((m) => Number(m[1])));
    expect(blocks[0]).toEqual([1]);
    expect(blocks[1]).toEqual([2]);
    // Every shape id lies in a block its own drawing reserves (block b holds ids b*1024 .. b*1024+1023).
    ids.forEach((list, i) => list.forEach((id) => expect(blocks[i]).toContain(Math.floor(id / 1024))));
    expect(ids[0]).toHaveLength(4);
    expect(ids[1]).toHaveLength(2);
  });
});

describe('writeResultXlsx: the Summary and Fix sheets', () => {
  const path = file('summary-fix.xlsx');
  let workbook: ExcelJS.Workbook;
  beforeAll(async () => {
    await writeResultXlsx(path, sampleInput(), { sourcesOfSale: ['OtherMarketplace', 'ShopA'] });
    workbook = await readWorkbook(path);
  });

  test('summarises the file, the counts per status and per issue code, file issues and notes', () => {
    const summary = sheet(workbook, 'Summary');
    const rows = summary.getSheetValues().filter(Array.isArray);
    const text = rows.flatMap((r) => r.filter((v) => v !== undefined && v !== null)).map(String);
    expect(text).toEqual(expect.arrayContaining(['orders.csv', 'ab'.repeat(32), '2026-11-22T09:00:00.000Z', 'subTotal computed for 1 order']));
    const pairs = rows.map((r) => r.slice(1, 4));
    expect(pairs).toContainEqual(['valid', 1]);
    expect(pairs).toContainEqual(['invalid', 1]);
    expect(pairs).toContainEqual(['invalid_postal_code', 'error', 1]);
    expect(pairs).toContainEqual(['postal_code_padded', 'warning', 1]);
    expect(text.some((t) => t.includes('Column "Gift note" is not an order field'))).toBe(true);
  });

  test('holds only the rows to fix, in template form, the unknown column dropped and the issues last', () => {
    const fix = sheet(workbook, 'Fix');
    expect(rowValues(fix, 1)).toEqual([...TEMPLATE_HEADERS, 'issues']);
    expect(fix.rowCount).toBe(3);
    const at = (row: number, field: string): unknown => fix.getCell(row, TEMPLATE_HEADERS.indexOf(field as never) + 1).value;
    expect(at(2, 'customerOrderId')).toBe('B-2');
    expect(at(2, 'postalOrZipCode')).toBe('1234');
    expect(at(2, 'provinceOrState')).toBe('IL');
    expect(at(2, 'quantity')).toBe(2);
    expect(at(3, 'customerLineItemId')).toBe('2');
    expect(rowValues(fix, 2)).not.toContain('=HYPERLINK("http://x")');
    expect(fix.getCell(2, TEMPLATE_HEADERS.length + 1).value).toContain('zip: ZIP code "1234"');
    expect(fix.getCell(3, TEMPLATE_HEADERS.length + 1).value).toBe('order has errors on row 4');
  });

  test('highlights and notes the bad cells of the Fix rows', () => {
    const fix = sheet(workbook, 'Fix');
    const zip = fix.getCell(2, TEMPLATE_HEADERS.indexOf('postalOrZipCode') + 1);
    expect(fillOf(zip)).toBe(COLORS.errorFill);
    expect(noteOf(zip)).toContain('ZIP code "1234"');
    expect(fix.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
  });

  test('keeps the template formats and dropdowns on the Fix sheet', () => {
    const fix = sheet(workbook, 'Fix');
    const col = (field: string): ExcelJS.Column => fix.getColumn(TEMPLATE_HEADERS.indexOf(field as never) + 1);
    expect(col('postalOrZipCode').numFmt).toBe('@');
    expect(col('unitPrice').numFmt).toBe('#,##0.00');
    const validations = validationsOf(fix);
    expect(validations['R2']?.formulae).toEqual(['Lists!$C$2:$C$250']);
    expect(validations['T2']?.formulae).toEqual(['Lists!$B$2:$B$4']);
    expect(validations['D2']?.formulae).toEqual(['Lists!$A$2:$A$3']);
    expect(rowValues(sheet(workbook, 'Lists'), 3).slice(0, 2)).toEqual(['ShopA', 'CarrierX2Day']);
  });

  test('leaves the sourceOfSale dropdown out when the configured list is not given', async () => {
    const other = file('no-sources.xlsx');
    await writeResultXlsx(other, sampleInput());
    const fix = sheet(await readWorkbook(other), 'Fix');
    expect(validationsOf(fix)['D2']).toBeUndefined();
    expect(validationsOf(fix)['R2']).toBeDefined();
  });

  test('writes a Fix sheet that reads back as an order sheet with the template headers', async () => {
    const fix = sheet(await readWorkbook(path), 'Fix');
    const headers = rowValues(fix, 1).slice(0, TEMPLATE_HEADERS.length);
    expect(headers).toEqual([...TEMPLATE_HEADERS]);
  });
});

describe('writeResultXlsx: limits', () => {
  test('puts the header on the input header row when leading rows were blank', async () => {
    const path = file('header-row.xlsx');
    const rows: ResultRow[] = [{ rowNumber: 4, cells: cells('A-1'), status: 'valid', issues: [], needsFix: false }];
    await writeResultXlsx(path, sampleInput({ headerRow: 3 }, rows));
    const results = sheet(await readWorkbook(path), 'Results');
    expect(results.getCell(3, 1).value).toBe('Customer Order ID');
    expect(results.getCell(4, 1).value).toBe('A-1');
    expect(results.views[0]).toMatchObject({ state: 'frozen', ySplit: 3 });
    expect(results.autoFilter).toMatch(/^A3:/);
  });

  test('refuses more rows than a worksheet holds, suggesting CSV, before writing anything', async () => {
    const path = file('too-many.xlsx');
    const input = sampleInput();
    input.summary.rows = 1_048_576;
    const error = await writeResultXlsx(path, input).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(/--out .*\.csv/);
    expect(existsSync(path)).toBe(false);
  });

  test('stops with the same advice when row numbers run past the last row, leaving no file behind', async () => {
    const path = file('past-end.xlsx');
    const rows: ResultRow[] = [{ rowNumber: 1_048_577, cells: cells('A-1'), status: 'valid', issues: [], needsFix: false }];
    await expect(writeResultXlsx(path, sampleInput({}, rows))).rejects.toThrow(/--out .*\.csv/);
    expect(readdirSync(dirname(path)).filter((n) => n.startsWith('past-end'))).toEqual([]);
  });

  test('fails cleanly when the folder does not exist', async () => {
    await expect(writeResultXlsx(file('nowhere/result.xlsx'), sampleInput())).rejects.toThrow(/ENOENT/);
  });
});

describe('writeResultXlsx: reading the result back with the tool\'s own reader', () => {
  test('the Fix sheet opens as an order sheet: template headers, its rows, the values as written', async () => {
    const path = file('readback.xlsx');
    await writeResultXlsx(path, sampleInput());
    const opened = await openSheet(path, { sheet: 'Fix' });
    const rows: { rowNumber: number; cells: unknown[] }[] = [];
    for await (const batch of opened.rows) rows.push(...batch);
    expect(opened.headers).toEqual([...TEMPLATE_HEADERS, 'issues']);
    expect(rows.map((r) => r.rowNumber)).toEqual([2, 3]);
    expect(rows[0]!.cells[TEMPLATE_HEADERS.indexOf('postalOrZipCode')]).toBe('1234');
    expect(rows[0]!.cells[TEMPLATE_HEADERS.indexOf('orderDate')]).toEqual(new Date(Date.UTC(2026, 10, 20, 14, 30)));
  });

  test('without --sheet the reader takes the Fix sheet, the rows to upload again', async () => {
    const path = file('readback-default.xlsx');
    await writeResultXlsx(path, sampleInput());
    const opened = await openSheet(path);
    for await (const batch of opened.rows) void batch;
    expect(opened.sheetName).toBe('Fix');
  });

  test('--sheet Results still reads the user\'s own rows', async () => {
    const path = file('readback-results.xlsx');
    await writeResultXlsx(path, sampleInput());
    const opened = await openSheet(path, { sheet: 'Results' });
    for await (const batch of opened.rows) void batch;
    expect(opened.sheetName).toBe('Results');
    expect(opened.headers.slice(0, HEADERS.length)).toEqual(HEADERS);
  });
});
