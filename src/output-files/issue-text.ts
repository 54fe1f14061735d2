/** How issues read inside a result cell and a cell note: one line per issue, the column first. */
import type { Issue } from '../issues/index.js';
import type { ResultRow } from './types.js';

/** `postalOrZipCode: ZIP code "1234" ...`; a warning says so after its column so the eye still lands on the column. */
export function formatIssueLine(issue: Issue): string {
  const marker = issue.severity === 'warning' ? ' (warning)' : '';
  if (issue.column) return `${issue.column}${marker}: ${issue.message}`;
  return issue.severity === 'warning' ? `warning: ${issue.message}` : issue.message;
}

/** "order has errors on row 2" / "... on rows 2, 5": points a clean row at the rows of its order that need work. */
export function formatRelatedRows(rows: readonly number[]): string {
  return `order has errors on ${rows.length === 1 ? 'row' : 'rows'} ${rows.join(', ')}`;
}

/**
 * The `issues` cell of a result row: errors first, then warnings, each on its own line; a row with
 * no error of its own whose order has errors elsewhere says where.
 */
export function formatRowIssues(row: Pick<ResultRow, 'issues' | 'relatedErrorRows'>): string {
  // Most rows are clean: no work, no allocation.
  if (row.issues.length === 0 && !row.relatedErrorRows?.length) return '';
  const lines: string[] = [];
  let hasError = false;
  for (const issue of row.issues) {
    if (issue.severity === 'error') {
      hasError = true;
      lines.push(formatIssueLine(issue));
    }
  }
  for (const issue of row.issues) if (issue.severity !== 'error') lines.push(formatIssueLine(issue));
  if (!hasError && row.relatedErrorRows && row.relatedErrorRows.length > 0) lines.push(formatRelatedRows(row.relatedErrorRows));
  return lines.join('\n');
}

export interface CellIssues {
  /** 0-based input column index. */
  colIndex: number;
  severity: 'error' | 'warning';
  /** The messages for this one cell, one per line (the note text). */
  note: string;
}

/** The issues that point at single cells, grouped per cell: an error on a cell outranks a warning on it. */
export function groupCellIssues(issues: readonly Issue[]): CellIssues[] {
  const byCol = new Map<number, CellIssues>();
  for (const issue of issues) {
    if (issue.colIndex === undefined || issue.colIndex < 0) continue;
    const line = issue.severity === 'warning' ? `(warning) ${issue.message}` : issue.message;
    const found = byCol.get(issue.colIndex);
    if (found) {
      found.note += `\n${line}`;
      if (issue.severity === 'error') found.severity = 'error';
    } else {
      byCol.set(issue.colIndex, { colIndex: issue.colIndex, severity: issue.severity, note: line });
    }
  }
  return [...byCol.values()];
}
