/**
 * The Fix sheet: only the rows whose order must be corrected, in template form (the template's
 * columns and canonical headers; unknown input columns dropped), bad cells highlighted and noted,
 * and the row's issues in a last `issues` column. It is written after Results, so its rows are
 * collected while Results streams, with a cap that never splits an order.
 */
import type ExcelJS from 'exceljs';
import type { Field } from '../sheet/columns.js';
import { COLUMNS } from '../sheet/columns.js';
import type { CellValue } from '../sheet/types.js';
import { formatRowIssues, groupCellIssues } from './issue-text.js';
import { addDropdowns, templateColumnDefs, templateFormatOf, TEMPLATE_HEADERS, type ListRanges } from './template-form.js';
import type { ResultRow } from './types.js';
import { waitForZip } from './zip-backpressure.js';
import { cellStyle, dateFormatOf, HEADER_STYLE, isTextKind, ISSUES_STYLE, wrappedRowHeight, type Mark } from './xlsx-styles.js';

export interface FixCell {
  /** 0-based template column. */
  templateIndex: number;
  severity: 'error' | 'warning';
  note: string;
}

export interface FixRow {
  /** Values in template column order. */
  values: CellValue[];
  cells: FixCell[];
  issues: string;
}

export interface FixRows {
  rows: FixRow[];
  /** Rows left off because the cap was reached (whole orders). */
  droppedRows: number;
}

export interface FixCollector {
  add(row: ResultRow): void;
  finish(): FixRows;
}

/**
 * Input column index -> template column index (-1 for unknown columns). A sheet read through a mapping
 * profile names a field twice, on the source column (for highlighting) and on the derived one after the
 * row's own cells: the later column's value is the one the Fix sheet takes.
 */
export function mapToTemplate(columns: readonly (Field | null)[]): number[] {
  return columns.map((field) => (field === null ? -1 : TEMPLATE_HEADERS.indexOf(field)));
}

/**
 * Collects needsFix rows in template form, at most `limit` of them. Past the limit, every order that
 * lost a row is removed whole, so the sheet never offers part of an order for upload.
 */
export function createFixCollector(columns: readonly (Field | null)[], limit: number): FixCollector {
  const toTemplate = mapToTemplate(columns);
  const idColumn = columns.indexOf('customerOrderId');
  const kept: { row: FixRow; orderKey: string | null }[] = [];
  const droppedOrders = new Set<string>();
  let dropped = 0;

  const orderKeyOf = (cells: readonly CellValue[]): string | null => {
    const value = idColumn < 0 ? null : cells[idColumn];
    const key = value === null || value === undefined ? '' : String(value).trim();
    return key === '' ? null : key;
  };

  return {
    add(row) {
      if (!row.needsFix) return;
      const orderKey = orderKeyOf(row.cells);
      if (kept.length >= limit) {
        dropped++;
        if (orderKey !== null) droppedOrders.add(orderKey);
        return;
      }
      const values: CellValue[] = new Array<CellValue>(TEMPLATE_HEADERS.length).fill(null);
      toTemplate.forEach((t, i) => {
        if (t >= 0 && i < row.cells.length) values[t] = row.cells[i] ?? null;
      });
      const cells: FixCell[] = [];
      for (const c of groupCellIssues(row.issues)) {
        const t = toTemplate[c.colIndex] ?? -1;
        if (t >= 0) cells.push({ templateIndex: t, severity: c.severity, note: c.note });
      }
      // A column the input lacks is in the Fix sheet (template form), empty: mark it, so the user sees what to fill in.
      for (const issue of row.issues) {
        const t = issue.code === 'missing_column' && issue.column !== null ? TEMPLATE_HEADERS.indexOf(issue.column as Field) : -1;
        if (t >= 0 && !cells.some((c) => c.templateIndex === t)) cells.push({ templateIndex: t, severity: 'error', note: issue.message });
      }
      kept.push({ row: { values, cells, issues: formatRowIssues(row) }, orderKey });
    },
    finish() {
      if (droppedOrders.size === 0) return { rows: kept.map((k) => k.row), droppedRows: dropped };
      const rows: FixRow[] = [];
      for (const k of kept) {
        if (k.orderKey !== null && droppedOrders.has(k.orderKey)) dropped++;
        else rows.push(k.row);
      }
      return { rows, droppedRows: dropped };
    },
  };
}

type StreamSheet = ExcelJS.Worksheet;

export const FIX_ISSUES_WIDTH = 60;

/** Writes the Fix sheet's rows (the sheet was added with a frozen header row). Returns the notes written and the filtered range. */
export async function writeFixSheet(
  sheet: StreamSheet,
  fix: FixRows,
  options: { lists: ListRanges; hasSourcesOfSale: boolean; noteLimit: number; signal?: AbortSignal },
): Promise<{ notes: number; notesSkipped: number; lastRow: number; lastColumn: number }> {
  const issuesCol = TEMPLATE_HEADERS.length + 1;
  sheet.columns = templateColumnDefs([FIX_ISSUES_WIDTH]);
  const header = sheet.getRow(1);
  [...TEMPLATE_HEADERS, 'issues'].forEach((name, i) => {
    const cell = header.getCell(i + 1);
    cell.value = name;
    cell.style = HEADER_STYLE;
  });
  header.commit();

  const formats = COLUMNS.map(templateFormatOf);
  const isTextColumn = COLUMNS.map((c) => isTextKind(c.kind));
  let notes = 0;
  let notesSkipped = 0;
  for (const [index, fixRow] of fix.rows.entries()) {
    const row = sheet.getRow(index + 2);
    const marks = new Map<number, FixCell>(fixRow.cells.map((c) => [c.templateIndex, c]));
    fixRow.values.forEach((value, t) => {
      const mark = marks.get(t);
      if ((value === null || value === undefined) && !mark) return;
      const cell = row.getCell(t + 1);
      if (value !== null && value !== undefined) cell.value = value;
      cell.style = cellStyle(value instanceof Date ? dateFormatOf(value) : formats[t]!, (mark?.severity ?? 'none') as Mark, isTextColumn[t]);
      if (mark) {
        if (notes < options.noteLimit) {
          cell.note = mark.note;
          notes++;
        } else notesSkipped++;
      }
    });
    const issues = row.getCell(issuesCol);
    issues.value = fixRow.issues;
    issues.style = ISSUES_STYLE;
    const height = wrappedRowHeight(fixRow.issues, FIX_ISSUES_WIDTH);
    if (height) row.height = height;
    row.commit();
    if (index % 256 === 255) await waitForZip(sheet, options.signal);
  }

  const lastRow = Math.max(2, fix.rows.length + 1);
  sheet.autoFilter = { from: { row: 1, column: 1 }, to: { row: lastRow, column: issuesCol } };
  // Dropdowns reach a little past the rows, for lines the user adds while correcting.
  addDropdowns(sheet, options.lists, 2, fix.rows.length + 101, options.hasSourcesOfSale ? [] : ['sourceOfSale']);
  return { notes, notesSkipped, lastRow, lastColumn: issuesCol };
}
