/**
 * openSheet: one entry point for every order sheet. It sniffs what the file really is, finds the
 * header row (the first non-blank row), makes sure at least one data row follows, and hands the
 * rest over as batches of numbered rows padded to the header's width. What it finds wrong with the
 * file as a whole (a title above the header row, cells past the last column, and what the readers
 * find) it gathers as issues().
 *
 * Every failure, whether found on opening or while streaming, is an InputError with a one-line
 * message naming the file; a library's own error is kept only as `cause`.
 */
import { extname } from 'node:path';
import { InputError } from '../errors.js';
import { toColumnLetter } from './column-letters.js';
import { isOrderHeader } from './headers.js';
import { resolveLimits, type SheetLimits } from './limits.js';
import { openCsvSource } from './read-csv.js';
import { openCsvWorkerSource } from './read-csv-worker.js';
import { isBlankCell, listQuoted, toHeaderText, trimTrailingBlanks, type RowSource, type SourceOptions } from './row-source.js';
import { detectFileDelimiter, namesOrderColumn, SHEET_EXTENSIONS } from './sheet-files.js';
import { sniffFile, type Sniffed, type TextEncodingName } from './sniff.js';
import type { CellValue, OpenedSheet, RawRow, ReaderIssue, ReadOptions, SheetFormat } from './types.js';

export interface OpenSheetOptions extends ReadOptions {
  /** The size limits of a cell, a row, the header row and a shared-strings table (limits.ts); lowered by tests. */
  limits?: Partial<SheetLimits>;
  /** Rows per batch handed to the checker (default 250: small batches die young, see read-csv.ts). */
  batchSize?: number;
  /**
   * CSV files of at least this many bytes are parsed on a worker thread (default 5 MB: below that, starting
   * the thread costs more than it saves). Infinity keeps every file on the main thread.
   */
  workerMinBytes?: number;
  /** The compiled parse worker, for callers not running from the build (tests). */
  workerUrl?: URL;
}

export const DEFAULT_BATCH_SIZE = 250;
export const DEFAULT_WORKER_MIN_BYTES = 5_000_000;

/** An opened sheet: its header, and its rows as they stream (no limit on their number; see limits.ts for their size). */
export async function openSheet(file: string, options: OpenSheetOptions = {}): Promise<OpenedSheet> {
  const batchSize = Math.max(1, options.batchSize ?? DEFAULT_BATCH_SIZE);
  const limits = resolveLimits(options.limits);
  const sniffed = await sniffFile(file);
  const isLarge = sniffed.sizeBytes >= (options.workerMinBytes ?? DEFAULT_WORKER_MIN_BYTES);
  const reader = sniffed.kind === 'xlsx' ? READERS.xlsx : isLarge ? READERS.csvOnWorker : READERS.csv;
  const source = await reader(file, sniffed, { batchSize, limits, sheet: options.sheet, resultSheet: options.resultSheet, workerUrl: options.workerUrl });

  const first: RawRow[] = [];
  let headers: string[];
  const openIssues: ReaderIssue[] = [];
  let isOrderHeaderRow = false;
  try {
    await readFirstRows(source, first, 2);
    headers = first.length === 0 ? [] : trimTrailingBlanks(first[0]!.cells.map(toHeaderText));
    // A note or a log named on the command line (readme.txt) would otherwise be "a sheet without orders".
    if (sniffed.kind === 'csv' && first.length > 0 && !SHEET_EXTENSIONS.has(extname(file).toLowerCase()) && !namesOrderColumn(headers)) {
      throw new InputError(file, 'unsupported_format', `${file} is not an order sheet: it reads as text, but its first line names none of the order columns (customerOrderId, productId, quantity, ...). Use a .csv or .xlsx order sheet, or put the template's header row on its first line.`);
    }
    if (first.length < 2) throw noOrdersError(file, source, first.length);
    isOrderHeaderRow = isOrderHeader(headers);
    if (!isOrderHeaderRow) {
      await readFirstRows(source, first, HEADER_SEARCH_ROWS + 1);
      const hint = findHeaderBelow(first);
      if (hint) openIssues.push(hint);
    }
  } catch (error) {
    source.close();
    throw error;
  }
  const headerRow = first[0]!.rowNumber;
  const csvDelimiter = sniffed.kind === 'csv' ? delimiterOf(file, sniffed.encoding) : undefined;
  // Below a header row that is not the order columns' (a title, another table) every row is "too long": noise.
  const extraCells = isOrderHeaderRow ? new ExtraCells(sniffed.kind, headers.length) : null;

  return {
    file,
    format: sniffed.kind,
    sheetName: source.sheetName(),
    notices: source.notices?.() ?? [],
    headers,
    headerRow,
    sizeBytes: sniffed.sizeBytes,
    ...(csvDelimiter !== undefined && { csvDelimiter }),
    rows: createRowIterator(source, first.slice(1), batchSize, headers.length, extraCells),
    issues: () => [...openIssues, ...(source.issues?.() ?? []), ...(extraCells?.issues() ?? [])],
    bytesRead: () => source.bytesRead(),
    sha256: () => {
      const digest = source.sha256();
      if (digest === null) throw new Error('sha256() is known only once every row has been read');
      return digest;
    },
  };
}

