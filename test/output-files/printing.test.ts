/**
 * How the workbooks print and read: a reconciliation of a few orders prints as a page per sheet
 * (landscape, one page wide, as many pages down as the rows need), its Summary fits the page, long
 * texts wrap in rows as high as they need, and numbers in text columns (ZIP codes, phones, line ids)
 * line up on the left with the text around them. Checked on the workbooks' own properties (what
 * LibreOffice's PDF export of them shows follows from these).
 */
import ExcelJS from 'exceljs';
import { beforeAll, describe, expect, it } from 'vitest';
import { writeResultXlsx } from '../../src/output-files/write-result-xlsx.js';
import { wrappedLineCount, wrappedRowHeight } from '../../src/output-files/xlsx-styles.js';
import { reconcileOrder } from '../../src/reconcile/match.js';
import { SHEET_NAMES, writeReconcileWorkbook } from '../../src/reconcile/workbook.js';
import { expected, nowAt, readOf } from '../reconcile/builders.js';
import { cells, col, HEADERS, issue, sampleInput } from '../support/result-rows.js';
import { useTempDir } from '../support/temp-dir.js';
import { readWorkbook, sheet } from '../support/xlsx-files.js';

const file = useTempDir('printing');

/** One page wide and as many pages down as it takes: what "fit to width" means in Excel and LibreOffice. */
function expectOnePageWide(worksheet: ExcelJS.Worksheet, orientation: 'landscape' | 'portrait'): void {
  expect(worksheet.pageSetup, worksheet.name).toMatchObject({ orientation, fitToPage: true, fitToWidth: 1, fitToHeight: 0 });
}

describe('the reconciliation workbook, printed', () => {
  let workbook: ExcelJS.Workbook;
  const longFact = 'each order and its packages (4 order reads); unknown orders (packages of orders the ledger never sent) are looked for only when tracking updates are paged, for more than 25 orders';
  beforeAll(async () => {
    const orders = ['P-1', 'P-2', 'P-3', 'P-4'].map((id) => {
      const order = expected(id, [{ id: 'L1', productId: 'PRD-1001', quantity: 2 }]);
      return reconcileOrder({ expected: order, read: readOf(order, 'Waiting to Clear'), packages: [], now: nowAt(24 * 10), lateAfterDays: 3 });
    });
    const path = file('reconcile.xlsx');
    await writeReconcileWorkbook(path, orders, { generatedAt: nowAt(240), facts: [['Fetched', longFact], ['API requests', 8]], lateAfterDays: 3, notes: [] });
    workbook = await readWorkbook(path);
  });

  it('prints every table sheet landscape, one page wide, its header row on each page', () => {
    for (const name of SHEET_NAMES.filter((n) => n !== 'Summary')) {
      const worksheet = sheet(workbook, name);
      expectOnePageWide(worksheet, 'landscape');
      expect(worksheet.pageSetup.printTitlesRow, name).toBe('1:1');
    }
  });

  it('prints the Summary portrait on one page wide, its values in a column that fits, long ones wrapped in taller rows', () => {
    const summary = sheet(workbook, 'Summary');
    expectOnePageWide(summary, 'portrait');
    expect(summary.getColumn(2).width).toBeLessThanOrEqual(60);
    const fetched = [...Array(summary.rowCount).keys()].map((i) => summary.getRow(i + 1)).find((row) => row.getCell(1).value === 'Fetched')!;
    expect(fetched.getCell(2).alignment).toMatchObject({ wrapText: true, vertical: 'top', horizontal: 'left' });
    expect(fetched.height).toBeGreaterThanOrEqual(15 * wrappedLineCount(longFact, summary.getColumn(2).width!));
    // A count sits at the left of the column like the sentences above and below it.
    const requests = [...Array(summary.rowCount).keys()].map((i) => summary.getRow(i + 1)).find((row) => row.getCell(1).value === 'API requests')!;
    expect(requests.getCell(2).alignment).toMatchObject({ horizontal: 'left' });
  });

  it('wraps an exception\'s detail within its column, the row as high as the text', () => {
    const exceptions = sheet(workbook, 'Exceptions');
    const detail = exceptions.getRow(2).getCell(6);
    expect(String(detail.value)).toContain('not shipped');
    expect(exceptions.getColumn(6).width).toBeLessThanOrEqual(60);
    expect(detail.alignment).toMatchObject({ wrapText: true });
    expect(exceptions.getRow(2).height ?? 15).toBeGreaterThanOrEqual(15 * wrappedLineCount(String(detail.value), exceptions.getColumn(6).width!));
  });
});

