/**
 * The run report of PRODUCT.md section 4: what validate, import and reconcile found, as --json prints
 * it (text.ts words it for a person). The web app keeps it per job.
 */
import { issueToJson, type Issue } from '../issues/index.js';
import type { FileMapping } from '../mapping/choose.js';

export interface JsonInput {
  file: string;
  sha256: string | null;
  rows: number;
  orders: number;
  /** Present when the file could not be used at all (unreadable, unsupported, empty, missing column). */
  error?: { code: string; message: string };
  /** File-level warnings and errors (unknown_column, missing_column). */
  issues?: ReturnType<typeof issueToJson>[];
  /** How the file was read, when a user should know (a result workbook read on its Fix sheet, its decimal mark). */
  notices?: string[];
  /** The mapping profile the file was read with (detected from its headers, or named with --mapping). */
  mapping?: FileMapping;
}

export interface JsonOrder {
  customerOrderId: string | null;
  file?: string;
  rows: number[];
  status: string;
  httpStatus?: number;
  requestId?: string;
  submittedAt?: string;
  issues: ReturnType<typeof issueToJson>[];
}

/** A file the run could not write: a result file, or a sheet it could not move into the archive. */
export interface JsonOutputError {
  /** The input sheet it belongs to. */
  file: string;
  /** The file that could not be written or moved. */
  path: string;
  /** The system error code (EACCES, ENOSPC...), or null when the cause was not the file system. */
  code: string | null;
  message: string;
}

/** import --archive: where a sheet (and its result, unless that one could not be moved) went. */
export interface JsonArchived {
  /** The input sheet, as it was named. */
  file: string;
  /** Where the sheet is now. */
  sheet: string;
  /** Where its result file is now (also in `output`). */
  result?: string;
}

/** import --archive: a sheet left where it was, with its result, because it holds orders someone must still act on. */
export interface JsonKept {
  /** The input sheet, where it still is. */
  file: string;
  /** Its result file (its Fix sheet holds the orders to correct). */
  result: string;
  /** Why it stays, and what to do. */
  reason: string;
}

/** A file of a folder given as input that is not an order sheet, and why (a note, Excel's lock file, a result file). */
export interface JsonSkipped {
  file: string;
  reason: string;
}

export interface JsonReport {
  command: 'validate' | 'import' | 'reconcile';
  input: JsonInput[];
  summary: Record<string, number>;
  /**
   * import: orders reported already_submitted whose sheet contents differ from the version sent
   * (by an earlier run, or by this run from another file): the change was not applied. Present when
   * there are any (exit code 1).
   */
  contentsDiffer?: number;
  orders: unknown[];
  /** The result files written, where they are now (in the archive after --archive); a file that could not be written is in outputErrors instead. */
  output: string | string[] | null;
  /** import --archive: the sheets moved into the archive, and where. */
  archived?: JsonArchived[];
  /** import --archive: the sheets left in place, and why. */
  kept?: JsonKept[];
  /** validate, import: the files of the folders given that were passed over as no order sheets. */
  skipped?: JsonSkipped[];
  /** Present only when some file could not be written (exit code 2); the orders' outcomes stand all the same. */
  outputErrors?: JsonOutputError[];
  /**
   * import: present when the ledger could not be used (a full disk, a damaged file; exit code 2): nothing
   * was sent after it failed, and the orders' outcomes say what was settled before.
   */
  ledgerError?: { ledger: string; message: string };
}

export function toJsonIssues(issues: readonly Issue[]): ReturnType<typeof issueToJson>[] {
  return issues.map(issueToJson);
}

/** One output path for one file (the documented shape); a list when several files were processed. */
export function outputField(paths: readonly string[]): string | string[] | null {
  if (paths.length === 0) return null;
  if (paths.length === 1) return paths[0] ?? null;
  return [...paths];
}
