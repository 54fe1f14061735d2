/**
 * A table sheet for exceljs's streaming writer: bold frozen header with a filter, typed columns
 * (dates as real dates, counts as numbers), rows committed as they are added so 100,000 of them
 * never sit in memory. Styles are shared constants: exceljs caches a style id per style object.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type ExcelJS from 'exceljs';
import { printSetup, wrappedRowHeight } from '../output-files/xlsx-styles.js';

export type ColumnKind = 'text' | 'int' | 'datetime' | 'status';

export interface TableColumn {
  header: string;
  width: number;
  kind?: ColumnKind;
  /** Long text (a detail, a list of tracking numbers): wrapped within the column, the row as high as it needs. */
  wrap?: boolean;
}

export type TableValue = string | number | Date | null | undefined;

const solid = (argb: string): ExcelJS.Fill => ({ type: 'pattern', pattern: 'solid', fgColor: { argb } });
const FONT: Partial<ExcelJS.Font> = { name: 'Calibri', size: 11, family: 2 };

export const HEADER_STYLE: Partial<ExcelJS.Style> = {
  font: { ...FONT, bold: true },
  fill: solid('FFD9E1F2'),
  border: { bottom: { style: 'thin', color: { argb: 'FF8EA9DB' } } },
  alignment: { vertical: 'top' },
};

const TOP: Partial<ExcelJS.Alignment> = { vertical: 'top' };
const WRAPPED: Partial<ExcelJS.Style> = { alignment: { vertical: 'top', wrapText: true } };
const BASE: Record<ColumnKind, Partial<ExcelJS.Style>> = {
  text: { alignment: TOP },
  int: { alignment: TOP, numFmt: '0' },
  // Times are UTC (the Summary sheet says so): Excel cells have no zone.
  datetime: { alignment: TOP, numFmt: 'yyyy-mm-dd hh:mm' },
  status: { alignment: TOP },
};

/** Excel's Good / Neutral / Bad colours, which readers already know. */
const GOOD: Partial<ExcelJS.Style> = { alignment: TOP, fill: solid('FFC6EFCE'), font: { ...FONT, color: { argb: 'FF006100' } } };
const NEUTRAL: Partial<ExcelJS.Style> = { alignment: TOP, fill: solid('FFFFEB9C'), font: { ...FONT, color: { argb: 'FF9C5700' } } };
const BAD: Partial<ExcelJS.Style> = { alignment: TOP, fill: solid('FFFFC7CE'), font: { ...FONT, color: { argb: 'FF9C0006' } } };
const INFO: Partial<ExcelJS.Style> = { alignment: TOP, fill: solid('FFDDEBF7'), font: { ...FONT, color: { argb: 'FF1F4E78' } } };

/** The colour of a status or exception cell. */
export const STATUS_STYLES: Readonly<Record<string, Partial<ExcelJS.Style>>> = {
  delivered: GOOD,
  shipped: GOOD,
  partially_shipped: INFO,
  waiting: INFO,
  canceled: NEUTRAL,
  exception: BAD,
  not_found: BAD,
  yes: GOOD,
  no: NEUTRAL,
  replaced_package: NEUTRAL,
  canceled_line: NEUTRAL,
};

export interface TableSheet {
  add(values: readonly TableValue[]): void;
  /**
   * A promise to await before adding more rows when the sheet's rows wait to be zipped in quantity;
   * undefined when they do not (checked every so many rows, cheaply).
   */
  backlog(): Promise<void> | undefined;
  /** Sets the filter over the written rows and commits the sheet. */
  finish(): void;
  readonly rows: number;
}

