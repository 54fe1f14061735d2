/**
 * A header row may name at most as many columns as a spreadsheet holds (16,384, A to XFD). A CSV whose
 * header goes past it (a 13 MB line of a million column names) is refused at the first column past the
 * limit, before the rest of the line is parsed: the message names the file, the header's row and the limit.
 */
import type ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { SHEET_LIMITS, type SheetLimits } from '../../src/sheet/limits.js';
import type { OpenSheetOptions } from '../../src/sheet/read-sheet.js';
import { readAll, readError, useTempDir, writeWorkbook } from './support.js';

const fixture = useTempDir();
const WORKER: OpenSheetOptions = { workerMinBytes: 0, workerUrl: new URL('../../dist/sheet/csv-parse-worker.js', import.meta.url) };
const MAIN: OpenSheetOptions = { workerMinBytes: Number.POSITIVE_INFINITY };
const HEADER = ['customerOrderId', 'name', 'quantity'];

function header(columns: number): string {
  return [...HEADER, ...Array.from({ length: columns - HEADER.length }, (_, i) => `extra${i}`)].join(',');
}

describe.each([
  ['on the main thread', MAIN],
  ['on the parse worker', WORKER],
])('the column limit of a CSV header, %s', (_, read) => {
  const options = (limits: Partial<SheetLimits> = {}): OpenSheetOptions => ({ ...read, limits });

  it('reads a header of exactly 16,384 columns, and refuses one of 16,385 naming the file, the row and the limit', async () => {
    expect(SHEET_LIMITS.maxColumns).toBe(16_384);
    const ok = await readAll(fixture('cols-ok.csv', `${header(16_384)}\nSO-1,a,1\n`), options());
    expect(ok.sheet.headers).toHaveLength(16_384);
    const error = await readError(fixture('cols-over.csv', `\n${header(16_385)}\nSO-1,a,1\n`), options());
    expect(error.code).toBe('unreadable_file');
    expect(error.message).toMatch(/cols-over\.csv: its header row \(row 2\) has more than 16,384 columns \(past column XFD\), the most this tool reads/);
  });

  it('refuses the header at the first column past the limit, before the rest of the line is read', async () => {
    // Past the limit the line holds a cell far longer than the cell limit: reading on would have refused that instead.
    const rest = `,${'x'.repeat(5_000)},${Array.from({ length: 1_000 }, (_, i) => `more${i}`).join(',')}`;
    const error = await readError(fixture('cols-early.csv', `${header(10)},extra-past${rest}\nSO-1,a,1\n`), options({ maxColumns: 10, maxCellChars: 1_000 }));
    expect(error.message).toMatch(/cols-early\.csv: its header row \(row 1\) has more than 10 columns \(past column J\)/);
  });

  it('holds data rows to the row limits only: a row with cells past the header is read', async () => {
    const { rows } = await readAll(fixture('cols-data.csv', `${header(3)}\nSO-1,a,1,${'y,'.repeat(20)}z\n`), options({ maxColumns: 3 }));
    expect(rows[0]!.cells).toHaveLength(24);
  });
});

describe('the column limit of an XLSX header', () => {
  it('refuses a header row past the limit, naming the file, the row and the limit', async () => {
    const path = await writeWorkbook(fixture, 'cols-over.xlsx', (book: ExcelJS.Workbook) => {
      const sheet = book.addWorksheet('Orders');
      sheet.addRow([...HEADER, 'extra0', 'extra1']);
      sheet.addRow(['SO-1', 'a', 1]);
    });
    const error = await readError(path, { limits: { maxColumns: 4 } });
    expect(error.message).toMatch(/cols-over\.xlsx: its header row \(row 1\) has more than 4 columns \(past column D\)/);
  });
});
