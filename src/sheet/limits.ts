/**
 * The most a sheet may hold in one place, so that no file, whatever its shape, makes the reader hold more
 * than a bounded amount of memory: a cell, a data row, the header row and an XLSX shared-strings table each
 * have a ceiling, checked while the file streams (a CSV's text before the parser sees it, an XLSX row as it
 * is read, a shared-strings table from the zip's listing and again while it inflates). Crossing one stops
 * the read with a one-line message naming the file, and the row and column where it was crossed.
 *
 * There is no ceiling on the number of rows or on the file's size: rows are kept on disk while orders are
 * checked (orders/row-store.ts), so only free disk bounds them.
 */
import { InputError } from '../errors.js';
import { toColumnLetter } from './column-letters.js';

export interface SheetLimits {
  /** Characters in one cell (1,048,576: Excel holds 32,767; a longer cell is a damaged file or a pasted document). */
  maxCellChars: number;
  /** Characters in one data row, its cells and the separators between them (4,194,304). */
  maxRowChars: number;
  /** Characters in the header row (16,777,216: a million column names fit, their warnings are grouped). */
  maxHeaderChars: number;
  /**
   * Columns in the header row (16,384: as many as a spreadsheet holds, A to XFD, and so as many as a result
   * workbook can give back). A CSV's header is refused at the first column past it, before the rest of the
   * line is read.
   */
  maxColumns: number;
  /** Unpacked bytes of an XLSX shared-strings table, which the reader keeps in memory (268,435,456: 256 MB). */
  maxSharedStringsBytes: number;
}

export const SHEET_LIMITS: SheetLimits = {
  maxCellChars: 1024 * 1024,
  maxRowChars: 4 * 1024 * 1024,
  maxHeaderChars: 16 * 1024 * 1024,
  maxColumns: 16_384,
  maxSharedStringsBytes: 256 * 1024 * 1024,
};

export function resolveLimits(limits: Partial<SheetLimits> | undefined): SheetLimits {
  return limits === undefined ? SHEET_LIMITS : { ...SHEET_LIMITS, ...limits };
}

const count = (n: number): string => n.toLocaleString('en-US');

/** A cell longer than the limit, at a 1-based row number and 0-based column. */
export function createCellTooLongError(file: string, row: number, col: number, limit: number): InputError {
  return new InputError(
    file,
    'unreadable_file',
    `${file}: row ${row}, column ${toColumnLetter(col)} holds a cell of more than ${count(limit)} characters, the most this tool reads from one cell (a spreadsheet cell holds at most 32,767): ` +
      'an unclosed quote or a pasted document? Shorten that cell, or remove it, and try again',
  );
}

/** A row (or the header row) longer than the limit; `col` is the column being read when it was crossed. */
export function createRowTooLongError(file: string, row: number, col: number, limit: number, isHeader: boolean): InputError {
  const what = isHeader ? 'its header row' : `row ${row}`;
  return new InputError(
    file,
    'unreadable_file',
    `${file}: ${what} runs past ${count(limit)} characters at column ${toColumnLetter(col)}${isHeader ? ` (row ${row})` : ''}, the most this tool reads from one ${isHeader ? 'header row' : 'row'}: ` +
      'delete the columns that hold no order data (or save only the order columns), and try again',
  );
}

/** A header row with more columns than the limit, refused at the first column past it. */
export function createTooManyColumnsError(file: string, row: number, limit: number): InputError {
  return new InputError(
    file,
    'unreadable_file',
    `${file}: its header row (row ${row}) has more than ${count(limit)} columns (past column ${toColumnLetter(limit - 1)}), the most this tool reads, as many as a spreadsheet holds: ` +
      'delete the columns that hold no order data (or save only the order columns), and try again',
  );
}

/** An XLSX shared-strings table larger than the limit (from the zip's listing, or counted while inflating). */
export function createSharedStringsTooLargeError(file: string, bytes: number | null, limit: number): InputError {
  const size = bytes === null ? 'more than the' : `${formatBytes(bytes)}, more than the`;
  return new InputError(
    file,
    'unreadable_file',
    `${file}: its table of shared texts (xl/sharedStrings.xml) unpacks to ${size} ${formatBytes(limit)} this tool keeps in memory for one workbook: ` +
      'save the orders as CSV (File > Save As > CSV UTF-8), or split them into smaller workbooks, and try again',
  );
}

function formatBytes(bytes: number): string {
  if (bytes < 1024 * 1024) return `${count(bytes)} bytes`;
  return `${(bytes / (1024 * 1024)).toLocaleString('en-US', { maximumFractionDigits: 1 })} MB`;
}

/** Characters of a cell as read (a number or date as its text). */
export function cellChars(cell: unknown): number {
  if (cell === null || cell === undefined) return 0;
  if (typeof cell === 'string') return cell.length;
  if (typeof cell === 'number') return Number.isInteger(cell) && Math.abs(cell) < 1e21 ? integerChars(cell) : String(cell).length;
  if (typeof cell === 'boolean') return 5;
  // A date, as an ISO text.
  return 24;
}

/** String(n).length of an integer below 1e21 (written without an exponent), without making the string: a wide sheet has millions. */
function integerChars(n: number): number {
  let chars = n < 0 ? 2 : 1;
  const size = Math.abs(n);
  for (let power = 10; size >= power && chars < 22; power *= 10) chars++;
  return chars;
}

/**
 * Checks one row of typed cells (XLSX) against the limits: the cell limit, then the row's (or, for the
 * header row, the header's) running total, each with the separators counted as one character. Returns the total.
 */
export function checkRowCells(file: string, rowNumber: number, cells: readonly unknown[], limits: SheetLimits, isHeader: boolean): number {
  const rowLimit = isHeader ? limits.maxHeaderChars : limits.maxRowChars;
  if (isHeader && cells.length > limits.maxColumns) throw createTooManyColumnsError(file, rowNumber, limits.maxColumns);
  let total = 0;
  for (let col = 0; col < cells.length; col++) {
    const chars = cellChars(cells[col]);
    if (chars > limits.maxCellChars) throw createCellTooLongError(file, rowNumber, col, limits.maxCellChars);
    total += chars + (col > 0 ? 1 : 0);
    if (total > rowLimit) throw createRowTooLongError(file, rowNumber, col, rowLimit, isHeader);
  }
  return total;
}
