/** Sheets of the wrong shape: cells past the last column, and a title row above the header row. */
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { readAll, useTempDir, writeWorkbook as writeSheetWorkbook } from './support.js';

const fixture = useTempDir();

const H = 'customerOrderId,orderDate,sourceOfSale,fullName,addressLine1,city,provinceOrState,postalOrZipCode,countryCode,phone,productId,customerLineItemId,name,quantity,unitPrice,salesTax';
const row = (id: string, address = '1 Main St'): string =>
  `${id},2031-04-28,OtherMarketplace,Ann Lee,${address},Boston,MA,02134,US,+1 617 555 0100,PRD-1,1,Mug,1,9.50,0`;

const writeWorkbook = (name: string, build: (workbook: ExcelJS.Workbook) => void): Promise<string> => writeSheetWorkbook(fixture, name, build);

describe('cells past the last column', () => {
  it('warns about a CSV row with more non-empty cells than the header, naming the row and the columns', async () => {
    const lines = [H, row('SO-1'), row('SO-2', '1 Main St, Apt 2'), `${row('SO-3')},extra,cells`, `${row('SO-4')},,,`, `${row('SO-5')}, ,`];
    const { sheet, rows } = await readAll(fixture('extra.csv', `${lines.join('\n')}\n`));
    expect(rows).toHaveLength(5);
    const issues = sheet.issues?.() ?? [];
    expect(issues.map((i) => [i.code, i.severity, i.row])).toEqual([
      ['unknown_column', 'warning', 3],
      ['unknown_column', 'warning', 4],
    ]);
    expect(issues[0]!.message).toMatch(/^Row 3 has a cell past the last column \(Q\), which is ignored: an unquoted comma/);
    expect(issues[1]!.message).toMatch(/^Row 4 has 2 cells past the last column \(Q, R\), which are ignored: an unquoted comma/);
  });

  it('names the first ten columns of a row with many cells past the last column, counts the others and names the last', async () => {
    const extras = Array.from({ length: 20 }, (_, i) => `x${i}`).join(',');
    const issues = (await readAll(fixture('wide-extra.csv', `${H}\n${row('SO-1')},${extras}\n`))).sheet.issues?.() ?? [];
    expect(issues).toHaveLength(1);
    expect(issues[0]!.message).toMatch(/^Row 2 has 20 cells past the last column \(Q, R, S, T, U, V, W, X, Y, Z and 10 more, up to AJ\), which are ignored: /);
  });

  it('names ten rows and counts the others', async () => {
    const lines = [H];
    for (let i = 0; i < 14; i++) lines.push(`${row(`SO-${i}`)},x`);
    const issues = (await readAll(fixture('many-extra.csv', lines.join('\r\n')))).sheet.issues?.() ?? [];
    expect(issues).toHaveLength(11);
    expect(issues[9]!.row).toBe(11);
    expect(issues[10]!.message).toBe('4 more rows have cells past the last column, ignored as well');
  });

  it('warns about XLSX cells right of the last header column, but not about blank ones', async () => {
    const file = await writeWorkbook('extra.xlsx', (wb) => {
      const ws = wb.addWorksheet('Orders');
      ws.addRow(H.split(','));
      ws.addRow(row('SO-1').split(','));
      ws.addRow([...row('SO-2').split(','), null, 'gift wrap']);
      const third = ws.addRow([...row('SO-3').split(','), '  ']);
      third.getCell(20).value = null;
      third.getCell(20).fill = { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFFFFF00' } };
    });
    const issues = (await readAll(file)).sheet.issues?.() ?? [];
    expect(issues).toHaveLength(1);
    expect(issues[0]!.message).toMatch(/^Row 3 has a cell past the last column \(R\), which is ignored: move it into the column it belongs to/);
  });
});

describe('a title row above the header row', () => {
  it('says which row holds the column names (CSV)', async () => {
    const csv = ['Orders for March,,,', '', 'exported 2031-04-28', H, row('SO-1'), row('SO-2')].join('\n');
    const { sheet, rows } = await readAll(fixture('title.csv', csv));
    expect(sheet.headerRow).toBe(1);
    expect(rows[0]!.rowNumber).toBe(3);
    const issues = sheet.issues?.() ?? [];
    expect(issues.map((i) => [i.code, i.severity, i.row])).toEqual([['missing_column', 'error', 4]]);
    expect(issues[0]!.message).toContain('The column names are in row 4, but row 1 above them is read as the header row');
    expect(issues[0]!.message).toContain('delete rows 1-3 above the column names');
  });

  it('says which row holds the column names (XLSX), and says nothing when the header is the first row', async () => {
    const file = await writeWorkbook('title.xlsx', (wb) => {
      const ws = wb.addWorksheet('Orders');
      ws.addRow(['March orders']);
      ws.addRow(H.split(','));
      ws.addRow(row('SO-1').split(','));
    });
    const [issue] = (await readAll(file)).sheet.issues?.() ?? [];
    expect(issue!.message).toContain('The column names are in row 2, but row 1 above them');
    expect(issue!.message).toContain('delete row 1 above the column names');
    expect((await readAll(fixture('plain.csv', [H, row('SO-1')].join('\n')))).sheet.issues?.()).toEqual([]);
  });

  it('finds the column names only within the first few rows', async () => {
    const csv = ['Orders', 'a', 'b', 'c', 'd', 'e', H, row('SO-1')].join('\n');
    expect((await readAll(fixture('deep-title.csv', csv))).sheet.issues?.()).toEqual([]);
  });
});
