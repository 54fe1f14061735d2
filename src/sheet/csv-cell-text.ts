/**
 * What the CSV parse worker sends the main thread, and the result-file text it prepares.
 *
 * The worker writes each data row's input cells as they will appear in the result CSV (quoted and neutralised
 * exactly as the CSV writer does). That text is both what crosses the thread boundary, one string per batch
 * (structured-cloning arrays of arrays of strings costs more than parsing did), and, kept as UTF-8 bytes,
 * what the result file is written from: it then only adds each row's status and issues instead of decoding
 * every stored row again. A row that cannot be read back from its text (an odd row) comes as cells as well.
 */
import { Buffer } from 'node:buffer';
import type { RawRow } from './types.js';

/** Worker to main. */
export type WorkerMessage = RowsMessage | { type: 'end'; sha256: string; bytesRead: number } | { type: 'fail'; code: 'unreadable_file' | null; message: string };

export interface RowsMessage {
  type: 'rows';
  rowNumbers: Int32Array;
  /** The header row's cells, in the first batch only (it has no result-CSV text). */
  header: string[] | null;
  /** Result-CSV text of the batch's data rows back to back, and where each row ends (in characters). */
  text: string;
  ends: Int32Array;
  /** Odd data rows (whose cells cannot be read back from their text), by index within the batch, ascending. */
  oddRows: Int32Array;
  /**
   * The odd rows' cells, each row's joined by a unit separator, rows back to back, and where each row ends:
   * a string splits faster than arrays of strings clone. A row with a cell holding the separator has an
   * empty text and comes in `oddCells`.
   */
  oddText: string;
  oddEnds: Int32Array;
  oddCells: [number, string[]][];
  bytesRead: number;
}

/** ASCII "unit separator": practically never inside a spreadsheet cell (a cell holding it is sent as is). */
const UNIT = '\u001f';

/** The transport of a batch's odd rows (cells by index within the batch, ascending); see RowsMessage. */
export function packOddRows(odd: readonly [number, string[]][]): { oddRows: Int32Array<ArrayBuffer>; oddText: string; oddEnds: Int32Array<ArrayBuffer>; oddCells: [number, string[]][] } {
  const oddRows = new Int32Array(odd.length);
  const oddEnds = new Int32Array(odd.length);
  const texts = new Array<string>(odd.length);
  const oddCells: [number, string[]][] = [];
  let total = 0;
  for (let j = 0; j < odd.length; j++) {
    const [k, cells] = odd[j]!;
    oddRows[j] = k;
    let text = cells.join(UNIT);
    if (countUnits(text) !== cells.length - 1) {
      oddCells.push([k, cells]);
      text = '';
    }
    texts[j] = text;
    oddEnds[j] = total += text.length;
  }
  return { oddRows, oddText: texts.join(''), oddEnds, oddCells };
}

/** Main to worker: one batch taken off the queue. */
export interface TookMessage {
  type: 'took';
}

export interface WorkerInput {
  file: string;
  encoding: string;
  batchSize: number;
}

/**
 * Whether a row's cells can be read back from its result-CSV text by splitting at commas: papaparse writes
 * a field other than as-is only by quoting it (a neutralised formula is quoted too), so a line without a
 * quote holds each cell verbatim, and none of them holds a comma. Rows wider than the header lose cells.
 */
export function isPlainLine(text: string, cells: readonly string[], width: number): boolean {
  return cells.length === width && !text.includes('"');
}

function countUnits(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 0x1f) count++;
  return count;
}

/** A plain line's cells (see isPlainLine): its text split at the commas. */
export function splitPlainLine(text: string): string[] {
  return text.split(',');
}

/** The rows of a `rows` message, numbered, with the header first when it carries one. */
export function splitRows(message: RowsMessage): RawRow[] {
  const numbers = message.rowNumbers;
  const rows: RawRow[] = new Array<RawRow>(numbers.length);
  let r = 0;
  if (message.header !== null) rows[r++] = { rowNumber: numbers[0]!, cells: message.header };
  const { text, ends, oddRows, oddText, oddEnds, oddCells } = message;
  let j = 0;
  let nextOdd = oddRows.length > 0 ? oddRows[0]! : -1;
  let oddStart = 0;
  let c = 0;
  let start = 0;
  for (let k = 0; k < ends.length; k++, r++) {
    const end = ends[k]!;
    if (k === nextOdd) {
      const oddEnd = oddEnds[j]!;
      const isSentAsIs = c < oddCells.length && oddCells[c]![0] === k;
      rows[r] = { rowNumber: numbers[r]!, cells: isSentAsIs ? oddCells[c++]![1] : oddText.slice(oddStart, oddEnd).split(UNIT) };
      oddStart = oddEnd;
      nextOdd = ++j < oddRows.length ? oddRows[j]! : -1;
    } else {
      rows[r] = { rowNumber: numbers[r]!, cells: splitPlainLine(text.slice(start, end)) };
    }
    start = end;
  }
  return rows;
}

