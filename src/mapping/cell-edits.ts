/**
 * Cells corrected by hand (in the web app's verdict table), laid over a sheet's rows as they are read:
 * the checker, the result file and the submission all see the corrected value, the file stays as it came.
 */
import type { OpenedSheet, RawRow } from '../sheet/types.js';

export interface CellEdit {
  /** Spreadsheet row number (the header is row 1). */
  row: number;
  /** 0-based column of the source file. */
  col: number;
  value: string;
  /** Who made it and when (ISO), for the page. */
  by: string;
  at: string;
}

/** The latest edit of each cell. */
export function latestEdits(edits: readonly CellEdit[]): Map<number, Map<number, CellEdit>> {
  const byRow = new Map<number, Map<number, CellEdit>>();
  for (const edit of edits) {
    let row = byRow.get(edit.row);
    if (row === undefined) byRow.set(edit.row, (row = new Map()));
    row.set(edit.col, edit);
  }
  return byRow;
}

/** The sheet with its edited cells replaced as rows stream. */
export function applyCellEdits(opened: OpenedSheet, edits: readonly CellEdit[]): OpenedSheet {
  if (edits.length === 0) return opened;
  const byRow = latestEdits(edits);
  async function* editedRows(): AsyncGenerator<RawRow[]> {
    for await (const batch of opened.rows) {
      for (const raw of batch) {
        const row = byRow.get(raw.rowNumber);
        if (row === undefined) continue;
        for (const [col, edit] of row) if (col < opened.headers.length) raw.cells[col] = edit.value;
      }
      yield batch;
    }
  }
  return { ...opened, rows: editedRows() };
}
