/**
 * What the CSV parse worker sends the main thread, and the result-file text it prepares.
 *
 * The worker writes each data row's input cells as they will appear in the result CSV (quoted and neutralised
 * exactly as the CSV writer does). That text is both what crosses the thread boundary, one string per batch
 * (structured-cloning arrays of arrays of strings costs more than parsing did), and, kept as UTF-8 bytes,
 * what the result file is written from: it then only adds each row's status and issues instead of decoding
 * every stored row again. The rare row that cannot be read back from its text comes as an array as well.
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
  /** Cells of the data rows that cannot be read back from their text, by index within the batch. */
  odd: [number, string[]][];
  bytesRead: number;
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

/** The rows of a `rows` message, numbered, with the header first when it carries one. */
export function splitRows(message: RowsMessage): RawRow[] {
  const numbers = message.rowNumbers;
  const rows: RawRow[] = new Array<RawRow>(numbers.length);
  let r = 0;
  if (message.header !== null) rows[r++] = { rowNumber: numbers[0]!, cells: message.header };
  const { text, ends, odd } = message;
  let nextOdd = odd.length > 0 ? odd[0]![0] : -1;
  let o = 0;
  let start = 0;
  for (let k = 0; k < ends.length; k++, r++) {
    const end = ends[k]!;
    if (k === nextOdd) {
      rows[r] = { rowNumber: numbers[r]!, cells: odd[o]![1] };
      nextOdd = ++o < odd.length ? odd[o]![0] : -1;
    } else {
      rows[r] = { rowNumber: numbers[r]!, cells: text.slice(start, end).split(',') };
    }
    start = end;
  }
  return rows;
}

/** The batch's text as UTF-8 bytes, and where each row ends in them. */
export function toUtf8(text: string, ends: Int32Array): { bytes: Uint8Array; ends: Int32Array } {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length === text.length) return { bytes, ends };
  const byteEnds = new Int32Array(ends.length);
  let start = 0;
  let total = 0;
  for (let k = 0; k < ends.length; k++) {
    total += Buffer.byteLength(text.slice(start, ends[k]!), 'utf8');
    byteEnds[k] = total;
    start = ends[k]!;
  }
  return { bytes, ends: byteEnds };
}

/** The result-CSV text of every data row, in sheet order, batch by batch as the worker sent it. */
export class CsvCellText {
  private readonly parts: { bytes: Uint8Array; ends: Int32Array }[] = [];
  private count = 0;

  /** Data rows covered. */
  get rows(): number {
    return this.count;
  }

  add(bytes: Uint8Array, ends: Int32Array): void {
    if (ends.length === 0) return;
    this.parts.push({ bytes, ends });
    this.count += ends.length;
  }

  /** Batches in order: the bytes of their rows back to back, and where each row ends. */
  batches(): Iterable<{ bytes: Uint8Array; ends: Int32Array }> {
    return this.parts;
  }
}

/** An opened sheet (or its row store) whose result-CSV cell text was prepared while reading. */
export interface HasCellText {
  cellText?: CsvCellText;
}
