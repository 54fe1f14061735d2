/**
 * The size limits of a cell, a row, the header row and a shared-strings table (src/sheet/limits.ts): each is
 * crossed by one character in one row, on both CSV paths and in a workbook, and refused with a message naming
 * the file, the row and the column; one character less is read. The limits are lowered through the options.
 */
import { describe, expect, it } from 'vitest';
import type ExcelJS from 'exceljs';
import { SHEET_LIMITS, type SheetLimits } from '../../src/sheet/limits.js';
import type { OpenSheetOptions } from '../../src/sheet/read-sheet.js';
import { readAll, readError, useTempDir, writeWorkbook } from './support.js';

const fixture = useTempDir();
const WORKER: OpenSheetOptions = { workerMinBytes: 0, workerUrl: new URL('../../dist/sheet/csv-parse-worker.js', import.meta.url) };
const MAIN: OpenSheetOptions = { workerMinBytes: Number.POSITIVE_INFINITY };
const LOW: Partial<SheetLimits> = { maxCellChars: 20, maxRowChars: 40, maxHeaderChars: 60 };
const HEADER = 'customerOrderId,name,quantity';

describe.each([
  ['on the main thread', MAIN],
  ['on the parse worker', WORKER],
])('CSV limits, %s', (_, read) => {
  const options = (limits: Partial<SheetLimits> = LOW): OpenSheetOptions => ({ ...read, limits });

  it('reads a cell of exactly the cell limit, and refuses one character more, naming the row and column', async () => {
    const at = 'x'.repeat(20);
    const ok = await readAll(fixture('cell-ok.csv', `${HEADER}\nSO-1,a,1\nSO-2,${at},2\n`), options());
    expect(ok.rows[1]!.cells[1]).toBe(at);
    const error = await readError(fixture('cell-over.csv', `${HEADER}\nSO-1,a,1\nSO-2,${at}y,2\nSO-3,b,3\n`), options());
    expect(error.code).toBe('unreadable_file');
    expect(error.message).toMatch(/cell-over\.csv: row 3, column B holds a cell of more than 20 characters, the most this tool reads from one cell/);
  });

  it('counts a doubled quote inside a quoted cell as one character, and a quoted line break as one', async () => {
    const cell = `"${'""'.repeat(18)}\nz"`; // 18 quotes, a line break and z: 20 characters
    const ok = await readAll(fixture('quoted-ok.csv', `${HEADER}\nSO-1,${cell},1\n`), options());
    expect(ok.rows[0]!.cells[1]).toBe(`${'"'.repeat(18)}\nz`);
    const error = await readError(fixture('quoted-over.csv', `${HEADER}\nSO-1,"${'""'.repeat(19)}\nz",1\n`), options());
    expect(error.message).toContain('row 2, column B holds a cell of more than 20 characters');
  });

  it('refuses a quoted cell of escaped quotes long before the parser would have held it', async () => {
    // The hostile shape at small scale: one quoted cell of "" repeated, far past the limit.
    const error = await readError(fixture('quotes.csv', `${HEADER}\nSO-1,"${'""'.repeat(200_000)}",1\n`), options({ maxCellChars: 1_000 }));
    expect(error.message).toContain('row 2, column B holds a cell of more than 1,000 characters');
  });

  it('reads a row of exactly the row limit (cells and commas), and refuses one character more', async () => {
    const row = (extra: string) => `SO-2,${'n'.repeat(16)},${'9'.repeat(16)}${extra}`; // 4 + 1 + 16 + 1 + 16 = 38
    const ok = await readAll(fixture('row-ok.csv', `${HEADER}\nSO-1,a,1\n${row('99')}\n`), options());
    expect(ok.rows).toHaveLength(2);
    const error = await readError(fixture('row-over.csv', `${HEADER}\nSO-1,a,1\n${row('999')}\nSO-3,b,3\n`), options());
    expect(error.message).toMatch(/row-over\.csv: row 3 runs past 40 characters at column C, the most this tool reads from one row/);
  });

  it('reads a header row of exactly the header limit, and refuses one character more, naming it as the header', async () => {
    const header = (extra: string) => `${HEADER},${'h'.repeat(30 - extra.length)}${extra}`; // 29 + 1 + 30 = 60
    const wideCells = { ...LOW, maxCellChars: 40 };
    const ok = await readAll(fixture('header-ok.csv', `${header('')}\nSO-1,a,1\n`), options(wideCells));
    expect(ok.sheet.headers).toHaveLength(4);
    const error = await readError(fixture('header-over.csv', `\n${header('')}x\nSO-1,a,1\n`), options(wideCells));
    expect(error.message).toMatch(/header-over\.csv: its header row runs past 60 characters at column D \(row 2\), the most this tool reads from one header row/);
  });

  it('numbers rows after a sep= line and blank lines as a spreadsheet shows them', async () => {
    const error = await readError(fixture('sep.csv', `sep=;\n${HEADER.replaceAll(',', ';')}\n\nSO-1;${'x'.repeat(21)};1\n`), options());
    expect(error.message).toContain('row 3, column B holds a cell');
  });
});

