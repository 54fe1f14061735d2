/**
 * The verdict on one uploaded sheet, as the page shows it: each row with its display text, its
 * order's status and its own issues (pointing at cells). Built from the checker's output with the
 * same functions the CLI's result file uses, kept as JSON so it outlives the server process.
 */
import type { Issue } from '../issues/index.js';
import type { CheckedSheet } from '../orders/types.js';
import { formatSheetDate } from '../output-files/cell-values.js';
import { buildResultRows } from '../result-files/result-rows.js';
import { validationOutcome } from '../validate/run-validate.js';
import type { CellEdit } from '../mapping/cell-edits.js';
import type { FileMapping } from '../mapping/choose.js';
import type { Profile } from '../mapping/profile.js';
import type { Confidence } from '../mapping/suggest.js';
import type { Field } from '../sheet/columns.js';
import { excelSerialToWallClock } from '../orders/dates.js';
import { COLUMNS } from '../sheet/columns.js';
import type { CellValue } from '../sheet/types.js';

export interface MappingStep {
  /** A few values of each source column, to tell the columns apart. */
  samples: string[][];
  /** The best guess for each field. */
  guesses: { field: Field; column: number; confidence: Confidence }[];
  /** The distinct values seen in each column (a few dozen at most), for a value map. */
  values?: string[][];
  /** Fields guessed as columns joined (`Vorname` + `Nachname` -> fullName). */
  joins?: { field: Field; columns: number[] }[];
  /** Required fields no column was guessed for. */
  missing: Field[];
  /** The profile the sheet was read with, when one was: the step then changes it (its choices shown), on request. */
  current?: Profile;
}

export interface VerdictRow {
  /** The spreadsheet row number. */
  n: number;
  cells: string[];
  /** The order's status: valid or invalid. */
  status: string;
  orderId: string | null;
  issues: Issue[];
  /** Rows of the same order that carry its errors, when this row has none. */
  related?: number[];
}

export interface VerdictOrder {
  customerOrderId: string | null;
  rows: number[];
  status: 'valid' | 'invalid';
}

export interface Verdict {
  id: string;
  /** The name the user's file had (made safe). */
  fileName: string;
  /** Where the upload is stored (inside the work folder of the instance that checked it). */
  file: string;
  /** The upload's sha256 (absent when it could not be read). */
  sha256?: string;
  sheet?: string;
  uploadedAt: string;
  checkedAsOf: string;
  timezone: string;
  /** The file could not be used at all. */
  error?: { code: string; message: string };
  headers: string[];
  /** What the reader chose that the user should know, e.g. that a result workbook's Fix sheet was read. */
  notices?: string[];
  fileIssues: Issue[];
  /** The rows the page shows: every row with a problem and the first clean ones (see buildVerdict). */
  rows: VerdictRow[];
  /** Rows not kept for the page (the result workbook has them all). */
  rowsLeftOff: number;
  orders: VerdictOrder[];
  counts: { rows: number; orders: number; valid: number; invalid: number; rowsWithWarnings: number };
  /** The mapping profile the sheet was read with, and the sentence that says so. */
  mapping?: FileMapping;
  /**
   * The sheet's columns are not the template's and no profile fits them: the page asks which column
   * feeds each field before giving a verdict (its best guesses preselected).
   */
  mappingStep?: MappingStep;
  /** Cells corrected in the page: by whom, when (the result workbook holds the corrected values). */
  edits?: CellEdit[];
  /** File names inside the upload's folder. */
  resultFile?: string;
  fixFile?: string;
  fixRows: number;
}

export type RowFilter = 'all' | 'invalid' | 'valid' | 'warnings';
export const ROW_FILTERS: readonly RowFilter[] = ['all', 'invalid', 'valid', 'warnings'];

export function displayText(value: CellValue | undefined): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return formatSheetDate(value);
  return String(value);
}

const SERIAL = /^\d{1,7}(?:\.\d+)?$/;
const DATE_FIELDS: ReadonlySet<string> = new Set(COLUMNS.filter((c) => c.kind === 'date').map((c) => c.field));

/**
 * A date column's cell as the checker read it: an Excel serial (a date cell saved as a number, or a
 * CSV written from one: 46348.38542) is shown as the date it stands for, 2026-11-21 09:15, to the
 * second at most (a serial's last digits are rounding, not milliseconds).
 */
export function displayCell(value: CellValue | undefined, field: string | null): string {
  const serial = typeof value === 'number' ? value : typeof value === 'string' && SERIAL.test(value.trim()) ? Number(value) : Number.NaN;
  if (field === null || !DATE_FIELDS.has(field) || Number.isNaN(serial)) return displayText(value);
  const ms = excelSerialToWallClock(serial);
  if (Number.isNaN(ms)) return displayText(value);
  const date = new Date(Math.round(ms / 1000) * 1000);
  const day = date.toISOString().slice(0, 10);
  const [time, seconds] = [date.toISOString().slice(11, 16), date.getUTCSeconds()];
  if (time === '00:00' && seconds === 0) return day;
  return `${day} ${time}${seconds === 0 ? '' : `:${String(seconds).padStart(2, '0')}`}`;
}

