/** What the result writers take: the input row for row, each with its order's status and its own issues. */
import type { Issue } from '../issues/index.js';
import type { Field } from '../sheet/columns.js';
import type { CellValue } from '../sheet/types.js';

export interface ResultRow {
  rowNumber: number;
  cells: CellValue[];
  /**
   * The cells joined by commas, none holding one, one per header, when the row was kept so (RawRow.line):
   * the CSV writer then writes this text rather than looking at each cell.
   */
  line?: string | undefined;
  /** The order's status (validate: valid | invalid; import: accepted | rejected | invalid | already_submitted | failed). */
  status: string;
  /** Issues located on this row (errors and warnings). */
  issues: Issue[];
  /** Rows of the same order that carry errors, when this row has none of its own ("see row 2"). */
  relatedErrorRows?: number[];
  /** Values for the extra columns, e.g. httpStatus, requestId, submittedAt (import). */
  extra?: Record<string, string | number | null>;
  /** True when the row belongs on the Fix sheet (its order must be corrected and uploaded again). */
  needsFix: boolean;
}

export interface ResultSummary {
  command: 'validate' | 'import';
  file: string;
  sheetName?: string;
  sha256: string;
  generatedAt: Date;
  rows: number;
  orders: number;
  /** Orders per status. */
  counts: Record<string, number>;
  /** Counts per issue code, errors and warnings. */
  issueCounts: Record<string, number>;
  /** Extra lines for the Summary sheet, e.g. "subTotal computed for 3 orders" or the API used. */
  notes: string[];
}

export interface ResultSheetInput {
  headers: string[];
  headerRow: number;
  /** Field of each input column (null for an unknown one), for the Fix sheet's template form. */
  columns: (Field | null)[];
  /** Names of extra columns after status and issues, e.g. ['httpStatus', 'requestId', 'submittedAt']. */
  extraColumns: string[];
  /** File-level issues (unknown_column warnings and the like), shown on the Summary sheet. */
  fileIssues: Issue[];
  /** Rows in sheet order; may be consumed once (streamed). */
  rows: Iterable<ResultRow>;
  summary: ResultSummary;
}
