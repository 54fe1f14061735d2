/**
 * Workbooks with orders on more than one visible worksheet: the first is read (unless --sheet names another)
 * and the others that hold orders are reported, never skipped without a word; an empty first worksheet names
 * the others.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import { describe, expect, it } from 'vitest';
import { readAll, readError, useTempDir, writeWorkbook as writeSheetWorkbook } from './support.js';

const fixture = useTempDir();

const HEADER = ['customerOrderId', 'orderDate', 'sourceOfSale', 'fullName', 'addressLine1', 'city', 'provinceOrState', 'postalOrZipCode', 'countryCode', 'phone', 'productId', 'customerLineItemId', 'name', 'quantity', 'unitPrice', 'salesTax'];
const order = (id: string): unknown[] => [id, '2031-04-28', 'OtherMarketplace', 'Ann Lee', '1 Main St', 'Boston', 'MA', '02134', 'US', '+1 617 555 0100', 'PRD-1', '1', 'Mug', 1, 9.5, 0];

const writeWorkbook = (name: string, build: (workbook: ExcelJS.Workbook) => void): Promise<string> => writeSheetWorkbook(fixture, name, build);

function addOrders(workbook: ExcelJS.Workbook, name: string, ids: string[], options?: Partial<ExcelJS.AddWorksheetOptions>): ExcelJS.Worksheet {
  const sheet = workbook.addWorksheet(name, options);
  sheet.addRow(HEADER);
  for (const id of ids) sheet.addRow(order(id));
  return sheet;
}

/**
 * The same workbook stored as Excel stores it: workbook.xml, its rels and the shared strings before the
 * worksheets, so that exceljs streams each worksheet from the zip instead of parking it in a temp file first
 * (exceljs's own writer stores workbook.xml last).
 */
