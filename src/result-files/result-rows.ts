/**
 * Turns checked (and, for import, submitted) orders into the rows of a result file: each input row
 * with its order's status, its own issues, and pointers to the rows that make the order bad.
 */
import type { Issue } from '../issues/index.js';
import type { CheckedSheet } from '../orders/types.js';
import type { ResultRow } from '../output-files/types.js';
import type { CellValue } from '../sheet/types.js';

export interface OrderOutcomeView {
  status: string;
  issues: readonly Issue[];
  /** Extra columns for every row of the order (import: httpStatus, requestId, submittedAt). */
  extra?: Record<string, string | number | null>;
  needsFix: boolean;
}

/** The outcome of each order of a sheet, by the order's position: an array, or a list that builds each when asked. */
export interface OrderOutcomes {
  readonly length: number;
  at(index: number): OrderOutcomeView | undefined;
}

/** An order's outcome with its issues by row, and the rows of its errors (null when it has none). */
interface OrderRows {
  outcome: OrderOutcomeView | undefined;
  issuesByRow: Map<number, Issue[]> | null;
  errorRows: number[] | null;
}

/** Orders whose issues are kept at hand while rows are written: an order's rows are mostly near each other. */
const CACHED_ORDERS = 4_096;
const NO_ISSUES: Issue[] = [];

/**
 * Rows of the sheet in order, each joined with the outcome of its order (`outcomes.at(i)` belongs to the sheet's
 * order i), streamed: only the orders of the rows around the one being written are at hand.
 */
export function* buildResultRows(sheet: CheckedSheet, outcomes: OrderOutcomes): Generator<ResultRow> {
  // Each order has one place in the cache, by its index (orders near each other never share one): no Map
  // whose oldest entries are deleted one by one, which gets slower the more were deleted.
  const cachedIndex = new Int32Array(CACHED_ORDERS).fill(-1);
  const cached = new Array<OrderRows | undefined>(CACHED_ORDERS);
  const rowsOf = (index: number): OrderRows => {
    const slot = index % CACHED_ORDERS;
    if (cachedIndex[slot] === index) return cached[slot]!;
    const entry = describeOrder(outcomes.at(index));
    cachedIndex[slot] = index;
    cached[slot] = entry;
    return entry;
  };
  // A kept line is one cell per column of the sheet as checked: a sheet read through a profile has more columns than it writes back (and keeps no lines).
  const writesLines = sheet.rows.width === sheet.headers.length;
  for (const kept of sheet.rows.asKept()) {
    const { rowNumber, line } = kept;
    const typedCells = kept.cells === null ? kept.typedCells : undefined;
    const index = sheet.orderIndexOfRow(rowNumber);
    const order = index === undefined ? undefined : rowsOf(index);
    const outcome = order?.outcome;
    const issues = order?.issuesByRow?.get(rowNumber) ?? NO_ISSUES;
    const status = outcome?.status ?? 'invalid';
    const needsFix = outcome?.needsFix ?? true;
    const related = order?.errorRows && !issues.some((i) => i.severity === 'error') ? order.errorRows : undefined;
    if (line !== null && writesLines) {
      yield new LineResultRow(rowNumber, line, status, issues, needsFix, outcome?.extra, related, typedCells);
      continue;
    }
    const row: ResultRow = { rowNumber, cells: kept.cells ?? typedCells?.() ?? kept.line.split(','), status, issues, needsFix };
    if (outcome?.extra) row.extra = outcome.extra;
    if (related) row.relatedErrorRows = related;
    yield row;
  }
}

/**
 * A result row over a row kept as its line: the CSV writer writes the line, and the cells are split from it (or
 * decoded, when they are not all text) only if asked for.
 */
class LineResultRow implements ResultRow {
  #cells: CellValue[] | null = null;

  constructor(
    readonly rowNumber: number,
    readonly line: string,
    readonly status: string,
    readonly issues: Issue[],
    readonly needsFix: boolean,
    readonly extra: Record<string, string | number | null> | undefined,
    readonly relatedErrorRows: number[] | undefined,
    private readonly typedCells: (() => CellValue[]) | undefined,
  ) {}

  get cells(): CellValue[] {
    return (this.#cells ??= this.typedCells?.() ?? this.line.split(','));
  }
}

function describeOrder(outcome: OrderOutcomeView | undefined): OrderRows {
  if (outcome === undefined || outcome.issues.length === 0) return { outcome, issuesByRow: null, errorRows: null };
  const issuesByRow = new Map<number, Issue[]>();
  let errorRows: Set<number> | null = null;
  for (const issue of outcome.issues) {
    if (issue.row === null) continue;
    let list = issuesByRow.get(issue.row);
    if (!list) issuesByRow.set(issue.row, (list = []));
    list.push(issue);
    if (issue.severity === 'error') (errorRows ??= new Set<number>()).add(issue.row);
  }
  return { outcome, issuesByRow, errorRows: errorRows === null ? null : [...errorRows].sort((a, b) => a - b) };
}

/** What a result file's summary counts, in one pass over the outcomes. */
export function summarizeOutcomes(outcomes: OrderOutcomes, fileIssues: readonly Issue[]): { statuses: Record<string, number>; issueCodes: Record<string, number>; computedTotals: number } {
  const statuses: Record<string, number> = {};
  const issueCodes = countIssueCodes([fileIssues]);
  let computedTotals = 0;
  for (let i = 0; i < outcomes.length; i++) {
    const outcome = outcomes.at(i)!;
    statuses[outcome.status] = (statuses[outcome.status] ?? 0) + 1;
    let isComputed = false;
    for (const issue of outcome.issues) {
      issueCodes[issue.code] = (issueCodes[issue.code] ?? 0) + 1;
      if (issue.code === 'computed_total') isComputed = true;
    }
    if (isComputed) computedTotals++;
  }
  return { statuses, issueCodes, computedTotals };
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
