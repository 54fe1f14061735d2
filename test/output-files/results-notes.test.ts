import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { expect, test } from 'vitest';
import { writeResultsSheet } from '../../src/output-files/results-sheet.js';
import type { ResultRow } from '../../src/output-files/types.js';
import { COLORS } from '../../src/output-files/xlsx-styles.js';
import { cells, col, issue, sampleInput } from '../support/result-rows.js';
import { useTempDir } from '../support/temp-dir.js';
import { fillOf, noteOf, readWorkbook, sheet } from '../support/xlsx-files.js';

const file = useTempDir('notes');

test('past the note limit, bad cells are still highlighted but carry no note, and the count says so', async () => {
  const path = file('notes.xlsx');
  const rows: ResultRow[] = [2, 3, 4].map((n) => ({
    rowNumber: n,
    cells: cells(`O-${n}`, { postalOrZipCode: '1' }),
    status: 'invalid',
    issues: [issue(n, 'postalOrZipCode', 'invalid_postal_code', `Bad ZIP on ${n}.`)],
    needsFix: true,
  }));
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: path, useStyles: true });
  const worksheet = workbook.addWorksheet('Results');
  const stats = await writeResultsSheet(worksheet, sampleInput({ fileIssues: [] }, rows), { noteLimit: 2, onRow: () => undefined });
  worksheet.commit();
  await workbook.commit();
  expect(stats).toMatchObject({ notes: 2, notesSkipped: 1, dataRows: 3, lastRow: 4 });

  const results = sheet(await readWorkbook(join(path)), 'Results');
  const zip = (row: number): ExcelJS.Cell => results.getCell(row, col('postalOrZipCode') + 1);
  expect(noteOf(zip(3))).toBe('Bad ZIP on 3.');
  expect(noteOf(zip(4))).toBeUndefined();
  expect(fillOf(zip(4))).toBe(COLORS.errorFill);
});
