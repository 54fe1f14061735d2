/** Expands the input arguments: files as given, folders to the order sheets directly inside them. */
import { readdirSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { UsageError } from '../errors.js';

const SHEET_EXTENSIONS = new Set(['.csv', '.xlsx', '.tsv', '.txt']);

/** Result files and Excel's lock files (~$name.xlsx) lying in a watched folder are not order sheets. */
export function isOrderSheetName(name: string): boolean {
  if (name.startsWith('~$') || name.startsWith('.')) return false;
  if (/\.(import-)?result\.(xlsx|csv)$/i.test(name) || /\.reconciliation\.(xlsx|csv)$/i.test(name)) return false;
  return SHEET_EXTENSIONS.has(extname(name).toLowerCase());
}

export function expandInputs(args: readonly string[]): string[] {
  if (args.length === 0) throw new UsageError('Name at least one order sheet (CSV or XLSX) or a folder of them.');
  const files: string[] = [];
  for (const arg of args) {
    let isDir = false;
    try {
      isDir = statSync(arg).isDirectory();
    } catch {
      // A missing file is reported per file by the reader, with the file's name.
    }
    if (!isDir) {
      files.push(arg);
      continue;
    }
    const names = readdirSync(arg).filter(isOrderSheetName).sort();
    for (const name of names) files.push(join(arg, name));
  }
  return [...new Set(files)];
}
