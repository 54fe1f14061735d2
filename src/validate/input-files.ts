/** Expands the input arguments: files as given, folders to the order sheets directly inside them. */
import { readdirSync, statSync, type Dirent } from 'node:fs';
import { extname, join } from 'node:path';
import { UsageError } from '../errors.js';
import type { Logger } from '../log.js';
import { whyNotOrderSheet } from '../sheet/sheet-files.js';

export interface SkippedFile {
  file: string;
  /** Why it is not an order sheet, e.g. "Excel's lock file". */
  reason: string;
}

export interface FolderSheets {
  /** The order sheets, sorted by name. */
  files: string[];
  /** Files left out, sorted by name; sub-folders are not listed (folders are read one level deep). */
  skipped: SkippedFile[];
}

/**
 * Spreadsheet formats the reader cannot take (legacy and binary Excel, OpenDocument, Numbers): in a
 * folder they are order sheets all the same, so they fail the run as when named directly (the reader
 * refuses them with unsupported_format and what to save them as) instead of being skipped every night.
 */
const UNREADABLE_SHEET_EXTENSIONS: ReadonlySet<string> = new Set(['.xls', '.xlt', '.xlsb', '.ods', '.ots', '.fods', '.numbers']);

/** Lock and hidden files stay skipped whatever their extension (~$orders.xls is Excel's lock file, not a sheet). */
function isUnreadableSheet(name: string): boolean {
  return !name.startsWith('~$') && !name.startsWith('.') && UNREADABLE_SHEET_EXTENSIONS.has(extname(name).toLowerCase());
}

/**
 * The order sheets directly inside a folder, and the files that are not (see sheet/sheet-files.ts).
 * Sheets in a format the reader cannot take are among the sheets: reading them fails, with the reason.
 */
export function listFolderSheets(dir: string): FolderSheets {
  const files: string[] = [];
  const skipped: SkippedFile[] = [];
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (!isFile(dir, entry)) continue;
    const file = join(dir, entry.name);
    const reason = isUnreadableSheet(entry.name) ? null : whyNotOrderSheet(dir, entry.name);
    if (reason === null) files.push(file);
    else skipped.push({ file, reason });
  }
  return { files, skipped };
}

function isFile(dir: string, entry: Dirent): boolean {
  if (entry.isFile()) return true;
  if (!entry.isSymbolicLink()) return false;
  try {
    return statSync(join(dir, entry.name)).isFile();
  } catch {
    return false; // a dangling link
  }
}

/**
 * Files named on the command line are read as given (the reader refuses what is not a sheet, with
 * the reason); a folder yields its order sheets, and the files it skips are named in one warning
 * per folder and returned (for the --json report) so that a note or a lock file never fails a
 * nightly run, nor vanishes unmentioned.
 */
export function expandInputs(args: readonly string[], options: { logger?: Logger } = {}): FolderSheets {
  if (args.length === 0) throw new UsageError('Name at least one order sheet (CSV or XLSX) or a folder of them.');
  const files: string[] = [];
  const skipped: SkippedFile[] = [];
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
    const folder = listFolderSheets(arg);
    files.push(...folder.files);
    skipped.push(...folder.skipped);
    if (folder.skipped.length > 0) options.logger?.warn({ folder: arg, skipped: folder.skipped.map((s) => s.file) }, skippedNotice(arg, folder.skipped));
  }
  return { files: [...new Set(files)], skipped };
}

/** One sentence naming every skipped file and why. */
export function skippedNotice(folder: string, skipped: readonly SkippedFile[]): string {
  const list = skipped.map((s) => `${s.file} (${s.reason})`).join(', ');
  const count = skipped.length === 1 ? '1 file' : `${skipped.length} files`;
  return `Skipped ${count} in ${folder} that ${skipped.length === 1 ? 'is' : 'are'} not order sheets: ${list}. Name a file on the command line to read it anyway.`;
}