describe('XLSX limits', () => {
  async function workbook(name: string, rows: unknown[][]): Promise<string> {
    return writeWorkbook(fixture, name, (book: ExcelJS.Workbook) => {
      const sheet = book.addWorksheet('Orders');
      for (const row of rows) sheet.addRow(row);
    });
  }

  it('reads a cell of exactly the limit and refuses one character more, naming the row and column', async () => {
    const ok = await readAll(await workbook('cell-ok.xlsx', [HEADER.split(','), ['SO-1', 'x'.repeat(20), 1]]), { limits: LOW });
    expect(ok.rows).toHaveLength(1);
    const error = await readError(await workbook('cell-over.xlsx', [HEADER.split(','), ['SO-1', 'a', 1], ['SO-2', 'x'.repeat(21), 1]]), { limits: LOW });
    expect(error.message).toMatch(/cell-over\.xlsx: row 3, column B holds a cell of more than 20 characters/);
  });

  it('refuses a row and a header row one character over their limits', async () => {
    const row = await readError(await workbook('row-over.xlsx', [HEADER.split(','), ['SO-1', 'n'.repeat(18), 'q'.repeat(17)]]), { limits: LOW });
    expect(row.message).toContain('row 2 runs past 40 characters at column C');
    const header = await readError(await workbook('header-over.xlsx', [[...HEADER.split(','), 'h'.repeat(31)], ['SO-1', 'a', 1]]), { limits: { ...LOW, maxCellChars: 40 } });
    expect(header.message).toContain('its header row runs past 60 characters at column D (row 1)');
  });

  it('reads a workbook with thousands of columns', async () => {
    const wide = Array.from({ length: 3_000 }, (_, i) => `extra${i}`);
    const path = await workbook('wide.xlsx', [[...HEADER.split(','), ...wide], ...Array.from({ length: 40 }, (_, i) => [`SO-${i}`, 'Mug', 1, ...wide])]);
    const { rows } = await readAll(path, { limits: SHEET_LIMITS });
    expect(rows).toHaveLength(40);
    expect(rows[39]!.cells).toHaveLength(3_003);
  });

  it('refuses a shared-strings table one byte over its limit, and reads it at the limit', async () => {
    const path = await workbook('strings.xlsx', [HEADER.split(','), ...Array.from({ length: 200 }, (_, i) => [`SO-${i}`, `Item ${i} with a name`, 1])]);
    const size = await sharedStringsSize(path);
    const ok = await readAll(path, { limits: { maxSharedStringsBytes: size } });
    expect(ok.rows).toHaveLength(200);
    const error = await readError(path, { limits: { maxSharedStringsBytes: size - 1 } });
    expect(error.message).toContain(`strings.xlsx: its table of shared texts (xl/sharedStrings.xml) unpacks to ${size.toLocaleString('en-US')} bytes, more than the ${(size - 1).toLocaleString('en-US')} bytes this tool keeps in memory`);
  });
});

/** The unpacked size of xl/sharedStrings.xml, from the zip's listing. */
async function sharedStringsSize(path: string): Promise<number> {
  const { readZipParts } = await import('../../src/sheet/xlsx-size-guard.js');
  const { parts } = await readZipParts(path);
  const part = parts!.find((p) => p.name === 'xl/sharedStrings.xml');
  if (!part) throw new Error('no shared strings');
  return part.unpackedBytes;
}