/** What every reader is given: the batch size and limits, and what only one of them reads. */
type ReaderSettings = SourceOptions & ReadOptions & { workerUrl?: URL };

/**
 * The reader that turns each kind of file into batches of rows: exceljs's streaming reader for a workbook,
 * papaparse on a worker thread for a large CSV (the checks keep the main thread) and here for a small one.
 */
const READERS: Record<'xlsx' | 'csvOnWorker' | 'csv', (file: string, sniffed: Sniffed, settings: ReaderSettings) => Promise<RowSource>> = {
  // exceljs is loaded only for a workbook: a CSV run spares its ~0.4 s of module loading.
  xlsx: async (file, _sniffed, { batchSize, limits, sheet, resultSheet }) => (await import('./read-xlsx.js')).openXlsxSource(file, { batchSize, limits, sheet, resultSheet }),
  csvOnWorker: async (file, sniffed, { batchSize, limits, workerUrl }) => openCsvWorkerSource(file, encodingOf(sniffed), { batchSize, limits, ...(workerUrl && { workerUrl }) }),
  csv: async (file, sniffed, { batchSize, limits }) => openCsvSource(file, encodingOf(sniffed), { batchSize, limits }),
};

function encodingOf(sniffed: Sniffed): TextEncodingName {
  return sniffed.kind === 'csv' ? sniffed.encoding : 'utf-8';
}

/** The CSV's delimiter, or undefined if the file cannot be read again (its rows then fail with the reason). */
function delimiterOf(file: string, encoding: TextEncodingName): string | undefined {
  try {
    return detectFileDelimiter(file, encoding);
  } catch {
    return undefined;
  }
}

/** Adds whole batches to `rows` until it holds `count` rows (the header row first) or the sheet ends. */
async function readFirstRows(source: RowSource, rows: RawRow[], count: number): Promise<void> {
  while (rows.length < count) {
    const next = await source.batches.next();
    if (next.done) break;
    for (const row of next.value) rows.push(row);
  }
}

/** Rows below a first row that is not the header where the header is looked for (a title, a date, a note). */
const HEADER_SEARCH_ROWS = 5;

/**
 * The rows above the header row are read as the header, so every column is "missing": when one of the next few
 * rows names the order columns, say so (the header row is not moved: which row it is stays the user's call).
 */
function findHeaderBelow(first: readonly RawRow[]): ReaderIssue | null {
  for (let i = 1; i < first.length && i <= HEADER_SEARCH_ROWS; i++) {
    const row = first[i]!;
    if (!isOrderHeader(trimTrailingBlanks(row.cells.map(toHeaderText)))) continue;
    const above = first[0]!.rowNumber === row.rowNumber - 1 ? `row ${first[0]!.rowNumber}` : `rows ${first[0]!.rowNumber}-${row.rowNumber - 1}`;
    return {
      row: row.rowNumber,
      column: null,
      code: 'missing_column',
      severity: 'error',
      message: `The column names are in row ${row.rowNumber}, but row ${first[0]!.rowNumber} above them is read as the header row, so the columns seem missing: delete ${above} above the column names (a title or a note), so that they are the first row, and try again`,
    };
  }
  return null;
}

function noOrdersError(file: string, source: RowSource, rows: number): InputError {
  const where = source.sheetName() === undefined ? file : `${file} (worksheet "${source.sheetName()}")`;
  const others = describeOtherSheets(source);
  if (rows === 0) return new InputError(file, 'empty_file', `${where} has no rows: put the header row and at least one order in it${others}`);
  return new InputError(file, 'empty_file', `${where} has a header row but no orders below it: add at least one order row${others}`);
}

/** Where else in a workbook the orders may be: '' for a CSV or a workbook of one visible worksheet. */
function describeOtherSheets(source: RowSource): string {
  const others = source.otherSheets?.() ?? [];
  if (others.length === 0) return '';
  const withOrders = others.filter((s) => s.hasOrders === true);
  const pick = withOrders[0] ?? others[0]!;
  const how = `name it with --sheet "${pick.name}" (in the web app, the Worksheet field)`;
  if (withOrders.length > 0) {
    return `. Worksheet${withOrders.length === 1 ? '' : 's'} ${listQuoted(withOrders.map((s) => s.name))} of this workbook ${withOrders.length === 1 ? 'has' : 'have'} orders: to read ${withOrders.length === 1 ? 'it' : 'one'}, ${how}`;
  }
  return `. The workbook's other worksheet${others.length === 1 ? ' is' : 's are'} ${listQuoted(others.map((s) => s.name))}: if the orders are there, ${how}`;
}

