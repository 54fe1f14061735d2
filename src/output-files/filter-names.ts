/**
 * Declares each autofilter's range as the sheet's `_xlnm._FilterDatabase` name.
 *
 * Why: exceljs writes `<autoFilter ref>` but never this built-in name. Excel rebuilds it, but
 * LibreOffice only turns an xlsx autofilter on when the name exists (checked with LibreOffice 7.4:
 * without it the filter arrows are simply missing). exceljs's public `definedNames.add` expands a range
 * into one entry per cell (19 million for a million-row sheet) and cannot set localSheetId, so the
 * workbook's defined-names model is given directly; nothing else in these workbooks uses defined names.
 */
import type ExcelJS from 'exceljs';
import { columnLetter } from './template-form.js';

export interface FilterRange {
  /** 0-based position of the sheet in the workbook. */
  sheetIndex: number;
  sheetName: string;
  firstRow: number;
  lastRow: number;
  lastColumn: number;
}

export function declareFilterRanges(workbook: Pick<ExcelJS.Workbook, 'definedNames'>, filters: readonly FilterRange[]): void {
  const model = filters.map((f) => ({
    name: '_xlnm._FilterDatabase',
    localSheetId: f.sheetIndex,
    ranges: [`'${f.sheetName.replace(/'/g, "''")}'!$A$${f.firstRow}:$${columnLetter(f.lastColumn)}$${f.lastRow}`],
  }));
  Object.defineProperty(workbook.definedNames, 'model', { get: () => model, configurable: true });
}
