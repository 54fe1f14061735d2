/**
 * Reading workbooks back in tests: exceljs for the model, and the raw XML parts for what exceljs does not
 * read back (VML note ids, defined names). jszip is exceljs's own dependency, used here only to unzip.
 */
import { readFileSync } from 'node:fs';
import ExcelJS from 'exceljs';
import JSZip from 'jszip';

export async function readWorkbook(path: string): Promise<ExcelJS.Workbook> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(path);
  return workbook;
}

export function sheet(workbook: ExcelJS.Workbook, name: string): ExcelJS.Worksheet {
  const found = workbook.getWorksheet(name);
  if (!found) throw new Error(`no sheet ${name}`);
  return found;
}

/** The text of every part whose path matches, by path. */
export async function readParts(path: string, pattern: RegExp): Promise<Map<string, string>> {
  const zip = await JSZip.loadAsync(readFileSync(path));
  const parts = new Map<string, string>();
  for (const name of Object.keys(zip.files).sort()) {
    if (pattern.test(name)) parts.set(name, await zip.file(name)!.async('string'));
  }
  return parts;
}

/** Row values as an array from column 1 (exceljs rows are 1-based with a hole at 0). */
export function rowValues(worksheet: ExcelJS.Worksheet, row: number): unknown[] {
  const values = worksheet.getRow(row).values as unknown[];
  return values.slice(1);
}

/** The validations of a worksheet (exceljs reads them but its typings omit them). */
export function validationsOf(worksheet: ExcelJS.Worksheet): Record<string, ExcelJS.DataValidation | undefined> {
  return (worksheet as unknown as { dataValidations: { model: Record<string, ExcelJS.DataValidation | undefined> } }).dataValidations.model;
}

export function fillOf(cell: ExcelJS.Cell): string | undefined {
  const fill = cell.fill as ExcelJS.FillPattern | undefined;
  return fill?.type === 'pattern' && fill.pattern === 'solid' ? fill.fgColor?.argb : undefined;
}

export function noteOf(cell: ExcelJS.Cell): string | undefined {
  const note = cell.note as string | ExcelJS.Comment | undefined;
  if (note === undefined || typeof note === 'string') return note;
  return note.texts?.map((t) => t.text).join('');
}
