/** The machine-readable report of PRODUCT.md section 4, printed by --json. */
import { issueToJson, type Issue } from '../issues/index.js';

export interface JsonInput {
  file: string;
  sha256: string | null;
  rows: number;
  orders: number;
  /** Present when the file could not be used at all (unreadable, unsupported, empty, missing column). */
  error?: { code: string; message: string };
  /** File-level warnings and errors (unknown_column, missing_column). */
  issues?: ReturnType<typeof issueToJson>[];
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

export interface JsonReport {
  command: 'validate' | 'import' | 'reconcile';
  input: JsonInput[];
  summary: Record<string, number>;
  orders: unknown[];
  output: string | string[] | null;
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
