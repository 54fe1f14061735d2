/** Writes the result file of one sheet (xlsx or csv by extension), row for row with the outcomes. */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { OutputError, toOutputError } from '../errors.js';
import { formatDiskSize, freeDiskBytes } from '../orders/temporary-file.js';
import type { Logger } from '../log.js';
import type { CheckedSheet } from '../orders/types.js';
import { writeResultCsv } from '../output-files/write-result-csv.js';
import type { ResultSheetInput } from '../output-files/types.js';
import { UsageError } from '../errors.js';
import { formatOfPath, XLSX_MAX_COLUMNS, XLSX_MAX_DATA_ROWS } from '../output-files/output-path.js';
import { buildResultRows, summarizeOutcomes, type OrderOutcomes } from './result-rows.js';

export interface WriteResultOptions {
  command: 'validate' | 'import';
  sheet: CheckedSheet;
  outcomes: OrderOutcomes;
  extraColumns: string[];
  path: string;
  /** True when the path was chosen by the tool, so it may switch to CSV for a sheet too long for Excel. */
  isDefaultPath: boolean;
  generatedAt: Date;
  notes: string[];
  /** For the Fix sheet's sourceOfSale dropdown. */
  sourcesOfSale: readonly string[];
  logger: Logger;
}

/**
 * Returns the path actually written. A file that cannot be written (no permission, disk full, a
 * file where a folder should be) throws an OutputError naming it; nothing is left half written.
 */
export async function writeResultFile(options: WriteResultOptions): Promise<string> {
  const { sheet, outcomes } = options;
  let path = options.path;
  let format = formatOfPath(path) ?? 'xlsx';
  const columns = sheet.headers.length + 2 + options.extraColumns.length;
  if (format === 'xlsx' && columns > XLSX_MAX_COLUMNS) {
    if (!options.isDefaultPath) {
      throw new UsageError(`The result has ${columns.toLocaleString('en-US')} columns, more than an Excel worksheet holds (${XLSX_MAX_COLUMNS.toLocaleString('en-US')}). Write it as CSV instead, e.g. --out result.csv.`);
    }
    path = path.replace(/\.xlsx$/i, '.csv');
    format = 'csv';
    options.logger.warn({ columns, path }, 'too many columns for an Excel worksheet: writing the result as CSV');
  }
  if (format === 'xlsx' && sheet.rows.size > XLSX_MAX_DATA_ROWS && options.isDefaultPath) {
    path = path.replace(/\.xlsx$/i, '.csv');
    format = 'csv';
    options.logger.warn({ rows: sheet.rows.size, path }, 'too many rows for an Excel worksheet: writing the result as CSV');
  }
  const summary = summarizeOutcomes(outcomes, sheet.fileIssues);
  const computed = summary.computedTotals;
  const notes = [...options.notes];
  if (computed > 0) notes.push(`Totals left blank were computed for ${computed} order${computed === 1 ? '' : 's'} (see the computed_total warnings).`);
  const input: ResultSheetInput = {
    headers: sheet.headers,
    headerRow: sheet.headerRow,
    columns: sheet.columns,
    extraColumns: options.extraColumns,
    fileIssues: sheet.fileIssues,
    rows: buildResultRows(sheet, outcomes),
    summary: {
      command: options.command,
      file: sheet.file,
      sheetName: sheet.sheetName,
      sha256: sheet.sha256,
      generatedAt: options.generatedAt,
      rows: sheet.rows.size,
      orders: sheet.orders.length,
      counts: summary.statuses,
      issueCounts: summary.issueCodes,
      notes,
    },
  };
  try {
    mkdirSync(dirname(path), { recursive: true });
    checkRoomForResult(path, format, sheet.sizeBytes);
    if (format === 'csv') await writeResultCsv(path, input);
    // exceljs is loaded only for a workbook result (~0.4 s of module loading a CSV run does without).
    else await (await import('../output-files/write-result-xlsx.js')).writeResultXlsx(path, input, { sourcesOfSale: options.sourcesOfSale });
  } catch (error) {
    throw toOutputError(error, path, 'the result file', RESULT_REMEDY) ?? error;
  }
  return path;
}

/** The result's size per byte of the input: its rows again, with status and issues (a workbook is packed). */
const RESULT_BYTES_PER_FILE_BYTE = { csv: 1.2, xlsx: 0.6 } as const;

/** Refuses to start a result file the disk has no room for (a half-written one would be thrown away anyway). */
export function checkRoomForResult(path: string, format: 'csv' | 'xlsx', inputBytes: number | undefined, freeBytesIn = freeDiskBytes): void {
  if (inputBytes === undefined) return;
  const needed = Math.ceil(inputBytes * RESULT_BYTES_PER_FILE_BYTE[format]);
  const free = freeBytesIn(dirname(path));
  if (free === null || free >= needed) return;
  throw new OutputError(
    path,
    'ENOSPC',
    `Could not write the result file ${path}: it needs about ${formatDiskSize(needed)} and ${formatDiskSize(free, 'down')} is free on that disk. Free some space, or write it elsewhere with --out <file or folder>, and run the command again.`,
  );
}

const RESULT_REMEDY = 'Write it somewhere you can with --out <file or folder>, or make that folder writable, and run the command again.';
