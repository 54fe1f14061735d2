/**
 * exceljs cell values to the reader's CellValue: numbers stay numbers, booleans stay booleans,
 * date cells are Dates whose UTC fields are the wall-clock time shown in Excel (exceljs converts
 * the serial as if it were UTC: 45000.5 -> 2023-03-15T12:00:00.000Z), formulas give their cached
 * result, rich text and hyperlinks give their text, errors give their text ("#N/A").
 *
 * A formula stored without a cached result (`<c><f>O3*P3</f></c>`, no `<v>`: written by a program
 * that does not calculate) has no value to read. It reads as null and is reported to the caller,
 * who decides whether that blank may pass (see read-xlsx.ts).
 */
import type { CellValue } from './types.js';

/** The row shape exceljs's streaming reader yields (only what is read here). */
export interface StreamRow {
  number: number;
  values: unknown;
  getCell(col: number): { numFmt?: string; result?: unknown };
}

/** A formula cell that holds no cached result. */
export interface UncomputedFormula {
  /** 0-based column. */
  col: number;
  /** The formula's text without "=" ('' for a cell sharing another cell's formula). */
  formula: string;
}

/**
 * Cells of one row, 0-based, positioned by column letter (row.values is 1-based and sparse:
 * empty cells are holes, which become null). Formula cells without a cached result are added to
 * `uncomputed` when it is given.
 */
export function readRowCells(row: StreamRow, date1904: boolean, uncomputed?: UncomputedFormula[]): CellValue[] {
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
        cells[col - 1] = value === null ? null : value instanceof Date ? value : readObjectValue(value, row, col, date1904, uncomputed);
        break;
      default:
        cells[col - 1] = null;
    }
  }
  return cells;
}

function readObjectValue(value: object, row: StreamRow, col: number, date1904: boolean, uncomputed: UncomputedFormula[] | undefined): CellValue {
  if ('formula' in value || 'sharedFormula' in value) {
    // row.values drops a falsy cached result (0, ""): the cell itself still has it.
    let result = (value as { result?: unknown }).result;
    if (result === undefined) result = row.getCell(col).result;
    // No <v> at all, or an empty one (<v/>, as openpyxl and pandas write): exceljs reads the latter as NaN.
    if (result === undefined || (typeof result === 'number' && Number.isNaN(result))) {
      const formula = (value as { formula?: unknown }).formula;
      uncomputed?.push({ col: col - 1, formula: typeof formula === 'string' ? formula : '' });
      return null;
    }
    if (typeof result === 'number') {
      // A formula's cached number is not converted to a date by exceljs even under a date format.
      const numFmt = row.getCell(col).numFmt;
      return numFmt && isDateFormat(numFmt) ? excelSerialToDate(result, date1904) : result;
    }
    if (result === null) return null;
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
