/** Where a result file goes: --out as given, or a name beside the input. */
import { existsSync, statSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { UsageError } from '../errors.js';

export type ResultFormat = 'xlsx' | 'csv';

/** Excel's worksheet holds 1,048,576 rows including the header. */
export const XLSX_MAX_DATA_ROWS = 1_048_575;

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
export function resultPathFor(input: string, out: string | undefined, fileCount: number, suffix: string): string {
  const stem = basename(input, extname(input));
  if (out === undefined) return join(dirname(input), `${stem}.${suffix}.xlsx`);
  const isDir = (existsSync(out) && statSync(out).isDirectory()) || out.endsWith('/');
  if (isDir) return join(out, `${stem}.${suffix}.xlsx`);
  if (fileCount > 1) throw new UsageError(`--out ${out}: with several input files, --out must be an existing folder.`);
  if (!formatOfPath(out)) throw new UsageError(`--out ${out}: the result file must end in .xlsx or .csv.`);
  return out;
}
