/**
 * Builds the XLSX samples from the committed CSV samples, the way a spreadsheet user would have
 * typed them: dates as date cells, money and quantities as numbers, a grand total as a formula
 * with its cached value, and (in the sheet with mistakes) a ZIP code typed as a number that lost
 * its leading zero. Run with `npm run samples` after changing a CSV sample.
 */
import ExcelJS from 'exceljs';
import Papa from 'papaparse';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const NUMERIC = new Set(['quantity', 'unitPrice', 'discount', 'subTotal', 'discountTotal', 'salesTax', 'grandTotal']);
const MONEY = new Set(['unitPrice', 'discount', 'subTotal', 'discountTotal', 'salesTax', 'grandTotal']);
const DATES = new Set(['orderDate']);

function cellValue(header: string, text: string, numericZip: boolean): ExcelJS.CellValue {
  if (text === '') return null;
  if (DATES.has(header)) {
    const m = /^(\d{4})-(\d{2})-(\d{2})(?: (\d{2}):(\d{2}))?$/.exec(text);
    // Date cells carry wall-clock time; exceljs writes the UTC fields.
    if (m) return new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +(m[4] ?? 0), +(m[5] ?? 0)));
  }
  if (NUMERIC.has(header)) {
    const n = Number(text.replace(/[$,]/g, ''));
    if (Number.isFinite(n)) return n;
  }
  if (header === 'postalOrZipCode' && numericZip && /^\d+$/.test(text)) return Number(text);
  return text;
}

export async function buildXlsxSample(csvPath: string, xlsxPath: string, options: { numericZip: boolean; grandTotalFormula: boolean }): Promise<void> {
  const parsed = Papa.parse<string[]>(readFileSync(csvPath, 'utf8'), { skipEmptyLines: true });
  const [headers, ...rows] = parsed.data;
  if (!headers) throw new Error(`${csvPath} has no header`);
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('Orders');
  sheet.addRow(headers).font = { bold: true };
  const col = (name: string) => headers.indexOf(name) + 1;
  for (const cells of rows) {
    const row = sheet.addRow(cells.map((text, i) => cellValue(headers[i]!, text, options.numericZip)));
    const grand = col('grandTotal');
    const sub = col('subTotal');
    const tax = col('salesTax');
    if (options.grandTotalFormula && grand > 0 && sub > 0 && tax > 0 && typeof row.getCell(grand).value === 'number') {
      const subRef = row.getCell(sub).address;
      const taxRef = row.getCell(tax).address;
      row.getCell(grand).value = { formula: `${subRef}+${taxRef}`, result: row.getCell(grand).value as number };
    }
  }
  headers.forEach((h, i) => {
    const column = sheet.getColumn(i + 1);
    column.width = Math.max(12, h.length + 2);
    if (MONEY.has(h)) column.numFmt = '#,##0.00';
    if (DATES.has(h)) column.numFmt = 'yyyy-mm-dd hh:mm';
  });
  sheet.views = [{ state: 'frozen', ySplit: 1 }];
  await workbook.xlsx.writeFile(xlsxPath);
}

async function main(): Promise<void> {
  const samples = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'samples');
  await buildXlsxSample(join(samples, 'orders-valid.csv'), join(samples, 'orders-valid.xlsx'), { numericZip: false, grandTotalFormula: true });
  await buildXlsxSample(join(samples, 'orders-with-mistakes.csv'), join(samples, 'orders-with-mistakes.xlsx'), { numericZip: true, grandTotalFormula: false });
  process.stdout.write('samples/orders-valid.xlsx and samples/orders-with-mistakes.xlsx written\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
