/** Cell values as the result files show them: dates in the sheet's wall-clock time (formulas: src/formula-guard.ts). */
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

/** A cell for CSV: dates as ISO text, everything else as read (papaparse quotes and neutralises). */
export function toCsvValue(value: CellValue | undefined): string | number | boolean | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return formatSheetDate(value);
  return value;
}
