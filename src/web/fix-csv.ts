/**
 * The Fix sheet as a CSV: the same rows the result workbook's Fix sheet holds (output-files' fix-sheet
 * collector picks them, in template form), for people who would rather correct a plain CSV and
 * upload it again. The `issues` column says what to correct; the checker ignores it on re-upload.
 */
import { writeFile } from 'node:fs/promises';
import Papa from 'papaparse';
import { buildResultRows } from '../result-files/result-rows.js';
import { validationOutcome } from '../validate/run-validate.js';
import type { Issue } from '../issues/index.js';
import type { CheckedSheet } from '../orders/types.js';
import { MAX_FIX_ROWS } from '../output-files/write-result-xlsx.js';
import { toCsvValue } from '../output-files/cell-values.js';
import { createFixCollector } from '../output-files/fix-sheet.js';
import { TEMPLATE_HEADERS } from '../output-files/template-form.js';
import { UNPARSE_CONFIG } from '../output-files/write-result-csv.js';
import { PRIVATE_FILE_MODE } from './work-dir.js';

/**
 * Writes the Fix CSV; returns how many rows it holds (0: nothing to fix, and no file is written).
 * `issuesOf` gives each order's issues when the API added some (products, stock); default the sheet's.
 */
export async function writeFixCsv(path: string, sheet: CheckedSheet, issuesOf?: (index: number) => readonly Issue[]): Promise<number> {
  const outcomes = sheet.orders.map((o, i) => validationOutcome(issuesOf?.(i) ?? o.issues));
  const collector = createFixCollector(sheet.columns, MAX_FIX_ROWS);
  for (const row of buildResultRows(sheet, outcomes)) collector.add(row);
  const fix = collector.finish();
  if (fix.rows.length === 0) return 0;
  const data = fix.rows.map((row) => [...row.values.map((v) => toCsvValue(v)), row.issues]);
  const text = Papa.unparse({ fields: [...TEMPLATE_HEADERS, 'issues'], data }, UNPARSE_CONFIG);
  // A BOM so Excel reads UTF-8, as the result CSV and the template do.
  await writeFile(path, `\ufeff${text}\r\n`, { encoding: 'utf8', mode: PRIVATE_FILE_MODE });
  return fix.rows.length;
}
