/** Where a result file goes: --out as given, or a name beside the input; and whether --confirmations names a folder. */
import { existsSync, statSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { UsageError } from '../errors.js';

export type ResultFormat = 'xlsx' | 'csv';

/** Excel's worksheet holds 1,048,576 rows including the header. */
export const XLSX_MAX_DATA_ROWS = 1_048_575;
/** ... and 16,384 columns (A to XFD). */
export const XLSX_MAX_COLUMNS = 16_384;

/** `reconcile --confirmations <path>`: a path ending in `.csv` is the generic file alone, anything else a folder (one file per marketplace). */
export function isConfirmationsFolder(path: string): boolean {
  return extname(path).toLowerCase() !== '.csv';
}

export function formatOfPath(path: string): ResultFormat | null {
  const ext = extname(path).toLowerCase();
  if (ext === '.xlsx') return 'xlsx';
  if (ext === '.csv') return 'csv';
  return null;
}

/**
 * `orders.csv` -> `orders.result.xlsx` beside it. With several inputs, --out names a folder.
 * `suffix` distinguishes commands (validate: result, import: import-result).
 */
export function resultPathFor(input: string, out: string | undefined, fileCount: number, suffix: string, taken: Set<string> = new Set()): string {
  const stem = basename(input, extname(input));
  const isDir = out !== undefined && ((existsSync(out) && statSync(out).isDirectory()) || out.endsWith('/'));
  if (out === undefined || isDir) {
    const folder = out ?? dirname(input);
    // orders.csv and orders.xlsx in one run must not overwrite each other's result.
    let path = join(folder, `${stem}.${suffix}.xlsx`);
    if (taken.has(path)) path = join(folder, `${stem}-${extname(input).slice(1).toLowerCase()}.${suffix}.xlsx`);
    for (let n = 2; taken.has(path); n++) path = join(folder, `${stem}-${n}.${suffix}.xlsx`);
    taken.add(path);
    return path;
  }
  if (fileCount > 1) throw new UsageError(`--out ${out}: with several input files, --out must be an existing folder.`);
  if (!formatOfPath(out)) throw new UsageError(`--out ${out}: the result file must end in .xlsx or .csv.`);
  return out;
}
