/**
 * The result workbook (PRODUCT.md section 4), written with exceljs's streaming writer so a million
 * rows never sit in memory.
 *
 * Sheet order: Results, Fix, Summary, Lists (hidden), with Summary the active tab, so the workbook
 * opens on the Summary. Why not Summary first: the streaming writer zips sheets in the order they are
 * added and holds a later sheet's bytes in memory until the earlier ones end, and Summary's notes (notes
 * or Fix rows cut by a limit) are only known once Results has streamed. A welcome side effect: the
 * first visible sheet, which the reader takes by default, is Results, the user's own rows.
 */
import ExcelJS from 'exceljs';
import { writeFileAtomically } from './atomic-file.js';
import { declareFilterRanges } from './filter-names.js';
import { createFixCollector, writeFixSheet } from './fix-sheet.js';
import { blocksFor, reserveNoteIds, VML_BLOCK_SIZE } from './note-ids.js';
import { tooManyRowsError, writeResultsSheet, XLSX_MAX_ROWS } from './results-sheet.js';
import { writeSummarySheet } from './summary-sheet.js';
import { addListsSheet } from './template-form.js';
import type { ResultSheetInput } from './types.js';
import { printSetup, SUMMARY_PRINT_SETUP } from './xlsx-styles.js';

/** Notes per sheet: Excel slows to a crawl opening far more; past it, cells are still highlighted and the issues column still says it all. */
export const MAX_NOTES_PER_SHEET = 10_000;
/** Fix rows kept in memory while Results streams (whole orders only past it). */
export const MAX_FIX_ROWS = 100_000;

export interface ResultXlsxOptions {
  /** Configured sourceOfSale values, for the Fix sheet's dropdown; without them that column gets none. */
  sourcesOfSale?: readonly string[];
}

export async function writeResultXlsx(path: string, input: ResultSheetInput, options: ResultXlsxOptions = {}): Promise<void> {
  if (input.summary.rows > XLSX_MAX_ROWS - Math.max(1, input.headerRow)) {
    throw tooManyRowsError(input.summary.rows.toLocaleString('en-US'));
  }
  await writeFileAtomically(path, (out, signal) => buildWorkbook(out, input, options, signal));
}

async function buildWorkbook(out: NodeJS.WritableStream, input: ResultSheetInput, options: ResultXlsxOptions, signal: AbortSignal): Promise<void> {
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({
    stream: out as never,
    useStyles: true,
    // Inline strings: shared strings would hold every distinct value of a million rows in memory.
    useSharedStrings: false,
  });
  workbook.creator = 'order-batch';
  workbook.created = input.summary.generatedAt;

  // Each sheet's notes get their own VML id blocks (note-ids.ts), sized from the issue counts, an upper
  // bound on the notes; the limit keeps a wrong count from ever overflowing the blocks.
  const expectedNotes = Object.values(input.summary.issueCounts).reduce((a, b) => a + b, 0) + input.fileIssues.length;
  const resultsBlocks = blocksFor(Math.min(MAX_NOTES_PER_SHEET, expectedNotes));
  const headerRow = Math.max(1, input.headerRow);
  const results = workbook.addWorksheet('Results', {
    views: [{ state: 'frozen', ySplit: headerRow, activeCell: `A${headerRow + 1}` }],
    pageSetup: printSetup(headerRow),
  });
  const resultsNotes = reserveNoteIds(results, 1, resultsBlocks);
  const resultsNoteLimit = resultsNotes ? Math.min(MAX_NOTES_PER_SHEET, resultsBlocks * VML_BLOCK_SIZE - 1) : 0;
  const collector = createFixCollector(input.columns, MAX_FIX_ROWS);
  const stats = await writeResultsSheet(results, input, { noteLimit: resultsNoteLimit, onRow: (row) => collector.add(row), signal });
  results.commit();

  const fixRows = collector.finish();
  const fix = workbook.addWorksheet('Fix', { views: [{ state: 'frozen', ySplit: 1, activeCell: 'A2' }], pageSetup: printSetup(1) });
  // Without distinct id blocks two sheets of notes make Excel repair the file (see note-ids.ts); then only Results has notes.
  const fixCells = fixRows.rows.reduce((n, r) => n + r.cells.length, 0);
  const fixBlocks = blocksFor(Math.min(MAX_NOTES_PER_SHEET, fixCells));
  const fixNotesAllowed = resultsNotes && reserveNoteIds(fix, 1 + resultsBlocks, fixBlocks);
  // tabSelected is written by exceljs but missing from its typings.
  const summary = workbook.addWorksheet('Summary', {
    views: [{ tabSelected: true } as Partial<ExcelJS.WorksheetView>],
    pageSetup: SUMMARY_PRINT_SETUP,
  });
  const lists = addListsSheet(workbook, options.sourcesOfSale ?? []);
  const fixSheet = await writeFixSheet(fix, fixRows, {
    signal,
    lists: lists.ranges,
    hasSourcesOfSale: (options.sourcesOfSale?.length ?? 0) > 0,
    noteLimit: fixNotesAllowed ? Math.min(MAX_NOTES_PER_SHEET, fixBlocks * VML_BLOCK_SIZE - 1) : 0,
  });
  fix.commit();

  const writerNotes: string[] = [];
  for (const [name, written, skipped] of [['Results', stats.notes, stats.notesSkipped], ['Fix', fixSheet.notes, fixSheet.notesSkipped]] as const) {
    if (skipped === 0 || (name === 'Fix' && !fixNotesAllowed)) continue;
    writerNotes.push(
      `${name}: notes were added to the first ${written.toLocaleString('en-US')} cells with a problem; ${skipped.toLocaleString('en-US')} more are highlighted without a note (the issues column lists every message).`,
    );
  }
  if (fixRows.droppedRows > 0) {
    writerNotes.push(
      `The Fix sheet holds ${fixRows.rows.length.toLocaleString('en-US')} rows; ${fixRows.droppedRows.toLocaleString('en-US')} more rows to correct (whole orders) are only on Results: filter its status column.`,
    );
  }
  if (!fixNotesAllowed && fixRows.rows.some((r) => r.cells.length > 0)) {
    writerNotes.push('The Fix sheet highlights cells without notes; its issues column has the messages.');
  }
  writeSummarySheet(summary, input, { fixRows: fixRows.rows.length, writerNotes });
  summary.commit();
  lists.sheet.commit();

  declareFilterRanges(workbook, [
    { sheetIndex: 0, sheetName: 'Results', firstRow: stats.headerRow, lastRow: stats.lastRow, lastColumn: stats.lastColumn },
    { sheetIndex: 1, sheetName: 'Fix', firstRow: 1, lastRow: fixSheet.lastRow, lastColumn: fixSheet.lastColumn },
  ]);
  // Sheets: Results 0, Fix 1, Summary 2. Open on the Summary.
  workbook.views = [{ x: 0, y: 0, width: 20000, height: 12000, firstSheet: 0, activeTab: 2, visibility: 'visible' }];
  await workbook.commit();
}
