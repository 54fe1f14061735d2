/** What the readers hand to the checker: typed cells, row numbers as a spreadsheet shows them. */
import type { Issue } from '../issues/index.js';

/**
 * A cell as read. CSV cells are always strings (raw, untrimmed). XLSX cells keep their type:
 * numbers, booleans, Date for date cells (its UTC fields are the wall-clock time shown in the
 * sheet), the cached result for formulas, text for rich text, null for empty.
 */
export type CellValue = string | number | boolean | Date | null;

export interface RawRow {
  /** 1-based spreadsheet row number; the header is row 1 (or the row the header was found on). */
  rowNumber: number;
  /** One entry per header column (shorter rows padded with null up to 1,024 columns, extra cells kept beyond). */
  cells: CellValue[];
}

export type SheetFormat = 'csv' | 'xlsx';

export interface OpenedSheet {
  file: string;
  format: SheetFormat;
  /** The worksheet read (xlsx) or undefined (csv). */
  sheetName?: string;
  /** Header texts as written in the file, trimmed. */
  headers: string[];
  /** Row number of the header row (1 unless leading blank rows were skipped). */
  headerRow: number;
  /** Size of the file in bytes, for progress. */
  sizeBytes: number;
  /** A CSV's column separator (`,` `;` or tab), as detected; absent for a workbook. */
  csvDelimiter?: string;
  /** Data rows in batches, in sheet order; fully blank rows are skipped (their numbers are not reused). */
  rows: AsyncIterable<RawRow[]>;
  /** Bytes consumed so far, for a progress bar (best effort). */
  bytesRead(): number;
  /** SHA-256 of the file's bytes, hex; complete once `rows` has been fully consumed. */
  sha256(): string;
  /**
   * What the reader decided on the user's behalf and must tell them, one sentence each naming the file
   * (e.g. that the Fix sheet of a result workbook was read). Absent or empty when there is nothing to say.
   */
  notices?: readonly string[];
  /**
   * What the reader found wrong with the file as a whole, in the shape of issues: the header row below a title
   * (missing_column), other worksheets holding orders that were not read (unread_sheet), rows not in the file's
   * encoding (mixed_encoding), cells past the last column (unknown_column). Complete once `rows` has been fully
   * consumed (most are found while reading); before that, what is known so far.
   */
  issues?(): ReaderIssue[];
}

/** Issue codes the reader raises while reading (the header's own are mapHeaders'). */
export type ReaderIssueCode = 'missing_column' | 'unknown_column' | 'unread_sheet' | 'mixed_encoding';

export type ReaderIssue = Omit<Issue, 'code' | 'colIndex'> & { code: ReaderIssueCode };

/** The worksheet of an order-batch result workbook (its Results, Fix and Summary sheets) to read when none is named. */
export type ResultSheetChoice = 'Fix' | 'Results';

export interface ReadOptions {
  /** Worksheet name for xlsx; default the first visible worksheet (but see resultSheet). */
  sheet?: string;
  /**
   * Which sheet of a result workbook written by this tool is read when `sheet` is not given. 'Fix' (the
   * default: validate and import) reads only the rows to correct, so a corrected result is uploaded again
   * without resending every row; 'Results' reads every input row with its status (reconcile --orders).
   */
  resultSheet?: ResultSheetChoice;
}