/** Rows named one by one in the warning about cells past the last column; the rest are counted. */
const MAX_EXTRA_CELL_ROWS = 10;
/** Columns named in the warning about one row's cells past the last column; the rest are counted. */
const MAX_NAMED_COLUMNS = 10;

/**
 * Non-blank cells right of the last named column, which nothing reads: in a CSV most often an unquoted comma
 * that shifted the cells after it. Checked only for rows longer than the header, so a sheet without such rows
 * costs one comparison per row.
 */
class ExtraCells {
  private readonly named: ReaderIssue[] = [];
  private rows = 0;

  constructor(
    private readonly format: SheetFormat,
    private readonly width: number,
  ) {}

  check(row: RawRow): void {
    const cells = row.cells;
    // A row of thousands of cells past the header is named by its first few columns and its last.
    const letters: string[] = [];
    let count = 0;
    let last = -1;
    for (let i = this.width; i < cells.length; i++) {
      if (isBlankCell(cells[i])) continue;
      if (++count <= MAX_NAMED_COLUMNS) letters.push(toColumnLetter(i));
      last = i;
    }
    if (count === 0) return;
    this.rows++;
    if (this.named.length >= MAX_EXTRA_CELL_ROWS) return;
    const isOne = count === 1;
    const columns = count === letters.length ? letters.join(', ') : `${letters.join(', ')} and ${(count - letters.length).toLocaleString('en-US')} more, up to ${toColumnLetter(last)}`;
    const what = `Row ${row.rowNumber} has ${isOne ? 'a cell' : `${count.toLocaleString('en-US')} cells`} past the last column (${columns}), which ${isOne ? 'is' : 'are'} ignored`;
    const why = this.format === 'csv'
      ? ': an unquoted comma inside a cell? It shifts the cells after it one column to the right. Put quotes around a cell that holds a comma ("1 Main St, Apt 2"), or give those columns a header if they hold data'
      : `: move ${isOne ? 'it' : 'them'} into the column${isOne ? '' : 's'} ${isOne ? 'it belongs' : 'they belong'} to, or give ${isOne ? 'its column a header' : 'their columns headers'} if ${isOne ? 'it holds' : 'they hold'} order data`;
    this.named.push({ row: row.rowNumber, column: null, code: 'unknown_column', severity: 'warning', message: what + why });
  }

  issues(): ReaderIssue[] {
    const more = this.rows - this.named.length;
    if (more <= 0) return this.named;
    return [
      ...this.named,
      { row: null, column: null, code: 'unknown_column', severity: 'warning', message: `${more.toLocaleString('en-US')} more row${more === 1 ? ' has' : 's have'} cells past the last column, ignored as well` },
    ];
  }
}

/**
 * Pads short rows to the header's width. A hand-written iterator rather than a generator: return() must
 * release the file even before the first next(), which a generator that has not started cannot do.
 */
function createRowIterator(source: RowSource, pending: RawRow[], batchSize: number, width: number, extraCells: ExtraCells | null): AsyncIterableIterator<RawRow[]> {
  let isFinished = false;
  // The data rows read while opening, in batches of the usual size (more than one when the header was looked for below).
  const leftover: RawRow[][] = [];
  for (let i = 0; i < pending.length; i += batchSize) leftover.push(pending.length <= batchSize ? pending : pending.slice(i, i + batchSize));

  const finish = (): IteratorReturnResult<undefined> => {
    if (!isFinished) {
      isFinished = true;
      source.close();
    }
    return { done: true, value: undefined };
  };

  const prepare = (batch: RawRow[]): RawRow[] => {
    for (let i = 0; i < batch.length; i++) {
      const row = batch[i]!;
      const cells = row.cells;
      if (cells.length < width) {
        if (width <= MAX_PADDED_WIDTH) {
          padCells(cells, width);
          row.line = undefined;
        }
      } else if (cells.length > width) extraCells?.check(row);
    }
    return batch;
  };

  const iterator: AsyncIterableIterator<RawRow[]> = {
    async next(): Promise<IteratorResult<RawRow[], undefined>> {
      if (isFinished) return { done: true, value: undefined };
      try {
        if (leftover.length > 0) {
          const batch = leftover.shift()!;
          return { done: false, value: prepare(batch) };
        }
        const next = await source.batches.next();
        if (next.done) return finish();
        return { done: false, value: prepare(next.value) };
      } catch (error) {
        finish();
        throw error;
      }
    },
    async return(): Promise<IteratorReturnResult<undefined>> {
      // Close first: a source waiting for data would otherwise hold return() up forever.
      const result = finish();
      source.batches.return(undefined).catch(() => {});
      return result;
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}

/**
 * Short rows are padded to the header's width up to this many columns. A wider sheet (thousands of columns,
 * nearly all of them unknown) leaves them short: a missing cell reads as empty everywhere, and padding a
 * thousand-row batch to a million columns would cost gigabytes.
 */
const MAX_PADDED_WIDTH = 1024;

function padCells(cells: CellValue[], width: number): void {
  for (let i = cells.length; i < width; i++) cells.push(null);
}