/**
 * What the page shows of one cell (and of a header): a 100 KB note in an ignored column would
 * otherwise put 100 KB on the page (and in verdict.json) per row. The result workbook keeps the
 * cell as it was (up to Excel's 32,767 characters a cell).
 */
export const MAX_CELL_CHARS = 200;

/** A cell's text, cut at MAX_CELL_CHARS with an ellipsis and the full length. */
export function shortenCellText(text: string, max = MAX_CELL_CHARS): string {
  if (text.length <= max) return text;
  // Never cut a character in two (a surrogate pair).
  const end = /[\uD800-\uDBFF]/.test(text[max - 1]!) ? max - 1 : max;
  return `${text.slice(0, end)}… (${text.length.toLocaleString('en-US')} characters in all)`;
}

/**
 * The page is for finding what to fix: it keeps every row with a problem (up to a bound) and the
 * first clean rows, so a 200,000-row sheet does not become a 100 MB page. The result workbook has every row.
 */
export const PAGE_ROW_LIMITS = { withProblems: 20_000, clean: 1_000 };

export function buildVerdict(
  sheet: CheckedSheet,
  meta: Pick<Verdict, 'id' | 'fileName' | 'file' | 'sheet' | 'uploadedAt' | 'checkedAsOf' | 'timezone'>,
  limits = PAGE_ROW_LIMITS,
  /** Each order's issues when the API added some (products, stock); default the sheet's own. */
  issuesOf?: (index: number) => readonly Issue[],
): Omit<Verdict, 'resultFile' | 'fixFile' | 'fixRows'> {
  const outcomes = sheet.orders.map((o, i) => validationOutcome(issuesOf?.(i) ?? o.issues));
  const rows: VerdictRow[] = [];
  let withProblems = 0;
  let clean = 0;
  let rowsLeftOff = 0;
  let rowsWithWarnings = 0;
  for (const row of buildResultRows(sheet, outcomes)) {
    if (row.issues.some((i) => i.severity === 'warning')) rowsWithWarnings++;
    const hasProblem = row.issues.length > 0 || row.status !== 'valid';
    if (hasProblem ? withProblems >= limits.withProblems : clean >= limits.clean) {
      rowsLeftOff++;
      continue;
    }
    if (hasProblem) withProblems++;
    else clean++;
    const index = sheet.orderIndexOfRow(row.rowNumber);
    const entry: VerdictRow = {
      n: row.rowNumber,
      cells: sheet.headers.map((_, i) => shortenCellText(displayCell(row.cells[i], sheet.columns[i] ?? null))),
      status: row.status,
      orderId: index === undefined ? null : (sheet.orders.at(index)?.customerOrderId ?? null),
      issues: row.issues,
    };
    if (row.relatedErrorRows) entry.related = row.relatedErrorRows;
    rows.push(entry);
  }
  const orders: VerdictOrder[] = sheet.orders.map((o, i) => ({ customerOrderId: o.customerOrderId, rows: o.rows, status: outcomes[i]!.status as 'valid' | 'invalid' }));
  const valid = orders.filter((o) => o.status === 'valid').length;
  return {
    ...meta,
    headers: sheet.headers.map((h) => shortenCellText(h)),
    fileIssues: sheet.fileIssues,
    rows,
    rowsLeftOff,
    orders,
    counts: { rows: rows.length + rowsLeftOff, orders: orders.length, valid, invalid: orders.length - valid, rowsWithWarnings },
  };
}

export function hasWarning(row: VerdictRow): boolean {
  return row.issues.some((i) => i.severity === 'warning');
}

export function parseRowFilter(text: unknown): RowFilter {
  return ROW_FILTERS.includes(text as RowFilter) ? (text as RowFilter) : 'all';
}

/** The text a search matches: every cell, the status and every message of the row. */
export function searchTextOf(row: VerdictRow): string {
  return [String(row.n), row.status, ...row.cells, ...row.issues.map((i) => `${i.code} ${i.message}`)].join('\n').toLowerCase();
}

export function matchesFilter(row: VerdictRow, show: RowFilter, query: string): boolean {
  if (show === 'invalid' && row.status !== 'invalid') return false;
  if (show === 'valid' && row.status !== 'valid') return false;
  if (show === 'warnings' && !hasWarning(row)) return false;
  const q = query.trim().toLowerCase();
  return q === '' || searchTextOf(row).includes(q);
}

/** The ids of the valid orders: what a submission would send (the ledger says which it already has). */
export function validOrderIds(verdict: Pick<Verdict, 'orders'>): string[] {
  return verdict.orders.flatMap((o) => (o.status === 'valid' && o.customerOrderId ? [o.customerOrderId] : []));
}
