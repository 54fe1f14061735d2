/**
 * exceljs cell values to the reader's CellValue: numbers stay numbers, booleans stay booleans,
 * date cells are Dates whose UTC fields are the wall-clock time shown in Excel (exceljs converts
 * the serial as if it were UTC: 45000.5 -> 2023-03-15T12:00:00.000Z), formulas give their cached
 * result, rich text and hyperlinks give their text, errors give their text ("#N/A").
 */
import type { CellValue } from './types.js';

/** The row shape exceljs's streaming reader yields (only what is read here). */
export interface StreamRow {
  number: number;
  values: unknown;
  getCell(col: number): { numFmt?: string };
}

/**
 * Cells of one row, 0-based, positioned by column letter (row.values is 1-based and sparse:
 * empty cells are holes, which become null).
 */
export function readRowCells(row: StreamRow, date1904: boolean): CellValue[] {
  const values = row.values as unknown[];
  const n = values.length - 1;
  const cells: CellValue[] = new Array<CellValue>(n > 0 ? n : 0);
  for (let col = 1; col <= n; col++) {
    const value = values[col];
    switch (typeof value) {
      case 'string':
      case 'number':
      case 'boolean':
        cells[col - 1] = value;
        break;
      case 'object':
        cells[col - 1] = value === null ? null : value instanceof Date ? value : readObjectValue(value, row, col, date1904);
        break;
      default:
        cells[col - 1] = null;
    }
  }
  return cells;
}

function readObjectValue(value: object, row: StreamRow, col: number, date1904: boolean): CellValue {
  if ('formula' in value || 'sharedFormula' in value) {
    const result = (value as { result?: unknown }).result;
    if (typeof result === 'number') {
      // A formula's cached number is not converted to a date by exceljs even under a date format.
      if (Number.isNaN(result)) return '#VALUE!';
      const numFmt = row.getCell(col).numFmt;
      return numFmt && isDateFormat(numFmt) ? excelSerialToDate(result, date1904) : result;
    }
    if (result === undefined || result === null) return null;
    return readPlainValue(result);
  }
  return readPlainValue(value);
}

function readPlainValue(value: unknown): CellValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || value instanceof Date) return value;
  if (typeof value !== 'object') return String(value);
  if ('richText' in value) {
    const runs = (value as { richText: { text?: unknown }[] }).richText;
    let text = '';
    for (const run of runs) if (typeof run.text === 'string') text += run.text;
    return text;
  }
  if ('error' in value) return String((value as { error: unknown }).error);
  if ('text' in value) return readPlainValue((value as { text: unknown }).text);
  return null;
}

/** exceljs's own test (utils.isDateFmt): date/time letters outside quotes and [brackets]. */
export function isDateFormat(numFmt: string): boolean {
  const bare = numFmt.replace(/\[[^\]]*]/g, '').replace(/"[^"]*"/g, '');
  return /[ymdhMsb]/.test(bare);
}

/** Same arithmetic as exceljs's utils.excelToDate, so formula dates match date cells. */
export function excelSerialToDate(serial: number, date1904: boolean): Date {
  return new Date(Math.round((serial - 25569 + (date1904 ? 1462 : 0)) * 86_400_000));
}
