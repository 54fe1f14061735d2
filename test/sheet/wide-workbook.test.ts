/**
 * A workbook of 16,384 columns (every column a spreadsheet has) written as exceljs's streaming writer and
 * several exporters store it: the worksheet before the shared strings and workbook.xml, so the whole file is
 * read into a temp file before the first row is parsed, and parsing is most of the time. The read finishes
 * with every cell, and the progress it reports moves while the rows are parsed instead of sitting at 100%
 * from the start (a 2,000-row one takes minutes: exceljs's reader alone spends about 70 ms on each row).
 */
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { openSheet } from '../../src/sheet/read-sheet.js';
import { useTempDir } from './support.js';

const fixture = useTempDir();
const COLUMNS = 16_384;

async function writeWide(name: string, rows: number): Promise<string> {
  const path = fixture(name);
  const book = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: path, useSharedStrings: false });
  const sheet = book.addWorksheet('Orders');
  sheet.addRow(Array.from({ length: COLUMNS }, (_, i) => (i === 0 ? 'customerOrderId' : `extra${i}`))).commit();
  for (let r = 0; r < rows; r++) sheet.addRow(Array.from({ length: COLUMNS }, (_, i) => (i === 0 ? `SO-${r}` : (r * 7919 + i) % 1000))).commit();
  await book.commit();
  return path;
}

/** Reads the sheet whole: its rows, and the progress (bytes of the file) seen as each batch arrived. */
async function readWithProgress(path: string) {
  const sheet = await openSheet(path, { batchSize: 2 });
  const progress: number[] = [];
  let rows = 0;
  let cells = 0;
  for await (const batch of sheet.rows) {
    progress.push(sheet.bytesRead());
    rows += batch.length;
    for (const row of batch) cells += row.cells.length;
  }
  return { sheet, progress, rows, cells, end: sheet.bytesRead() };
}

describe('a workbook of 16,384 columns', () => {
  it('is read whole, its progress moving through the parse and reaching the file size at the end', async () => {
    const path = await writeWide('wide-16.xlsx', 16);
    const { sheet, progress, rows, cells, end } = await readWithProgress(path);

    expect(rows).toBe(16);
    expect(cells).toBe(16 * COLUMNS);
    // The file is read into a temp file before the first row is parsed: the first rows are not the end of the read.
    expect(progress[0]!).toBeLessThan(sheet.sizeBytes * 0.75);
    expect(progress.length).toBeGreaterThan(3);
    for (let i = 1; i < progress.length; i++) expect(progress[i]!).toBeGreaterThanOrEqual(progress[i - 1]!);
    expect(new Set(progress).size).toBeGreaterThan(progress.length / 2);
    expect(end).toBe(sheet.sizeBytes);
  }, 180_000);
});