/** One batch of rows as UTF-8 bytes, where each row ends in them, and which rows are odd (not plain). */
export interface CellTextBatch {
  bytes: Buffer;
  ends: Int32Array;
  /** Data-row index (over the whole sheet) of the batch's first row. */
  first: number;
  /** 1 for each row that is not plain, by index within the batch; null when every row is plain. */
  odd: Uint8Array | null;
  /** Every byte is ASCII, so Latin-1 decodes it (faster than UTF-8). */
  isAscii: boolean;
}

/** The batch's text as UTF-8 bytes, where each row ends in them, and which rows are odd. */
export function toCellTextBatch(message: RowsMessage, first: number): CellTextBatch {
  const { text, ends } = message;
  // Encoded here rather than by the worker: measured, the worker is the busier thread while reading.
  const bytes = Buffer.from(text, 'utf8');
  let odd: Uint8Array | null = null;
  if (message.oddRows.length > 0) {
    odd = new Uint8Array(ends.length);
    for (const k of message.oddRows) odd[k] = 1;
  }
  if (bytes.length === text.length) return { bytes, ends, first, odd, isAscii: true };
  const byteEnds = new Int32Array(ends.length);
  let start = 0;
  let total = 0;
  for (let k = 0; k < ends.length; k++) {
    total += Buffer.byteLength(text.slice(start, ends[k]!), 'utf8');
    byteEnds[k] = total;
    start = ends[k]!;
  }
  return { bytes, ends: byteEnds, first, odd, isAscii: false };
}

/**
 * The result-CSV text of every data row, in sheet order, batch by batch as the worker sent it. It is the
 * only copy of a plain row's cells: the row store reads such rows back from here (see orders/row-store.ts).
 */
export class CsvCellText {
  private readonly parts: CellTextBatch[] = [];
  private count = 0;
  /** The batch last looked up: rows are mostly read in order. */
  private at = 0;

  /** Data rows covered. */
  get rows(): number {
    return this.count;
  }

  /** Adds the next batch of a `rows` message (its data rows follow the ones already added). */
  addBatch(message: RowsMessage): void {
    if (message.ends.length === 0) return;
    const batch = toCellTextBatch(message, this.count);
    this.parts.push(batch);
    this.count += batch.ends.length;
  }

  /** Batches in order. */
  batches(): Iterable<CellTextBatch> {
    return this.parts;
  }

  /** Whether the data row at this index is plain: its cells are exactly its text split at commas. */
  isPlain(row: number): boolean {
    if (row < 0 || row >= this.count) return false;
    const part = this.partOf(row);
    return part.odd === null || part.odd[row - part.first] === 0;
  }

  /** Cells of a plain data row (see isPlain), read back from its text; a fresh array each time. */
  plainCellsAt(row: number): string[] {
    const part = this.partOf(row);
    const k = row - part.first;
    const start = k === 0 ? 0 : part.ends[k - 1]!;
    return splitPlainLine(part.bytes.toString(part.isAscii ? 'latin1' : 'utf8', start, part.ends[k]!));
  }

  private partOf(row: number): CellTextBatch {
    const parts = this.parts;
    let p = this.at;
    let part = parts[p]!;
    if (row >= part.first && row < part.first + part.ends.length) return part;
    const next = parts[p + 1];
    if (next !== undefined && row >= next.first && row < next.first + next.ends.length) {
      this.at = p + 1;
      return next;
    }
    let lo = 0;
    let hi = parts.length - 1;
    while (lo < hi) {
      p = (lo + hi + 1) >>> 1;
      if (parts[p]!.first <= row) lo = p;
      else hi = p - 1;
    }
    this.at = lo;
    return parts[lo]!;
  }
}

/** An opened sheet (or its row store) whose result-CSV cell text was prepared while reading. */
export interface HasCellText {
  cellText?: CsvCellText;
}
