/**
 * A job's result as CSV (`?format=csv`): the Results sheet of its workbook, cell by cell as shown,
 * written once beside the workbook and served from there afterwards.
 */
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import { extname } from 'node:path';
import ExcelJS from 'exceljs';
import Papa from 'papaparse';
import { PRIVATE_FILE_MODE } from '../work-dir.js';

/** The CSV beside `workbook` (the file itself when the result is CSV already). */
export async function resultCsvOf(workbook: string): Promise<string> {
  if (extname(workbook).toLowerCase() === '.csv') return workbook;
  const csv = workbook.replace(/\.xlsx$/i, '.csv');
  if (existsSync(csv)) return csv;
  const book = new ExcelJS.Workbook();
  await book.xlsx.readFile(workbook);
  const sheet = book.getWorksheet('Results') ?? book.worksheets[0];
  const rows: string[][] = [];
  sheet?.eachRow({ includeEmpty: true }, (row) => {
    const cells: string[] = [];
    for (let c = 1; c <= sheet.columnCount; c++) cells.push(row.getCell(c).text ?? '');
    rows.push(cells);
  });
  // Written whole, then renamed: a download running at the same time never reads half a file.
  const partial = `${csv}.partial`;
  writeFileSync(partial, `\uFEFF${Papa.unparse(rows)}\r\n`, { mode: PRIVATE_FILE_MODE });
  renameSync(partial, csv);
  return csv;
}
