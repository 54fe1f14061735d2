/**
 * The rows of one worksheet of a workbook being streamed (read-xlsx.ts): the one read, in batches of numbered
 * non-blank rows checked against the size limits, and a look at another one (does it hold orders?).
 */
import { InputError } from '../errors.js';
import { FIELD_BY_HEADER, normalizeHeader } from './columns.js';
import { toColumnLetter } from './column-letters.js';
import { isOrderHeader } from './headers.js';
import { checkRowCells, type SheetLimits } from './limits.js';
import { isBlankRow, MAX_BATCH_CHARS, toHeaderText, trimTrailingBlanks } from './row-source.js';
import type { RawRow } from './types.js';
import { readRowCells, type StreamRow, type UncomputedFormula } from './xlsx-cells.js';
import { discardSource, type ChunkSource, type FailureSignal } from './xlsx-stream-fixes.js';

export type SheetEvents = AsyncIterator<{ eventType: string; value: unknown }[]>;

/** A worksheet as exceljs's WorkbookReader hands it out. */
export interface StreamedWorksheet {
  parse(): SheetEvents;
}

export interface WorksheetReading {
  file: string;
  /** The worksheet's name, for messages. */
  sheetName: string | undefined;
  signal: FailureSignal;
  date1904: boolean;
  batchSize: number;
  limits: SheetLimits;
}

/** The worksheet's non-blank rows, numbered, in batches (the first holds the header as well). */
export async function* readWorksheetRows(worksheet: StreamedWorksheet, reading: WorksheetReading): AsyncGenerator<RawRow[], void, undefined> {
  const { file, sheetName, signal, date1904, limits } = reading;
  let batch: RawRow[] = [];
  let batchChars = 0;
  // The header rides in the first batch, so that one holds a row more: data batches stay full.
  let limit = reading.batchSize + 1;
  let headers: string[] | null = null;
  const uncomputed: UncomputedFormula[] = [];
  for await (const events of signal.guard(worksheet.parse())) {
    for (let i = 0; i < events.length; i++) {
      const event = events[i]!;
      if (event.eventType !== 'row') continue;
      const row = event.value as StreamRow;
      const cells = readRowCells(row, date1904, uncomputed);
      if (uncomputed.length > 0) {
        if (headers) checkUncomputed(file, sheetName, headers, row.number, uncomputed);
        uncomputed.length = 0;
      }
      if (isBlankRow(cells)) continue;
      batchChars += checkRowCells(file, row.number, cells, limits, headers === null);
      headers ??= cells.map(toHeaderText);
      batch.push({ rowNumber: row.number, cells });
      if (batch.length >= limit || batchChars >= MAX_BATCH_CHARS) {
        yield batch;
        batch = [];
        batchChars = 0;
        limit = reading.batchSize;
      }
    }
  }
  if (batch.length > 0) yield batch;
}

/**
 * Whether a worksheet's first non-blank row names the order columns and a non-blank row follows. Only those
 * two rows are parsed; the rest of the sheet is skipped unparsed (a sheet parked in a temp file is closed, one
 * read from the zip is drained: left half-read, exceljs's stream reader would buffer the rest of it whole).
 */
export async function holdsOrders(worksheet: StreamedWorksheet, source: ChunkSource, signal: FailureSignal, date1904: boolean): Promise<boolean> {
  let isHeader = false;
  let answer: boolean | null = null;
  look: for await (const events of signal.guard(worksheet.parse())) {
    for (let i = 0; i < events.length; i++) {
      const event = events[i]!;
      if (event.eventType !== 'row') continue;
      const cells = readRowCells(event.value as StreamRow, date1904);
      if (isBlankRow(cells)) continue;
      if (isHeader) {
        answer = true;
        break look;
      }
      if (!isOrderHeader(trimTrailingBlanks(cells.map(toHeaderText)))) {
        answer = false;
        break look;
      }
      isHeader = true;
    }
  }
  if (typeof source.destroy === 'function') discardSource(source);
  else for await (const chunk of signal.guard(source)) void chunk;
  return answer === true;
}

/**
 * A formula without a saved result in an order column stops the read: its blank is not the user's,
 * and passing it on would turn `=O3*P3` into "subTotal was blank and was computed". A file has no
 * saved results when the program that wrote it does not calculate (scripts, some exports); Excel and
 * LibreOffice store them on every save, so the fix is for the whole file. Other columns are ignored
 * by the checker, so their formulas do not matter.
 */
function checkUncomputed(file: string, sheetName: string | undefined, headers: readonly string[], rowNumber: number, uncomputed: readonly UncomputedFormula[]): void {
  const hit = uncomputed.find((u) => u.col < headers.length && FIELD_BY_HEADER.has(normalizeHeader(headers[u.col]!)));
  if (!hit) return;
  const where = sheetName === undefined ? file : `${file} (worksheet "${sheetName}")`;
  const formula = hit.formula.length > 60 ? `${hit.formula.slice(0, 57)}...` : hit.formula;
  const what = formula === '' ? 'a formula' : `the formula =${formula}`;
  throw new InputError(
    file,
    'unreadable_file',
    `${where}, cell ${toColumnLetter(hit.col)}${rowNumber} (${headers[hit.col]}): ${what} has no saved value, because the program that wrote the file does not calculate formulas. ` +
      'Open the file in Excel or LibreOffice and save it (that stores every formula\'s value), or type the value instead of the formula.',
  );
}
