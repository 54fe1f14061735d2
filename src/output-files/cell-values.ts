/** Cell values as the result files show them: dates in the sheet's wall-clock time, formulas neutralised. */
import type { CellValue } from '../sheet/types.js';

/** Date cells carry the sheet's wall-clock time in their UTC fields (src/sheet/types.ts). */
export function isDateOnly(date: Date): boolean {
  return date.getUTCHours() === 0 && date.getUTCMinutes() === 0 && date.getUTCSeconds() === 0 && date.getUTCMilliseconds() === 0;
}

const pad2 = (n: number): string => (n < 10 ? `0${n}` : String(n));

/**
 * ISO 8601 without an offset (`2026-11-20` or `2026-11-20T14:30:00`): the value is wall-clock time
 * as the sheet showed it, so a `Z` would be a lie; read back, it is taken in --timezone like the input was.
 */
export function formatSheetDate(date: Date): string {
  if (Number.isNaN(date.getTime())) return '';
  const day = `${date.getUTCFullYear()}-${pad2(date.getUTCMonth() + 1)}-${pad2(date.getUTCDate())}`;
  if (isDateOnly(date)) return day;
  const ms = date.getUTCMilliseconds();
  const frac = ms === 0 ? '' : `.${String(ms).padStart(3, '0')}`;
  return `${day}T${pad2(date.getUTCHours())}:${pad2(date.getUTCMinutes())}:${pad2(date.getUTCSeconds())}${frac}`;
}

/**
 * Text a spreadsheet would run as a formula (OWASP "CSV injection": cells starting with = + - @ TAB CR),
 * except number-like text (`-5`, `+3.50`, `-$1,234.50`, `1e5`, `-12345`), which holds no letters or
 * parentheses and so cannot call anything. A phone such as `+1-555-0134` IS matched: Excel would compute
 * it (=-688), so the prefix protects the value as well as the reader.
 */
export const FORMULA_LIKE = /^(?![+-]\$?(?:\d[\d,]*(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$)[=+\-@\t\r]/;

/** The neutralised text of a string cell: a leading apostrophe where a spreadsheet would see a formula. */
export function neutraliseFormula(text: string): string {
  return FORMULA_LIKE.test(text) ? `'${text}` : text;
}

const APOSTROPHE = 0x27;

/**
 * A cell's text without the apostrophe neutraliseFormula puts before it: a corrected result CSV read
 * again must send `+1 617 555 0100`, not `'+1 617 555 0100`. Only an apostrophe followed by text the
 * guard prefixes is taken for it; `'quoted` or `'-5` stay as typed. Result files echo the input cells
 * as read, so a cell that went through several corrections still holds one apostrophe, never two.
 * (Excel's own quote prefix never reaches a cell's value: this only undoes ours.)
 */
export function removeFormulaGuard(text: string): string {
  if (text.charCodeAt(0) !== APOSTROPHE) return text;
  const rest = text.slice(1);
  return FORMULA_LIKE.test(rest) ? rest : text;
}

/** A cell for CSV: dates as ISO text, everything else as read (papaparse quotes and neutralises). */
export function toCsvValue(value: CellValue | undefined): string | number | boolean | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return formatSheetDate(value);
  return value;
}