export function addTableSheet(workbook: ExcelJS.stream.xlsx.WorkbookWriter, name: string, columns: readonly TableColumn[]): TableSheet {
  // Printed landscape, one page wide, as many pages down as the rows take, the header on each.
  const sheet = workbook.addWorksheet(name, { views: [{ state: 'frozen', ySplit: 1, activeCell: 'A2' }], pageSetup: printSetup(1) });
  sheet.columns = columns.map((c) => ({ width: c.width }));
  const header = sheet.addRow(columns.map((c) => c.header));
  header.eachCell((cell) => {
    cell.style = HEADER_STYLE;
  });
  header.commit();
  const kinds = columns.map((c) => c.kind ?? 'text');
  let rows = 0;
  let checkedAt = 0;
  return {
    get rows() {
      return rows;
    },
    backlog() {
      if (rows - checkedAt < BACKLOG_CHECK_ROWS) return undefined;
      checkedAt = rows;
      return pendingBytes(workbook, sheet) > BACKLOG_MAX_BYTES ? drained(workbook, sheet) : undefined;
    },
    add(values) {
      const row = sheet.addRow(values.map((v) => (v === undefined ? null : v)));
      // Every cell gets one of the shared style objects: exceljs caches a style id per object, while
      // a cell left alone gets a fresh merged style object that costs a full style lookup.
      let height = 0;
      for (let i = 0; i < columns.length; i++) {
        const kind = kinds[i]!;
        const value = values[i];
        if (columns[i]!.wrap && typeof value === 'string') {
          row.getCell(i + 1).style = WRAPPED;
          height = Math.max(height, wrappedRowHeight(value, columns[i]!.width) ?? 0);
          continue;
        }
        row.getCell(i + 1).style = kind === 'status' ? (typeof value === 'string' ? (STATUS_STYLES[value] ?? BASE.text) : BASE.text) : BASE[kind];
      }
      if (height > 0) row.height = height;
      row.commit();
      rows++;
    },
    finish() {
      sheet.autoFilter = { from: { row: 1, column: 1 }, to: { row: Math.max(2, rows + 1), column: columns.length } };
      sheet.commit();
    },
  };
}

/** Rows added between two looks at what waits to be zipped. */
const BACKLOG_CHECK_ROWS = 512;
/** What a sheet may have waiting to be zipped before rows wait for it (a few pages of the zip's work). */
const BACKLOG_MAX_BYTES = 4 * 1024 * 1024;

/** A stream's buffered bytes, as node:stream and readable-stream (archiver's, without the writableLength getter) both keep them. */
interface StreamState {
  _writableState?: { length?: number };
  _readableState?: { length?: number };
}

/** What exceljs's workbook writer keeps between a sheet's rows and the output: the sheet's buffers, their PassThrough, the zip, the output. */
interface WriterInternals {
  zip?: StreamState;
  stream?: StreamState;
}
interface SheetStream {
  buffers?: { length: number }[];
  pipes?: StreamState[];
}

const buffered = (stream: StreamState | undefined): number => (stream?._writableState?.length ?? 0) + (stream?._readableState?.length ?? 0);

/**
 * Bytes written by a sheet's rows that have not reached the output yet. exceljs's streaming writer takes
 * every row at once whatever the zip's and the output's pace (no backpressure: exceljs/exceljs#734), so a
 * sheet of a million rows written in one go would sit in memory whole; its buffers are read to know when
 * to wait. 0 when they cannot be read (another exceljs): rows are then only given turns of the event loop.
 */
function pendingBytes(workbook: ExcelJS.stream.xlsx.WorkbookWriter, sheet: ExcelJS.Worksheet): number {
  const writer = workbook as unknown as WriterInternals;
  const stream = (sheet as unknown as { stream?: SheetStream }).stream;
  let bytes = buffered(writer.zip) + buffered(writer.stream);
  for (const buffer of stream?.buffers ?? []) bytes += buffer.length;
  for (const pipe of stream?.pipes ?? []) bytes += buffered(pipe);
  return bytes;
}

/** Settles once what waits is down to half the limit (or after a turn, when it cannot be read). */
async function drained(workbook: ExcelJS.stream.xlsx.WorkbookWriter, sheet: ExcelJS.Worksheet): Promise<void> {
  do await sleep(1);
  while (pendingBytes(workbook, sheet) > BACKLOG_MAX_BYTES / 2);
}

/** An ISO instant as a Date cell (null when absent or unreadable, so the cell stays empty). */
export function dateCell(iso: string | null | undefined): Date | null {
  if (!iso) return null;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? null : new Date(ms);
}
