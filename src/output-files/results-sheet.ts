/**
 * The Results sheet, streamed: the input row for row at the SAME row numbers as the input (so "row 7"
 * in a message is row 7 here, and skipped blank rows stay blank), then status, issues and the extra
 * columns. Bad cells get a fill and the message as a note; the header is frozen and filtered.
 */
import type ExcelJS from 'exceljs';
import { UsageError } from '../errors.js';
import { COLUMN_BY_FIELD } from '../sheet/columns.js';
import type { CellValue } from '../sheet/types.js';
import { formatRowIssues, groupCellIssues } from './issue-text.js';
import type { ResultRow, ResultSheetInput } from './types.js';
import { waitForZip } from './zip-backpressure.js';
import { cellStyle, dateFormatOf, headerStyle, isTextKind, ISSUES_STYLE, statusStyle, widthFor, wrappedRowHeight, type Mark } from './xlsx-styles.js';

/** Rows in an Excel worksheet, the header included. */
export const XLSX_MAX_ROWS = 1_048_576;
/** Excel refuses cells longer than this. */
const MAX_CELL_CHARS = 32_767;
/** Rows written between two checks that the zip keeps up (zip-backpressure.ts). */
const ROWS_PER_YIELD = 256;

const EXTRA_WIDTHS: Record<string, number> = { httpStatus: 11, requestId: 38, submittedAt: 22 };
export const ISSUES_WIDTH = 60;
const STATUS_WIDTH = 18;

export function tooManyRowsError(rows: number | string): UsageError {
  return new UsageError(
    `The result has ${rows} rows, more than an Excel worksheet holds (${(XLSX_MAX_ROWS - 1).toLocaleString('en-US')} data rows). ` +
      'Write it as CSV instead, e.g. --out result.csv.',
  );
}

export interface ResultsSheetStats {
  headerRow: number;
  /** Last row of the filtered range. */
  lastRow: number;
  lastColumn: number;
  dataRows: number;
  notes: number;
  /** Bad cells highlighted without a note because the note limit was reached. */
  notesSkipped: number;
}

/** Column layout of Results: widths from the matched field's kind, then status, issues and the extras. */
export function resultsColumnDefs(input: ResultSheetInput): Partial<ExcelJS.Column>[] {
  const defs: Partial<ExcelJS.Column>[] = input.headers.map((header, i) => {
    const def = COLUMN_BY_FIELD.get(input.columns[i] ?? ('' as never));
    return { width: widthFor(header, def?.kind ?? null, def?.maxLength) };
  });
  defs.push({ width: STATUS_WIDTH }, { width: ISSUES_WIDTH });
  for (const name of input.extraColumns) defs.push({ width: Math.max(EXTRA_WIDTHS[name] ?? 16, name.length + 3) });
  return defs;
}

function clip(value: CellValue | undefined): CellValue | undefined {
  return typeof value === 'string' && value.length > MAX_CELL_CHARS ? `${value.slice(0, MAX_CELL_CHARS - 1)}…` : value;
}

/**
 * Streams every row of input.rows into `sheet` (added with its frozen view already set), calling
 * `onRow` for each so the Fix sheet can collect its rows in the same pass.
 */
export async function writeResultsSheet(
  sheet: ExcelJS.Worksheet,
  input: ResultSheetInput,
  options: { noteLimit: number; onRow(row: ResultRow): void; signal?: AbortSignal },
): Promise<ResultsSheetStats> {
  const width = input.headers.length;
  const extras = input.extraColumns;
  const totalCols = width + 2 + extras.length;
  const headerRow = Math.max(1, input.headerRow);
  sheet.columns = resultsColumnDefs(input);

  const isTextColumn = input.headers.map((_, i) => isTextKind(COLUMN_BY_FIELD.get(input.columns[i] ?? ('' as never))?.kind));
  let notes = 0;
  let notesSkipped = 0;
  const header = sheet.getRow(headerRow);
  const headerMarks = new Map(groupCellIssues(input.fileIssues).map((c) => [c.colIndex, c]));
  [...input.headers, 'status', 'issues', ...extras].forEach((name, i) => {
    const cell = header.getCell(i + 1);
    cell.value = clip(name) ?? null;
    const mark = headerMarks.get(i);
    cell.style = headerStyle(mark?.severity ?? 'none');
    if (mark) {
      cell.note = mark.note;
      notes++;
    }
  });
  header.commit();

  let lastRow = headerRow;
  let dataRows = 0;
  for (const row of input.rows) {
    // Rows arrive in sheet order; a row number that went backwards (not expected) still gets a row of its own.
    const rowNumber = Math.max(row.rowNumber, lastRow + 1);
    if (rowNumber > XLSX_MAX_ROWS) throw tooManyRowsError(`more than ${dataRows.toLocaleString('en-US')}`);
    const out = sheet.getRow(rowNumber);
    const marks = new Map(groupCellIssues(row.issues).map((c) => [c.colIndex, c]));
    for (let i = 0; i < width; i++) {
      const value = clip(row.cells[i]);
      const mark = marks.get(i);
      // An empty cell is only written when it is the one at fault (e.g. a required value left blank).
      if ((value === null || value === undefined) && !mark) continue;
      const cell = out.getCell(i + 1);
      if (value !== null && value !== undefined) cell.value = value;
      cell.style = cellStyle(value instanceof Date ? dateFormatOf(value) : 'general', (mark?.severity ?? 'none') as Mark, isTextColumn[i]);
      if (mark) {
        if (notes < options.noteLimit) {
          cell.note = mark.note;
          notes++;
        } else notesSkipped++;
      }
    }
    const status = out.getCell(width + 1);
    status.value = row.status;
    status.style = statusStyle(row.status);
    const text = formatRowIssues(row);
    if (text) {
      const issues = out.getCell(width + 2);
      issues.value = clip(text) ?? null;
      issues.style = ISSUES_STYLE;
      const height = wrappedRowHeight(text, ISSUES_WIDTH);
      if (height) out.height = height;
    }
    for (let e = 0; e < extras.length; e++) {
      const value = row.extra?.[extras[e]!];
      if (value !== null && value !== undefined) {
        const cell = out.getCell(width + 3 + e);
        cell.value = clip(value) ?? null;
        cell.style = cellStyle('general', 'none');
      }
    }
    out.commit();
    options.onRow(row);
    lastRow = rowNumber;
    dataRows++;
    if (dataRows % ROWS_PER_YIELD === 0) await waitForZip(sheet, options.signal);
  }

  const filterLastRow = Math.max(lastRow, headerRow + 1);
  sheet.autoFilter = { from: { row: headerRow, column: 1 }, to: { row: filterLastRow, column: totalCols } };
  return { headerRow, lastRow: filterLastRow, lastColumn: totalCols, dataRows, notes, notesSkipped };
}
