/**
 * openSheet: one entry point for every order sheet. It sniffs what the file really is, finds the
 * header row (the first non-blank row), makes sure at least one data row follows, and hands the
 * rest over as batches of numbered rows padded to the header's width.
 *
 * Every failure, whether found on opening or while streaming, is an InputError with a one-line
 * message naming the file; a library's own error is kept only as `cause`.
 */
import { extname } from 'node:path';
import { InputError } from '../errors.js';
import type { HasCellText } from './csv-cell-text.js';
import { openCsvSource } from './read-csv.js';
import { openCsvWorkerSource } from './read-csv-worker.js';
import { toHeaderText, trimTrailingBlanks, type RowSource } from './row-source.js';
import { namesOrderColumn, SHEET_EXTENSIONS } from './sheet-files.js';
import { sniffFile } from './sniff.js';
import type { CellValue, OpenedSheet, RawRow, ReadOptions } from './types.js';

export interface OpenSheetOptions extends ReadOptions {
  /** More data rows than this stop the read (default 2,000,000): split the file. */
  maxRows?: number;
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

export const DEFAULT_MAX_ROWS = 2_000_000;
export const DEFAULT_BATCH_SIZE = 250;
export const DEFAULT_WORKER_MIN_BYTES = 5_000_000;

/** An opened sheet; a CSV parsed by the worker also brings its rows' result-CSV text (see csv-cell-text.ts). */
export async function openSheet(file: string, options: OpenSheetOptions = {}): Promise<OpenedSheet & HasCellText> {
  const maxRows = options.maxRows ?? DEFAULT_MAX_ROWS;
  const batchSize = Math.max(1, options.batchSize ?? DEFAULT_BATCH_SIZE);
  const sniffed = await sniffFile(file);
  const isLarge = sniffed.sizeBytes >= (options.workerMinBytes ?? DEFAULT_WORKER_MIN_BYTES);
  // exceljs is loaded only for a workbook: a CSV run spares its ~0.4 s of module loading.
  const source: RowSource & HasCellText =
    sniffed.kind === 'xlsx'
      ? (await import('./read-xlsx.js')).openXlsxSource(file, { batchSize, sheet: options.sheet, resultSheet: options.resultSheet })
      : isLarge
        ? openCsvWorkerSource(file, sniffed.encoding, { batchSize, ...(options.workerUrl && { workerUrl: options.workerUrl }) })
        : openCsvSource(file, sniffed.encoding, { batchSize });

  let first: RawRow[];
  let headers: string[];
  try {
    first = await readFirstRows(source);
    headers = first.length === 0 ? [] : trimTrailingBlanks(first[0]!.cells.map(toHeaderText));
    // A note or a log named on the command line (readme.txt) would otherwise be "a sheet without orders".
    if (sniffed.kind === 'csv' && first.length > 0 && !SHEET_EXTENSIONS.has(extname(file).toLowerCase()) && !namesOrderColumn(headers)) {
      throw new InputError(file, 'unsupported_format', `${file} is not an order sheet: it reads as text, but its first line names none of the order columns (customerOrderId, productId, quantity, ...). Give the path of a .csv or .xlsx order sheet, or put the template's header row on its first line.`);
    }
    if (first.length < 2) throw noOrdersError(file, source, first.length);
  } catch (error) {
    source.close();
    throw error;
  }
  const headerRow = first[0]!.rowNumber;

  return {
    file,
    format: sniffed.kind,
    sheetName: source.sheetName(),
    notices: source.notices?.() ?? [],
    headers,
    headerRow,
    sizeBytes: sniffed.sizeBytes,
    rows: createRowIterator(file, source, first.slice(1), headers.length, maxRows),
    bytesRead: () => source.bytesRead(),
    sha256: () => {
      const digest = source.sha256();
      if (digest === null) throw new Error('sha256() is known only once every row has been read');
      return digest;
    },
    ...(source.cellText && { cellText: source.cellText }),
  };
}

/** The header row and at least one data row, or fewer when the sheet has fewer. */
async function readFirstRows(source: RowSource): Promise<RawRow[]> {
  const rows: RawRow[] = [];
  while (rows.length < 2) {
    const next = await source.batches.next();
    if (next.done) break;
    for (const row of next.value) rows.push(row);
  }
  return rows;
}

function noOrdersError(file: string, source: RowSource, rows: number): InputError {
  const where = source.sheetName() === undefined ? file : `${file} (worksheet "${source.sheetName()}")`;
  if (rows === 0) return new InputError(file, 'empty_file', `${where} has no rows: put the header row and at least one order in it`);
  return new InputError(file, 'empty_file', `${where} has a header row but no orders below it: add at least one order row`);
}

/**
 * Pads short rows to the header's width and counts rows against maxRows. A hand-written
 * iterator rather than a generator: return() must release the file even before the first
 * next(), which a generator that has not started cannot do.
 */
function createRowIterator(file: string, source: RowSource, pending: RawRow[], width: number, maxRows: number): AsyncIterableIterator<RawRow[]> {
  let dataRows = 0;
  let isFinished = false;
  let leftover: RawRow[] | null = pending.length > 0 ? pending : null;

  const finish = (): IteratorReturnResult<undefined> => {
    if (!isFinished) {
      isFinished = true;
      source.close();
    }
    return { done: true, value: undefined };
  };

  const prepare = (batch: RawRow[]): RawRow[] => {
    dataRows += batch.length;
    if (dataRows > maxRows) {
      throw new InputError(file, 'unreadable_file', `${file} has more than ${maxRows.toLocaleString('en-US')} data rows: split it into files of at most ${maxRows.toLocaleString('en-US')} rows`);
    }
    for (let i = 0; i < batch.length; i++) {
      const cells = batch[i]!.cells;
      if (cells.length < width) padCells(cells, width);
    }
    return batch;
  };

  const iterator: AsyncIterableIterator<RawRow[]> = {
    async next(): Promise<IteratorResult<RawRow[], undefined>> {
      if (isFinished) return { done: true, value: undefined };
      try {
        if (leftover) {
          const batch = leftover;
          leftover = null;
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

function padCells(cells: CellValue[], width: number): void {
  for (let i = cells.length; i < width; i++) cells.push(null);
}
