/** Writes the result file of one sheet (xlsx or csv by extension), row for row with the outcomes. */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { toOutputError } from '../errors.js';
import type { Logger } from '../log.js';
import { CompactRowStore } from '../orders/row-store.js';
import type { CheckedSheet } from '../orders/types.js';
import { writeResultCsv } from '../output-files/write-result-csv.js';
import type { ResultSheetInput } from '../output-files/types.js';
import { formatOfPath, XLSX_MAX_DATA_ROWS } from './output-path.js';
import { buildResultRows, countByStatus, countIssueCodes, type OrderOutcomeView } from './result-rows.js';

export interface WriteResultOptions {
  command: 'validate' | 'import';
  sheet: CheckedSheet;
  outcomes: readonly OrderOutcomeView[];
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
  if (format === 'xlsx' && sheet.rows.size > XLSX_MAX_DATA_ROWS && options.isDefaultPath) {
    path = path.replace(/\.xlsx$/i, '.csv');
    format = 'csv';
    options.logger.warn({ rows: sheet.rows.size, path }, 'too many rows for an Excel worksheet: writing the result as CSV');
  }
  // A CSV parsed on the worker thread comes with its rows' cells as result-CSV text (see sheet/csv-cell-text.ts).
  const prepared = sheet.rows instanceof CompactRowStore ? sheet.rows.cellText : undefined;
  const cellText = format === 'csv' && prepared !== undefined && prepared.rows === sheet.rows.size ? prepared : undefined;
  const computed = outcomes.reduce((n, o) => n + (o.issues.some((i) => i.code === 'computed_total') ? 1 : 0), 0);
  const notes = [...options.notes];
  if (computed > 0) notes.push(`Totals left blank were computed for ${computed} order${computed === 1 ? '' : 's'} (see the computed_total warnings).`);
  const input: ResultSheetInput = {
    headers: sheet.headers,
    headerRow: sheet.headerRow,
    columns: sheet.columns,
    extraColumns: options.extraColumns,
    fileIssues: sheet.fileIssues,
    rows: buildResultRows(sheet, outcomes, { withCells: cellText === undefined }),
    summary: {
      command: options.command,
      file: sheet.file,
      sheetName: sheet.sheetName,
      sha256: sheet.sha256,
      generatedAt: options.generatedAt,
      rows: sheet.rows.size,
      orders: sheet.orders.length,
      counts: countByStatus(outcomes.map((o) => o.status)),
      issueCounts: countIssueCodes([sheet.fileIssues, ...outcomes.map((o) => o.issues)]),
      notes,
    },
  };
  try {
    mkdirSync(dirname(path), { recursive: true });
    if (format === 'csv') await writeResultCsv(path, input, cellText);
    // exceljs is loaded only for a workbook result (~0.4 s of module loading a CSV run does without).
    else await (await import('../output-files/write-result-xlsx.js')).writeResultXlsx(path, input, { sourcesOfSale: options.sourcesOfSale });
  } catch (error) {
    throw toOutputError(error, path, 'the result file', RESULT_REMEDY) ?? error;
  }
  return path;
}

const RESULT_REMEDY = 'Write it somewhere you can with --out <file or folder>, or make that folder writable, and run the command again.';
