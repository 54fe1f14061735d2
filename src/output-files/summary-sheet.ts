/** The Summary sheet of a result workbook: what was read, what came of it, and how to use the other sheets. */
import type ExcelJS from 'exceljs';
import { formatIssueLine } from './issue-text.js';
import { WARNING_CODES, type IssueCode } from '../issues/index.js';
import type { ResultSheetInput } from './types.js';
import { FONT, HEADER_STYLE, statusStyle, wrappedRowHeight } from './xlsx-styles.js';

const TITLE_STYLE: Partial<ExcelJS.Style> = { font: { ...FONT, bold: true, size: 14 } };
const SECTION_STYLE: Partial<ExcelJS.Style> = { font: { ...FONT, bold: true, size: 12 } };
const LABEL_STYLE: Partial<ExcelJS.Style> = { font: { ...FONT, bold: true } };
const TEXT_WIDTH = 72;
const WRAP_STYLE: Partial<ExcelJS.Style> = { alignment: { wrapText: true, vertical: 'top' } };

/** Status names in the order a reader expects them, the rest after. */
const STATUS_ORDER = ['valid', 'accepted', 'already_submitted', 'in_progress_elsewhere', 'invalid', 'rejected', 'failed'];

export interface SummaryExtras {
  /** Rows on the Fix sheet. */
  fixRows: number;
  /** Lines this writer adds (notes or Fix rows left off by a limit). */
  writerNotes: string[];
}

export function writeSummarySheet(sheet: ExcelJS.Worksheet, input: ResultSheetInput, extras: SummaryExtras): void {
  const s = input.summary;
  sheet.columns = [{ width: 26 }, { width: TEXT_WIDTH }, { width: 12 }];
  const wrapped = (row: ExcelJS.Row, text: string): void => {
    row.getCell(2).style = WRAP_STYLE;
    const height = wrappedRowHeight(text, TEXT_WIDTH, 20);
    if (height) row.height = height;
  };
  const add = (values: (string | number | null)[], style?: Partial<ExcelJS.Style>): ExcelJS.Row => {
    const row = sheet.addRow(values);
    if (style) row.eachCell((cell) => (cell.style = style));
    return row;
  };
  const gap = (): void => void sheet.addRow([]);

  add([s.command === 'import' ? 'order-batch import result' : 'order-batch validation result'], TITLE_STYLE);
  gap();
  const facts: [string, string | number][] = [
    ['File', s.file],
    ['Sheet', s.sheetName ?? '(CSV)'],
    ['SHA-256', s.sha256],
    ['Generated at (UTC)', s.generatedAt.toISOString()],
    ['Rows', s.rows],
    ['Orders', s.orders],
  ];
  for (const [label, value] of facts) {
    const row = add([label, value]);
    row.getCell(1).style = LABEL_STYLE;
    // Left-aligned like the text beside it; a count is still a number to sum or sort.
    if (typeof value === 'number') row.getCell(2).alignment = { horizontal: 'left' };
  }

  gap();
  add(['Orders by status'], SECTION_STYLE);
  add(['status', 'orders'], HEADER_STYLE);
  const statuses = Object.keys(s.counts).sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  for (const status of statuses) {
    const row = add([status, s.counts[status] ?? 0]);
    row.getCell(1).style = statusStyle(status);
    row.getCell(2).alignment = { horizontal: 'left' };
  }
  if (statuses.length === 0) add(['(no orders)']);

  gap();
  add(['Issues by code'], SECTION_STYLE);
  add(['code', 'severity', 'count'], HEADER_STYLE);
  const codes = Object.entries(s.issueCounts).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  for (const [code, count] of codes) add([code, WARNING_CODES.has(code as IssueCode) ? 'warning' : 'error', count]);
  if (codes.length === 0) add(['(none)']);

  if (input.fileIssues.length > 0) {
    gap();
    add(['File issues'], SECTION_STYLE);
    add(['code', 'message'], HEADER_STYLE);
    for (const issue of input.fileIssues) {
      const text = formatIssueLine(issue);
      wrapped(add([issue.code, text]), text);
    }
  }

  const notes = [...s.notes, ...extras.writerNotes];
  if (notes.length > 0) {
    gap();
    add(['Notes'], SECTION_STYLE);
    for (const note of notes) wrapped(add(['', note]), note);
  }

  gap();
  add(['How to use this workbook'], SECTION_STYLE);
  const howTo: [string, string][] = [
    ['Results', 'Your sheet row for row, at the same row numbers, with each order\'s status and the issues of each row. Cells with a problem are red (error) or yellow (warning); point at one to read its note. Use the filter arrows to list, say, only invalid rows.'],
    ['Fix', extras.fixRows > 0
      ? `The ${extras.fixRows} row${extras.fixRows === 1 ? '' : 's'} of the orders to correct, in template form. Correct them there, then upload that sheet again (order-batch validate <file> --sheet Fix). Its issues column only draws an unknown-column warning.`
      : 'Nothing to correct.'],
  ];
  for (const [label, text] of howTo) {
    const row = add([label, text]);
    row.getCell(1).style = { ...LABEL_STYLE, alignment: { vertical: 'top' } };
    wrapped(row, text);
  }
}

function rank(status: string): number {
  const i = STATUS_ORDER.indexOf(status);
  return i < 0 ? STATUS_ORDER.length : i;
}
