/** What the CSV and XLSX readers hand to openSheet: non-blank rows, numbered, header included. */
import type { SheetLimits } from './limits.js';
import type { CellValue, RawRow, ReaderIssue } from './types.js';

export interface RowSource {
  /** Non-blank rows in sheet order, in batches; the first row is the header. Errors are InputErrors. */
  batches: AsyncGenerator<RawRow[], void, undefined>;
  /** The worksheet read (xlsx), known once the first batch has arrived. */
  sheetName(): string | undefined;
  /** What the user must be told about how the file was read (see OpenedSheet.notices), known once the first batch has arrived. */
  notices?(): string[];
  /** What the reader found wrong with the file as a whole (see OpenedSheet.issues), complete once the batches are done. */
  issues?(): ReaderIssue[];
  /**
   * The workbook's other visible worksheets in tab order, known once the batches are done, and whether each has
   * order columns and rows below them (null: not looked at).
   */
  otherSheets?(): OtherSheet[];
  bytesRead(): number;
  /** Hex SHA-256 of the file; null until the whole file has gone through. */
  sha256(): string | null;
  /** Release the file when the rows are abandoned early. */
  close(): void;
}

export interface OtherSheet {
  name: string;
  hasOrders: boolean | null;
}

export interface SourceOptions {
  /** Data rows per batch (the first batch carries the header as well; the last may be shorter). */
  batchSize: number;
  limits: SheetLimits;
}

/**
 * Characters a batch may hold before it is handed over whatever its row count: wide rows (thousands of
 * columns) or long cells come in small batches, so a batch never holds more than a few megabytes.
 */
export const MAX_BATCH_CHARS = 4 * 1024 * 1024;

/** Blank as a person sees it: every cell empty or only spaces (NBSP and BOM count as space). */
export function isBlankRow(cells: readonly CellValue[]): boolean {
  for (let i = 0; i < cells.length; i++) {
    const cell = cells[i];
    if (cell === null || cell === undefined) continue;
    if (typeof cell !== 'string') return false;
    if (cell.length !== 0 && !isBlankText(cell)) return false;
  }
  return true;
}

/** Names quoted and listed for a message: "A", "B" and "C". */
export function listQuoted(names: readonly string[]): string {
  const quoted = names.map((n) => `"${n}"`);
  return quoted.length === 1 ? quoted[0]! : `${quoted.slice(0, -1).join(', ')} and ${quoted[quoted.length - 1]}`;
}

/** A cell blank as a person sees it (see isBlankRow). */
export function isBlankCell(cell: CellValue | undefined): boolean {
  if (cell === null || cell === undefined) return true;
  return typeof cell === 'string' && (cell.length === 0 || isBlankText(cell));
}

function isBlankText(text: string): boolean {
  // Fast path: most non-blank cells start with a visible character.
  const first = text.charCodeAt(0);
  if (first > 0x20 && first !== 0xa0 && first !== 0xfeff && first !== 0x200b) return false;
  return text.replace(/[\s\u200b]+/g, '') === '';
}

/** A header cell as text: trimmed, inner runs of spaces (NBSP, tabs, line breaks) collapsed to one. */
export function toHeaderText(cell: CellValue | undefined): string {
  if (cell === null || cell === undefined) return '';
  const text = cell instanceof Date ? cell.toISOString() : String(cell);
  return hasSpaceLike(text) ? text.replace(/[\s\u200b]+/g, ' ').trim() : text;
}

/** Whether a text holds anything \s or U+200B matches: a header row of a million names is read without a RegExp each. */
function hasSpaceLike(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c <= 0x20 || (c >= 0x7f && (c === 0x85 || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200b) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff))) return true;
  }
  return false;
}

/** Header texts without the blank ones at the end (a sheet's width is its last named column). */
export function trimTrailingBlanks(headers: string[]): string[] {
  let end = headers.length;
  while (end > 0 && headers[end - 1] === '') end--;
  return end === headers.length ? headers : headers.slice(0, end);
}