describe('the result workbook, printed and read', () => {
  let workbook: ExcelJS.Workbook;
  const many = Array.from({ length: 9 }, (_, i) => issue(2, 'name', 'too_long', `name is too long: ${i + 1} of 9 problems with this row, each told in a sentence that takes most of a line.`));
  beforeAll(async () => {
    const path = file('result.xlsx');
    await writeResultXlsx(
      path,
      sampleInput({}, [
        { rowNumber: 2, cells: cells('N-1', { postalOrZipCode: 2134, phone: 2175550134, customerLineItemId: 7 }), status: 'invalid', issues: many, needsFix: true },
        { rowNumber: 3, cells: cells('N-2'), status: 'valid', issues: [], needsFix: false },
      ]),
    );
    workbook = await readWorkbook(path);
  });

  it('gives a row with many issues the height of all its lines, more than eight of them', () => {
    const results = sheet(workbook, 'Results');
    const text = String(results.getRow(2).getCell(HEADERS.length + 2).value);
    expect(text).toContain('9 of 9 problems');
    const lines = wrappedLineCount(text, 60);
    expect(lines).toBeGreaterThan(8);
    expect(results.getRow(2).height).toBe(wrappedRowHeight(text, 60));
    expect(results.getRow(2).height).toBeGreaterThanOrEqual(15 * lines);
  });

  it('sets numbers in text columns (ZIP code, phone, line id) to the left, like the text around them', () => {
    for (const [name, book] of [['Results', sheet(workbook, 'Results')]] as const) {
      for (const field of ['postalOrZipCode', 'phone', 'customerLineItemId'] as const) {
        const cell = book.getRow(2).getCell(col(field) + 1);
        expect(typeof cell.value, `${name} ${field}`).toBe('number');
        expect(cell.alignment, `${name} ${field}`).toMatchObject({ horizontal: 'left' });
      }
      // Quantities and amounts stay numbers aligned as numbers.
      expect(book.getRow(2).getCell(col('quantity') + 1).alignment?.horizontal).toBeUndefined();
    }
    const fix = sheet(workbook, 'Fix');
    const header = (fix.getRow(1).values as unknown[]).slice(1);
    for (const field of ['postalOrZipCode', 'phone', 'customerLineItemId']) expect(fix.getRow(2).getCell(header.indexOf(field) + 1).alignment, `Fix ${field}`).toMatchObject({ horizontal: 'left' });
  });

  it('prints Results and Fix landscape one page wide, and the Summary portrait', () => {
    expectOnePageWide(sheet(workbook, 'Results'), 'landscape');
    expectOnePageWide(sheet(workbook, 'Fix'), 'landscape');
    expectOnePageWide(sheet(workbook, 'Summary'), 'portrait');
  });
});

describe('wrappedLineCount', () => {
  it('wraps at spaces, breaks a word longer than a line, and counts each paragraph', () => {
    expect(wrappedLineCount('', 20)).toBe(1);
    expect(wrappedLineCount('aaaa bbbb cccc dddd', 10)).toBe(2);
    expect(wrappedLineCount('x'.repeat(25), 10)).toBe(3);
    expect(wrappedLineCount('one\ntwo\nthree', 40)).toBe(3);
  });
});