async function storeInExcelOrder(path: string): Promise<string> {
  const zip = await JSZip.loadAsync(readFileSync(path));
  const first = ['[Content_Types].xml', '_rels/.rels', 'xl/workbook.xml', 'xl/_rels/workbook.xml.rels', 'xl/sharedStrings.xml', 'xl/styles.xml'];
  const names = [...first.filter((n) => zip.file(n)), ...Object.keys(zip.files).filter((n) => !first.includes(n) && !zip.files[n]!.dir)];
  const out = new JSZip();
  for (const name of names) out.file(name, await zip.file(name)!.async('uint8array'));
  const reordered = path.replace(/\.xlsx$/, '.excel-order.xlsx');
  writeFileSync(reordered, await out.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' }));
  return reordered;
}

const ids = (prefix: string, n: number): string[] => Array.from({ length: n }, (_, i) => `${prefix}-${i + 1}`);

describe('orders on another visible worksheet', () => {
  it('reads the first worksheet and warns, naming the other one and how to read it', async () => {
    const file = await writeWorkbook('two-sheets.xlsx', (wb) => {
      addOrders(wb, 'February', ids('FEB', 3));
      addOrders(wb, 'March', ids('MAR', 2));
    });
    for (const path of [file, await storeInExcelOrder(file)]) {
      const { sheet, rows } = await readAll(path);
      expect(sheet.sheetName, path).toBe('February');
      expect(rows.map((r) => r.cells[0]), path).toEqual(['FEB-1', 'FEB-2', 'FEB-3']);
      const issues = sheet.issues?.() ?? [];
      expect(issues.map((i) => [i.code, i.severity]), path).toEqual([['unread_sheet', 'warning']]);
      expect(issues[0]!.message).toContain('worksheet "March" also has order columns and rows, which were NOT read');
      expect(issues[0]!.message).toContain('--sheet "March"');
    }
  });

  it('names every other worksheet with orders, in tab order, wherever they are stored in the zip', async () => {
    const file = await writeWorkbook('four-sheets.xlsx', (wb) => {
      addOrders(wb, 'Archive', ids('OLD', 1)); // sheet1.xml, moved behind Orders below
      wb.addWorksheet('Notes').addRows([['just a note'], ['and another']]);
      addOrders(wb, 'April', ids('APR', 1));
      const orders = addOrders(wb, 'Orders', ids('NEW', 2));
      (orders as unknown as { orderNo: number }).orderNo = 0;
    });
    for (const path of [file, await storeInExcelOrder(file)]) {
      const { sheet, rows } = await readAll(path);
      expect(sheet.sheetName).toBe('Orders');
      expect(rows.map((r) => r.cells[0])).toEqual(['NEW-1', 'NEW-2']);
      const [issue] = sheet.issues?.() ?? [];
      expect(issue!.message).toContain('worksheets "Archive" and "April" also have order columns');
      expect(issue!.message).toContain('--sheet "Archive", then --sheet "April"');
      expect(issue!.message).not.toContain('Notes');
    }
  });

  it('looks at a large other worksheet without reading it all, and still reads the chosen one whole', async () => {
    const file = await writeWorkbook('large-other.xlsx', (wb) => {
      addOrders(wb, 'Big', ids('BIG', 4000));
      const orders = addOrders(wb, 'Orders', ids('ORD', 3000));
      (orders as unknown as { orderNo: number }).orderNo = 0;
      addOrders(wb, 'Tail', ids('TAIL', 3000));
    });
    for (const path of [file, await storeInExcelOrder(file)]) {
      const { sheet, rows } = await readAll(path);
      expect(rows).toHaveLength(3000);
      expect(rows[2999]!.cells[0]).toBe('ORD-3000');
      expect(sheet.issues?.()[0]!.message).toContain('worksheets "Big" and "Tail" also have order columns');
    }
  });

  it('says nothing when --sheet names the worksheet, or the others are hidden, hold no orders or only a header', async () => {
    const named = await writeWorkbook('named.xlsx', (wb) => {
      addOrders(wb, 'February', ids('FEB', 1));
      addOrders(wb, 'March', ids('MAR', 1));
    });
    expect((await readAll(named, { sheet: 'March' })).sheet.issues?.()).toEqual([]);
    const quiet = await writeWorkbook('quiet.xlsx', (wb) => {
      addOrders(wb, 'Orders', ids('ORD', 1));
      addOrders(wb, 'Old', ids('OLD', 1), { state: 'hidden' });
      addOrders(wb, 'Blank form', []);
      wb.addWorksheet('Products').addRows([['productId', 'name', 'quantity'], ['PRD-1', 'Mug', 3]]);
      wb.addWorksheet('Chart data');
    });
    for (const path of [quiet, await storeInExcelOrder(quiet)]) expect((await readAll(path)).sheet.issues?.()).toEqual([]);
  });

  it("says nothing about the template's Examples sheet or the Results sheet of a result workbook", async () => {
    const template = await writeWorkbook('template-like.xlsx', (wb) => {
      addOrders(wb, 'Orders', ids('SO', 1));
      addOrders(wb, 'Examples', ['SO-10001', 'SO-10002']);
      wb.addWorksheet('Instructions').addRows([['How to fill in the Orders sheet']]);
    });
    expect((await readAll(template)).sheet.issues?.()).toEqual([]);
    const result = await writeWorkbook('result-like.xlsx', (wb) => {
      addOrders(wb, 'Results', ids('SO', 2));
      addOrders(wb, 'Fix', ids('SO', 1));
      wb.addWorksheet('Summary').addRows([['Orders'], ['valid', 1]]);
    });
    const read = await readAll(result);
    expect(read.sheet.sheetName).toBe('Fix');
    expect(read.sheet.issues?.()).toEqual([]);
  });
});

describe('a first worksheet without orders', () => {
  it('names the worksheet that holds orders and how to read it', async () => {
    const file = await writeWorkbook('empty-first.xlsx', (wb) => {
      wb.addWorksheet('Sheet1');
      wb.addWorksheet('Notes').addRows([['call back Monday'], ['re: invoices']]);
      addOrders(wb, 'Orders', ids('ORD', 1));
    });
    const error = await readError(file);
    expect(error.code).toBe('empty_file');
    expect(error.message).toContain('(worksheet "Sheet1") has no rows');
    expect(error.message).toContain('Worksheet "Orders" of this workbook has orders: to read it, name it with --sheet "Orders"');
  });

  it('lists the other worksheets when none of them visibly holds orders, and when --sheet named the empty one', async () => {
    const file = await writeWorkbook('empty-named.xlsx', (wb) => {
      addOrders(wb, 'January', ids('JAN', 1));
      wb.addWorksheet('Sheet1');
      wb.addWorksheet('Old', { state: 'hidden' });
    });
    const error = await readError(file, { sheet: 'Sheet1' });
    expect(error.message).toContain('(worksheet "Sheet1") has no rows');
    expect(error.message).toContain('The workbook\'s other worksheet is "January": if the orders are there, name it with --sheet "January"');
    expect(error.message).not.toContain('"Old"');
  });

  it('names the others when the first worksheet has a header row only', async () => {
    const file = await writeWorkbook('header-only.xlsx', (wb) => {
      addOrders(wb, 'Template', []);
      addOrders(wb, 'Week 12', ids('W', 1));
    });
    const error = await readError(file);
    expect(error.message).toContain('has a header row but no orders below it');
    expect(error.message).toContain('--sheet "Week 12"');
  });
});
