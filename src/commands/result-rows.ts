/**
 * Turns checked (and, for import, submitted) orders into the rows of a result file: each input row
 * with its order's status, its own issues, and pointers to the rows that make the order bad.
 */
import type { Issue } from '../issues/index.js';
import type { CheckedSheet } from '../orders/types.js';
import type { ResultRow } from '../output-files/types.js';
import { CompactRowStore } from '../orders/row-store.js';
import type { CellValue } from '../sheet/types.js';

export interface OrderOutcomeView {
  status: string;
  issues: readonly Issue[];
  /** Extra columns for every row of the order (import: httpStatus, requestId, submittedAt). */
  extra?: Record<string, string | number | null>;
  needsFix: boolean;
}

/**
 * Rows of the sheet in order, each joined with the outcome of its order (`outcomes[i]` belongs to `sheet.orders[i]`).
 * `withCells: false` leaves every row's cells empty, sparing their decoding, for a writer that has them as text already.
 */
export function* buildResultRows(sheet: CheckedSheet, outcomes: readonly OrderOutcomeView[], options: { withCells?: boolean } = {}): Generator<ResultRow> {
  const issuesByRow = new Map<number, Issue[]>();
  // Only orders with errors get an entry: a million-row sheet has hundreds of thousands of clean orders.
  const errorRowsByOrder = new Map<number, number[]>();
  outcomes.forEach((outcome, index) => {
    let errorRows: Set<number> | null = null;
    for (const issue of outcome.issues) {
      if (issue.row === null) continue;
      let list = issuesByRow.get(issue.row);
      if (!list) issuesByRow.set(issue.row, (list = []));
      list.push(issue);
      if (issue.severity === 'error') (errorRows ??= new Set<number>()).add(issue.row);
    }
    if (errorRows !== null) errorRowsByOrder.set(index, [...errorRows].sort((a, b) => a - b));
  });

  const rows = options.withCells === false && sheet.rows instanceof CompactRowStore ? withoutCells(sheet.rows) : sheet.rows;
  for (const { rowNumber, cells } of rows) {
    const index = sheet.orderIndexOfRow(rowNumber);
    const outcome = index === undefined ? undefined : outcomes[index];
    const issues = issuesByRow.get(rowNumber) ?? [];
    const row: ResultRow = {
      rowNumber,
      cells,
      status: outcome?.status ?? 'invalid',
      issues,
      needsFix: outcome?.needsFix ?? true,
    };
    if (outcome?.extra) row.extra = outcome.extra;
    if (index !== undefined && !issues.some((i) => i.severity === 'error')) {
      const related = errorRowsByOrder.get(index);
      if (related !== undefined) row.relatedErrorRows = related;
    }
    yield row;
  }
}

const NO_CELLS: CellValue[] = [];

function* withoutCells(store: CompactRowStore): Generator<{ rowNumber: number; cells: CellValue[] }> {
  for (let i = 0; i < store.size; i++) yield { rowNumber: store.rowNumberAt(i), cells: NO_CELLS };
}

/** Orders per status, in a stable key order. */
export function countByStatus(statuses: Iterable<string>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const s of statuses) counts[s] = (counts[s] ?? 0) + 1;
  return counts;
}

export function countIssueCodes(issueLists: Iterable<readonly Issue[]>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const list of issueLists) for (const issue of list) counts[issue.code] = (counts[issue.code] ?? 0) + 1;
  return counts;
}
