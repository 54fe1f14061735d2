/**
 * An order while its rows are being read: the first value of each order-level field (to spot
 * conflicting rows), running totals in cents, line IDs, and the issues so far; and how an order
 * no longer being read shrinks to what finishing it needs.
 */
import { severityOf, type Issue, type IssueCode } from '../issues/index.js';
import type { CellValue } from '../sheet/types.js';
import type { CellCheck, CellProblem } from './cells.js';
import type { PlannedField, SheetPlan } from './plan.js';
import { detach } from './text.js';

export type RefValue = string | number | undefined;

export interface LineDraft {
  productId: string;
  customerLineItemId: string;
  name: string;
  quantity: number;
  unitPriceCents: number;
  discountCents: number | null;
}

/** The stored cells of a row of this sheet, for reading back what a closed order dropped. */
export interface RowSource {
  cellsOf(rowNumber: number): readonly CellValue[];
}

export class OrderDraft {
  rows: number[] = [];
  issues: Issue[] | null = null;
  /**
   * First valid value of each order-level field, by plan slot. Once the order is closed only the
   * kept prefix (plan.keptSlots) remains; openDraft reads the rest back from the stored rows.
   */
  refs: RefValue[];
  /** Slots that have a reference value (bit per slot). */
  hasRef = 0;
  /** While open: the cell check last found consistent with each reference value (skips comparing repeats). */
  confirmed: (CellCheck | undefined)[] | null = null;
  /** Row each reference value came from, when not the first row (0 = the first row). */
  refRows: number[] | null = null;
  /** Order-level fields with a non-blank cell on some row (bit per slot). */
  seen = 0;
  hasError = false;
  isOpen = true;
  /**
   * customerLineItemId of each row, parallel to `rows` ('' when blank or unreadable). Null once
   * the order is closed without duplicates: openDraft reads them back from the stored rows.
   */
  lineIds: string[] | null = [];
  subTotalCents = 0;
  discountTotalCents = 0;
  /** Some line has a non-zero discount: a blank discountTotal is then computed. */
  hasDiscount = false;
  /** Every line has a readable quantity and unitPrice, so totals can be computed. */
  linesComplete = true;
  discountsComplete = true;
  addressLineCount = 0;
  addressOverflow: { row: number; field: PlannedField } | null = null;
  /** ZIP codes seen before the order's country was known. */
  pendingPostal: { row: number; text: string; isNumberCell: boolean }[] | null = null;
  /** Lines, kept only when building the payload. */
  readonly lines: LineDraft[] | null;

  constructor(
    readonly customerOrderId: string | null,
    /** Position among the sheet's orders (order of first rows). */
    readonly index: number,
    slotCount: number,
    keepLines: boolean,
  ) {
    this.refs = new Array<RefValue>(slotCount).fill(undefined);
    this.lines = keepLines ? [] : null;
  }

  refRowOf(slot: number): number {
    const row = this.refRows?.[slot];
    return row === undefined || row === 0 ? this.rows[0]! : row;
  }
}

/**
 * An order no longer being read (the next row belongs to another order) keeps only what finishing
 * it needs: its free text goes (it can be read back from the stored rows), arrays are trimmed.
 * Most sheets list an order's rows together, so most orders are closed once, for good.
 */
export function closeDraft(d: OrderDraft, plan: SheetPlan): void {
  if (!d.isOpen) return;
  d.isOpen = false;
  d.confirmed = null;
  const kept = d.refs.slice(0, plan.keptSlots);
  for (let slot = 0; slot < kept.length; slot++) {
    const value = kept[slot];
    if (typeof value === 'string') kept[slot] = detach(value);
  }
  d.refs = kept;
  d.rows = d.rows.slice();
  if (d.lineIds !== null && !hasDuplicate(d.lineIds)) d.lineIds = null;
}

/**
 * Makes a closed order readable again when another of its rows turns up (rare: most sheets keep
 * an order's rows together): dropped values and line IDs are read back from the stored rows,
 * each row decoded once.
 */
export function openDraft(d: OrderDraft, plan: SheetPlan, source: RowSource): void {
  if (d.isOpen) return;
  d.isOpen = true;
  const decoded = new Map<number, readonly CellValue[]>();
  const cellsOf = (row: number): readonly CellValue[] => {
    let cells = decoded.get(row);
    if (cells === undefined) {
      cells = source.cellsOf(row);
      decoded.set(row, cells);
    }
    return cells;
  };
  const refs = new Array<RefValue>(plan.slotCount).fill(undefined);
  for (let slot = 0; slot < plan.slotCount; slot++) {
    if (slot < plan.keptSlots) {
      refs[slot] = d.refs[slot];
    } else if ((d.hasRef & (1 << slot)) !== 0) {
      const f = plan.bySlot[slot]!;
      refs[slot] = f.checker.checkAside(cellsOf(d.refRowOf(slot))[f.col]).value ?? undefined;
    }
  }
  d.refs = refs;
  if (d.lineIds === null) {
    const f = plan.line.customerLineItemId;
    d.lineIds = d.rows.map((row) => {
      const id = f.col >= 0 ? f.checker.checkAside(cellsOf(row)[f.col]) : null;
      return id !== null && !id.isBlank && id.problem === null ? detach(id.value as string) : '';
    });
  }
}

/** Up to this many lines, duplicate IDs are looked for pairwise (cheaper than a Set per order). */
const PAIRWISE_LIMIT = 16;

/** Some non-blank line ID appears twice. */
export function hasDuplicate(ids: readonly string[]): boolean {
  if (ids.length < 2) return false;
  if (ids.length > PAIRWISE_LIMIT) {
    const seen = new Set<string>();
    for (const id of ids) {
      if (id === '') continue;
      if (seen.has(id)) return true;
      seen.add(id);
    }
    return false;
  }
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    if (id === '') continue;
    for (let j = i + 1; j < ids.length; j++) if (ids[j] === id) return true;
  }
  return false;
}

/** Records an issue at the cell of field `f` on `row` (or the field name when the column is absent). */
export function addIssue(d: OrderDraft, row: number, f: PlannedField, code: IssueCode, message: string): void {
  const severity = severityOf(code);
  const issue: Issue = { row, column: f.header, code, severity, message };
  if (f.col >= 0) issue.colIndex = f.col;
  (d.issues ??= []).push(issue);
  if (severity === 'error') d.hasError = true;
}

export function addProblem(d: OrderDraft, row: number, f: PlannedField, p: CellProblem): void {
  addIssue(d, row, f, p.code, p.message);
}

export function requiredMessage(f: PlannedField, level: 'order' | 'line'): string {
  if (f.field === 'customerOrderId') return `${f.header} is empty: every row must name its order, so repeat the order ID on each of its rows.`;
  return level === 'order' ? `${f.header} is empty: every order needs one.` : `${f.header} is empty: every line needs one.`;
}
