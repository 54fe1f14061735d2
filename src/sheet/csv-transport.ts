/**
 * What the CSV parse worker (csv-parse-worker.ts) and the main thread's reader (read-csv-worker.ts) say to
 * each other. A batch of rows crosses the thread boundary as one string, each row's cells joined by a unit
 * separator and the rows back to back, with where each row ends: structured-cloning arrays of arrays of
 * strings costs more than parsing did. A row with a cell holding the separator comes as its cells.
 */
import type { InputError } from '../errors.js';
import type { SheetLimits } from './limits.js';
import type { RawRow } from './types.js';

/** Worker to main. */
export type WorkerMessage = RowsMessage | { type: 'end'; sha256: string; bytesRead: number } | { type: 'fail'; code: InputError['code'] | null; message: string };

export interface RowsMessage {
  type: 'rows';
  rowNumbers: Int32Array;
  /** Every row's cells joined by the unit separator, rows back to back (empty for a row in `asIs`). */
  text: string;
  /** Where each row ends in `text`, in characters. */
  ends: Int32Array;
  /** Rows whose cells hold the unit separator, by index within the batch (ascending), sent as they are. */
  asIs: [number, string[]][];
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
  limits: SheetLimits;
}

/** ASCII "unit separator": practically never inside a spreadsheet cell (a cell holding it is sent as is). */
const UNIT = '\u001f';

/**
 * A batch of numbered rows as a `rows` message (see RowsMessage). `mayHoldUnit` false says no cell can hold
 * the separator (the file's text so far has none), which spares looking for it cell by cell.
 */
export function packRows(rows: readonly string[][], rowNumbers: readonly number[], bytesRead: number, mayHoldUnit = true): RowsMessage {
  const ends = new Int32Array(rows.length);
  const texts = new Array<string>(rows.length);
  const asIs: [number, string[]][] = [];
  let total = 0;
  for (let k = 0; k < rows.length; k++) {
    const cells = rows[k]!;
    let text = cells.join(UNIT);
    if (cells.length === 0 || (mayHoldUnit && countUnits(text) !== cells.length - 1)) {
      asIs.push([k, cells]);
      text = '';
    }
    texts[k] = text;
    ends[k] = total += text.length;
  }
  return { type: 'rows', rowNumbers: Int32Array.from(rowNumbers), text: texts.join(''), ends, asIs, bytesRead };
}

/** The buffers of a message that can be transferred rather than copied. */
export function transferablesOf(message: RowsMessage): ArrayBuffer[] {
  return [message.rowNumbers.buffer as ArrayBuffer, message.ends.buffer as ArrayBuffer];
}

function countUnits(text: string): number {
  let count = 0;
  for (let i = text.indexOf(UNIT); i !== -1; i = text.indexOf(UNIT, i + 1)) count++;
  return count;
}

/** The rows of a `rows` message, numbered. */
export function splitRows(message: RowsMessage): RawRow[] {
  const { rowNumbers, text, ends, asIs } = message;
  const rows: RawRow[] = new Array<RawRow>(ends.length);
  let a = 0;
  let nextAsIs = asIs.length > 0 ? asIs[0]![0] : -1;
  let start = 0;
  for (let k = 0; k < ends.length; k++) {
    const end = ends[k]!;
    if (k === nextAsIs) {
      rows[k] = { rowNumber: rowNumbers[k]!, cells: asIs[a]![1] };
      nextAsIs = ++a < asIs.length ? asIs[a]![0] : -1;
    } else {
      rows[k] = { rowNumber: rowNumbers[k]!, cells: text.slice(start, end).split(UNIT) };
    }
    start = end;
  }
  return rows;
}
