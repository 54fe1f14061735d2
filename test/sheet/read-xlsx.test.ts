import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { readAll, readError, useTempDir, writeWorkbook as writeSheetWorkbook } from './support.js';

const fixture = useTempDir();

const writeWorkbook = (name: string, build: (workbook: ExcelJS.Workbook) => void): Promise<string> => writeSheetWorkbook(fixture, name, build);

/** Excel's serial day number for a wall-clock time (days since 1899-12-30, time as a fraction). */
const serialOf = (utcMs: number): number => utcMs / 86_400_000 + 25569;

describe('reading XLSX', () => {
  it('keeps cell types: numbers, booleans, text, and numbers stored as text and text stored as numbers as-is', async () => {
    const file = await writeWorkbook('types.xlsx', (wb) => {
      const ws = wb.addWorksheet('Orders');
      ws.addRow(['customerOrderId', 'quantity', 'unitPrice', 'postalOrZipCode', 'phone', 'gift']);
      ws.addRow(['SO-1', 2, 19.99, '02134', 2175550134, true]);
      ws.addRow([1001, '3', '4.50', 2134, '(217) 555-0134', false]);
    });
    const { sheet, rows } = await readAll(file);
    expect(sheet.format).toBe('xlsx');
    expect(sheet.sheetName).toBe('Orders');
    expect(rows.map((r) => r.cells)).toEqual([
      ['SO-1', 2, 19.99, '02134', 2175550134, true],
      [1001, '3', '4.50', 2134, '(217) 555-0134', false],
    ]);
  });

  it('reads a date cell as a Date whose UTC fields are the time Excel shows', async () => {
    const shown = Date.UTC(2026, 10, 20, 14, 30);
    const file = await writeWorkbook('dates.xlsx', (wb) => {
      const ws = wb.addWorksheet('Orders');
      ws.addRow(['customerOrderId', 'orderDate', 'requestedDeliveryDate']);
      const row = ws.addRow(['SO-1', serialOf(shown), serialOf(Date.UTC(2026, 10, 28))]);
      row.getCell(2).numFmt = 'yyyy-mm-dd hh:mm';
      row.getCell(3).numFmt = 'dd/mm/yyyy';
    });
    const { rows } = await readAll(file);
    expect(rows[0]!.cells[1]).toEqual(new Date(shown));
    expect(rows[0]!.cells[2]).toEqual(new Date(Date.UTC(2026, 10, 28)));
  });

  it('gives formula cells their cached result: number, text, date, and error text such as #N/A', async () => {
    const file = await writeWorkbook('formulas.xlsx', (wb) => {
      const ws = wb.addWorksheet('Orders');
      ws.addRow(['customerOrderId', 'quantity', 'grandTotal', 'orderDate', 'productId', 'discount', 'name']);
      const row = ws.addRow([
        { formula: '"SO-"&1', result: 'SO-1' },
        { formula: '1+1', result: 2 },
        { formula: 'B2*2.5', result: 5 },
        { formula: 'DATE(2026,11,20)', result: new Date(Date.UTC(2026, 10, 20)) },
        { formula: 'VLOOKUP(1,Z:Z,2,0)', result: { error: '#N/A' } },
        { error: '#DIV/0!' },
        { formula: 'IF(B2>5,"big","")', result: '' },
      ]);
      row.getCell(4).numFmt = 'yyyy-mm-dd';
    });
    const { rows } = await readAll(file);
    expect(rows[0]!.cells).toEqual(['SO-1', 2, 5, new Date(Date.UTC(2026, 10, 20)), '#N/A', '#DIV/0!', '']);
  });

  it('reads a formula whose cached result is 0 as 0, not as a blank cell', async () => {
    const file = await writeWorkbook('formula-zero.xlsx', (wb) => {
      const ws = wb.addWorksheet('Orders');
      ws.addRow(['customerOrderId', 'quantity', 'salesTax', 'discount']);
      ws.addRow(['SO-1', 2, { formula: 'B2*0', result: 0 }, { formula: 'B2-2', result: 0 }]);
    });
    const { rows } = await readAll(file);
    expect(rows[0]!.cells).toEqual(['SO-1', 2, 0, 0]);
  });

  it('refuses a formula in an order column that has no saved value, naming the cell, the formula and the fix', async () => {
    const file = await writeWorkbook('uncomputed.xlsx', (wb) => {
      const ws = wb.addWorksheet('Orders');
      ws.addRow(['customerOrderId', 'quantity', 'unitPrice', 'Sub Total']);
      ws.addRow(['SO-1', 2, 4.5, { formula: 'B2*C2', result: 9 }]);
      ws.addRow(['SO-2', 3, 2, { formula: 'B3*C3' }]); // as saved by a program that does not calculate
    });
    const error = await readError(file);
    expect(error.code).toBe('unreadable_file');
    expect(error.message).toBe(
      `${file} (worksheet "Orders"), cell D3 (Sub Total): the formula =B3*C3 has no saved value, because the program that wrote the file does not calculate formulas. ` +
        "Open the file in Excel or LibreOffice and save it (that stores every formula's value), or type the value instead of the formula.",
    );
  });

  it('refuses a shared formula without a saved value too', async () => {
    const file = await writeWorkbook('uncomputed-shared.xlsx', (wb) => {
      const ws = wb.addWorksheet('Orders');
      ws.addRow(['customerOrderId', 'quantity', 'subTotal']);
      ws.addRow(['SO-1', 2, { formula: 'B2*2', result: 4, shareType: 'shared', ref: 'C2:C3' }]);
      ws.addRow(['SO-2', 3, { sharedFormula: 'C2' }]);
    });
    const error = await readError(file);
    expect(error.message).toContain('cell C3 (subTotal): a formula has no saved value');
  });

  it('refuses a formula whose saved value is empty (<v/>, as openpyxl and pandas write it), not reading it as #VALUE!', async () => {
    const file = await writeWorkbook('uncomputed-empty-v.xlsx', (wb) => {
      const ws = wb.addWorksheet('Orders');
      ws.addRow(['customerOrderId', 'quantity', 'name']);
      // exceljs reads an empty <v> as NaN, as it reads this one back.
      ws.addRow(['SO-1', 2, { formula: 'UPPER(A2)', result: Number.NaN }]);
    });
    const error = await readError(file);
    expect(error.message).toContain('cell C2 (name): the formula =UPPER(A2) has no saved value');
  });

  it('lets an unsaved formula pass in a column the checker ignores', async () => {
    const file = await writeWorkbook('uncomputed-notes.xlsx', (wb) => {
      const ws = wb.addWorksheet('Orders');
      ws.addRow(['customerOrderId', 'quantity', 'Notes']);
      ws.addRow(['SO-1', 2, { formula: 'A2&" gift"' }]);
    });
    const { rows } = await readAll(file);
    expect(rows[0]!.cells).toEqual(['SO-1', 2, null]);
  });

  it('joins rich text and reads a hyperlink as its text', async () => {
    const file = await writeWorkbook('rich.xlsx', (wb) => {
      const ws = wb.addWorksheet('Orders');
      ws.addRow(['customerOrderId', 'fullName', 'email']);
      ws.addRow([
        'SO-1',
        { richText: [{ text: 'Maria ' }, { text: 'Lopez', font: { bold: true } }] },
        { text: 'maria@example.com', hyperlink: 'mailto:maria@example.com' },
      ]);
    });
    const { rows } = await readAll(file);
    expect(rows[0]!.cells).toEqual(['SO-1', 'Maria Lopez', 'maria@example.com']);
  });

  it('positions the cells of sparse rows by their column letter', async () => {
    const file = await writeWorkbook('sparse.xlsx', (wb) => {
      const ws = wb.addWorksheet('Orders');
      ws.addRow(['customerOrderId', 'name', 'quantity', 'unitPrice', 'discount']);
      ws.getCell('A2').value = 'SO-1';
      ws.getCell('D2').value = 9.5;
      ws.getCell('G2').value = 'beyond the header';
    });
    const { rows } = await readAll(file);
    expect(rows[0]!.cells).toEqual(['SO-1', null, null, 9.5, null, null, 'beyond the header']);
  });

  it('skips blank rows and leading blank rows while keeping the row numbers Excel shows', async () => {
    const file = await writeWorkbook('blank.xlsx', (wb) => {
      const ws = wb.addWorksheet('Orders');
      ws.getCell('A2').value = 'customerOrderId';
      ws.getCell('B2').value = 'name';
      ws.getCell('A3').value = 'SO-1';
      ws.getCell('A4').value = '   ';
      ws.getCell('B5').value = null;
      ws.getRow(5).height = 30; // present in the file, but empty
      ws.getCell('A7').value = 'SO-2';
    });
    const { sheet, rows } = await readAll(file);
    expect(sheet.headerRow).toBe(2);
    expect(rows.map((r) => r.rowNumber)).toEqual([3, 7]);
    expect(rows[0]!.cells).toEqual(['SO-1', null]);
  });

  it('reads the first visible worksheet, skipping hidden ones', async () => {
    const file = await writeWorkbook('hidden.xlsx', (wb) => {
      wb.addWorksheet('Lookup', { state: 'hidden' }).addRows([['code'], ['X']]);
      wb.addWorksheet('Secret', { state: 'veryHidden' }).addRows([['code'], ['Y']]);
      wb.addWorksheet('Orders').addRows([['customerOrderId'], ['SO-1']]);
      wb.addWorksheet('Other').addRows([['customerOrderId'], ['SO-9']]);
    });
    const { sheet, rows } = await readAll(file);
    expect(sheet.sheetName).toBe('Orders');
    expect(rows[0]!.cells).toEqual(['SO-1']);
  });

  it('reads the first tab even when its worksheet file comes later in the zip', async () => {
    const file = await writeWorkbook('tab-order.xlsx', (wb) => {
      wb.addWorksheet('Archive').addRows([['customerOrderId'], ['SO-OLD']]); // xl/worksheets/sheet1.xml
      const orders = wb.addWorksheet('Orders'); // xl/worksheets/sheet2.xml, moved to the first tab
      orders.addRows([['customerOrderId'], ['SO-NEW']]);
      (orders as unknown as { orderNo: number }).orderNo = 0;
    });
    const { sheet, rows } = await readAll(file);
    expect(sheet.sheetName).toBe('Orders');
    expect(rows[0]!.cells).toEqual(['SO-NEW']);
  });

  it('reads the right worksheet on every read of a small workbook whose workbook.xml is stored last', async () => {
    // exceljs stores xl/workbook.xml last; unzipper's early 'end' lost it in about one read in ten.
    const file = await writeWorkbook('stored-last.xlsx', (wb) => {
      wb.addWorksheet('Lookup', { state: 'hidden' }).addRows([['code'], ['X']]);
      wb.addWorksheet('Secret', { state: 'veryHidden' }).addRows([['code'], ['Y']]);
      wb.addWorksheet('Orders').addRows([['customerOrderId'], ['SO-1']]);
      wb.addWorksheet('Other').addRows([['customerOrderId'], ['SO-9']]);
    });
    const names = new Set<string | undefined>();
    for (let i = 0; i < 100; i++) names.add((await readAll(file)).sheet.sheetName);
    expect([...names]).toEqual(['Orders']);
  });

  it('reads the worksheet named with --sheet, matching its case loosely', async () => {
    const file = await writeWorkbook('named.xlsx', (wb) => {
      wb.addWorksheet('January').addRows([['customerOrderId'], ['SO-1']]);
      wb.addWorksheet('February').addRows([['customerOrderId'], ['SO-2']]);
    });
    expect((await readAll(file, { sheet: 'February' })).rows[0]!.cells).toEqual(['SO-2']);
    const loose = await readAll(file, { sheet: 'february' });
    expect(loose.sheet.sheetName).toBe('February');
  });

  it('refuses an unknown --sheet name and lists the worksheets there are', async () => {
    const file = await writeWorkbook('unknown-sheet.xlsx', (wb) => {
      wb.addWorksheet('January').addRows([['customerOrderId'], ['SO-1']]);
      wb.addWorksheet('February').addRows([['customerOrderId'], ['SO-2']]);
    });
    const error = await readError(file, { sheet: 'March' });
    expect(error.code).toBe('unreadable_file');
    expect(error.message).toContain('"March"');
    expect(error.message).toContain('"January", "February"');
  });

  it('keeps non-ASCII text whole across zip chunk boundaries, in shared and inline strings', async () => {
    const names = Array.from({ length: 8000 }, (_, i) => `Zoë Müller-Øster 中文 ${i}`);
    const shared = await writeWorkbook('multibyte.xlsx', (wb) => {
      const ws = wb.addWorksheet('Orders');
      ws.addRow(['customerOrderId', 'fullName']);
      names.forEach((n, i) => ws.addRow([`SO-${i}`, n]));
    });
    const inlinePath = fixture('multibyte-inline.xlsx');
    const writer = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: inlinePath, useSharedStrings: false });
    const ws = writer.addWorksheet('Orders');
    ws.addRow(['customerOrderId', 'fullName']).commit();
    names.forEach((n, i) => ws.addRow([`SO-${i}`, n]).commit());
    await writer.commit();
    for (const file of [shared, inlinePath]) {
      const { rows } = await readAll(file);
      expect(rows.map((r) => r.cells[1]), file).toEqual(names);
    }
  });

  it('names the worksheet when the chosen one has no rows', async () => {
    const file = await writeWorkbook('empty-sheet.xlsx', (wb) => {
      wb.addWorksheet('Orders');
    });
    const error = await readError(file);
    expect(error.code).toBe('empty_file');
    expect(error.message).toContain('"Orders"');
  });
});
