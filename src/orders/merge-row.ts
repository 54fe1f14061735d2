/**
 * Adding one row to its order: cell checks, conflicts with earlier rows, ZIP against country,
 * line totals. This is the hot path of `validate`: one call per row, no regex, no closures, no
 * per-cell allocation (cell checks are remembered per column, see cells.ts).
 */
import { formatCents } from '../contract/money.js';
import { computeTotals, type LineCents } from '../contract/rules.js';
import type { CellValue } from '../sheet/types.js';
import type { CellCheck } from './cells.js';
import { addIssue, addProblem, requiredMessage, type OrderDraft } from './draft.js';
import type { PlannedField, SheetPlan } from './plan.js';
import { detach, quote } from './text.js';

const ONE_LINE: LineCents = { quantity: 0, unitPriceCents: 0, discountCents: null };
const ONE_LINE_LIST: readonly LineCents[] = [ONE_LINE];

/**
 * Adds one row to its order: cell checks, conflicts with earlier rows, line totals. Returns
 * whether every order-level cell (customerOrderId aside) repeats the previous row's, which the
 * row store uses to keep such rows short.
 */
export function mergeRow(d: OrderDraft, row: number, cells: readonly CellValue[], plan: SheetPlan): boolean {
  d.rows.push(row);
  const id = plan.id;
  if (id.col >= 0) {
    const c = id.checker.check(cells[id.col]);
    if (c.isBlank) addIssue(d, row, id, 'required', requiredMessage(id, 'order'));
    else if (c.problem !== null) addProblem(d, row, id, c.problem);
  }

  let isRepeat = true;
  const confirmed = (d.confirmed ??= new Array<CellCheck | undefined>(plan.slotCount).fill(undefined));
  const fields = plan.orderFields;
  for (let k = 0; k < fields.length; k++) {
    const f = fields[k]!;
    const c = f.checker.check(cells[f.col]);
    if (!f.checker.isRepeat) isRepeat = false;
    if (c.isBlank) continue;
    d.seen |= f.bit;
    if (c.problem !== null) {
      addProblem(d, row, f, c.problem);
      if (c.problem.isError) continue;
    }
    if (f.isSummed) {
      addToOrderSum(d, row, f, c.value as number, plan);
      continue;
    }
    if (f.isFirstOnly && d.refs[f.slot] !== undefined) continue;
    if (confirmed[f.slot] === c) continue;
    if (mergeOrderValue(d, row, f, c.value!, plan, c)) confirmed[f.slot] = c;
  }
  if (!mergePostal(d, row, cells, plan)) isRepeat = false;
  mergeLine(d, row, cells, plan);
  return isRepeat;
}

/** Sets or compares the order's value of a field; false when it conflicts with an earlier row. */
function mergeOrderValue(d: OrderDraft, row: number, f: PlannedField, value: string | number, plan: SheetPlan, c: CellCheck | null): boolean {
  const ref = d.refs[f.slot];
  if (ref === undefined) {
    // No copy (see text.ts `detach`): free text is dropped when the order is closed, kept values are copied then.
    d.refs[f.slot] = value;
    d.hasRef |= f.bit;
    if (row !== d.rows[0]) (d.refRows ??= new Array<number>(plan.slotCount).fill(0))[f.slot] = row;
    if (f.isAddressLine && c !== null) countAddressLines(d, row, f, c.lineCount);
    return true;
  }
  if (ref === value) return true;
  const refRow = d.refRowOf(f.slot);
  const message = `${f.header} differs within order ${d.customerOrderId ?? ''}: row ${refRow} has ${showValue(f, ref, plan)}, row ${row} has ${showValue(f, value, plan)}. Use one value on every row of the order (or leave it blank after the first row).`;
  addIssue(d, row, f, 'conflicting_order_value', message);
  addIssue(d, refRow, f, 'conflicting_order_value', message);
  return false;
}

/** A summed field (PlannedField.isSummed): each row's amount adds to the order's. */
function addToOrderSum(d: OrderDraft, row: number, f: PlannedField, cents: number, plan: SheetPlan): void {
  const ref = d.refs[f.slot];
  if (ref === undefined) {
    d.refs[f.slot] = cents;
    d.hasRef |= f.bit;
    if (row !== d.rows[0]) (d.refRows ??= new Array<number>(plan.slotCount).fill(0))[f.slot] = row;
    return;
  }
  d.refs[f.slot] = (ref as number) + cents;
}

function countAddressLines(d: OrderDraft, row: number, f: PlannedField, lines: number): void {
  d.addressLineCount += lines;
  if (d.addressLineCount > 3 && d.addressOverflow === null) d.addressOverflow = { row, field: f };
}

/**
 * ZIP codes depend on the country: US ZIPs are checked (and padded) once the country is known.
 * Returns whether the ZIP cell repeats the previous row's.
 */
function mergePostal(d: OrderDraft, row: number, cells: readonly CellValue[], plan: SheetPlan): boolean {
  const f = plan.postal;
  if (f.col < 0) return true;
  const c = f.checker.check(cells[f.col]);
  const isRepeat = f.checker.isRepeat;
  if (c.isBlank) return isRepeat;
  d.seen |= f.bit;
  if (c.problem !== null && c.problem.isError) {
    addProblem(d, row, f, c.problem);
    return isRepeat;
  }
  const text = c.value as string;
  const isNumberCell = typeof cells[f.col] === 'number';
  const country = plan.country.col >= 0 ? plan.country.checker.check(cells[plan.country.col]) : null;
  const code = country !== null && !country.isBlank && country.problem === null ? country.value : d.refs[plan.country.slot];
  if (code === undefined) {
    (d.pendingPostal ??= []).push({ row, text, isNumberCell });
    return isRepeat;
  }
  applyPostal(d, row, text, isNumberCell, code === 'US', plan);
  return isRepeat;
}

export function applyPostal(d: OrderDraft, row: number, text: string, isNumberCell: boolean, isUs: boolean, plan: SheetPlan): void {
  let value = text;
  if (isUs) {
    const p = plan.checkUsPostal(text, isNumberCell);
    if (p.problem !== null) {
      addProblem(d, row, plan.postal, p.problem);
      if (p.problem.isError) return;
    }
    value = p.value;
  }
  mergeOrderValue(d, row, plan.postal, value, plan, null);
}

/** A line cell: its value, null when blank, undefined when unreadable (issues recorded). */
function lineValue(d: OrderDraft, row: number, f: PlannedField, cells: readonly CellValue[]): string | number | null | undefined {
  if (f.col < 0) return null;
  const c = f.checker.check(cells[f.col]);
  if (c.isBlank) {
    if (f.def.requiredValue) addIssue(d, row, f, 'required', requiredMessage(f, 'line'));
    return null;
  }
  if (c.problem !== null) {
    addProblem(d, row, f, c.problem);
    if (c.problem.isError) return undefined;
  }
  return c.value;
}

function mergeLine(d: OrderDraft, row: number, cells: readonly CellValue[], plan: SheetPlan): void {
  const line = plan.line;
  const productId = lineValue(d, row, line.productId, cells);
  const lineId = lineValue(d, row, line.customerLineItemId, cells);
  const name = lineValue(d, row, line.name, cells);
  const quantity = lineValue(d, row, line.quantity, cells);
  const unitPrice = lineValue(d, row, line.unitPrice, cells);
  const discount = lineValue(d, row, line.discount, cells);
  d.lineIds!.push(typeof lineId === 'string' ? detach(lineId) : '');
  if (discount === undefined) d.discountsComplete = false;
  else if (discount !== null && discount !== 0) d.hasDiscount = true;
  if (typeof quantity !== 'number' || typeof unitPrice !== 'number') {
    d.linesComplete = false;
    return;
  }
  ONE_LINE.quantity = quantity;
  ONE_LINE.unitPriceCents = unitPrice;
  ONE_LINE.discountCents = typeof discount === 'number' ? discount : null;
  const t = computeTotals(ONE_LINE_LIST);
  const sub = d.subTotalCents + t.subTotalCents;
  const disc = d.discountTotalCents + t.discountTotalCents;
  if (!Number.isSafeInteger(sub) || !Number.isSafeInteger(disc)) {
    reportOverflow(d, row, plan, quantity, unitPrice, typeof discount === 'number' ? discount : 0, t);
    d.linesComplete = false;
    return;
  }
  d.subTotalCents = sub;
  d.discountTotalCents = disc;
  if (d.lines !== null && typeof productId === 'string' && typeof lineId === 'string' && typeof name === 'string') {
    d.lines.push({ productId, customerLineItemId: lineId, name, quantity, unitPriceCents: unitPrice, discountCents: typeof discount === 'number' ? discount : null });
  }
}

/** The largest amount, in cents, that sums of cents still add up exactly (2^53 - 1 cents). */
const EXACT_CENTS_MAX = Number.MAX_SAFE_INTEGER;

/**
 * A line amount (quantity x unitPrice, or quantity x discount) or the order's running sum of them too
 * large to add up exactly in cents. Neither number is wrong on its own (the quantity is a fine whole
 * number, the price a fine amount): their product is an amount past exact arithmetic. So the issue is
 * `invalid_number`, the code of an amount the tool cannot use, on both cells of the product, since
 * either may be the typo; when every line is fine alone but they add up past it, on the order's
 * subTotal (or discountTotal), the amount that cannot be computed.
 */
function reportOverflow(d: OrderDraft, row: number, plan: SheetPlan, quantity: number, unitPrice: number, discount: number, line: { subTotalCents: number; discountTotalCents: number }): void {
  const q = plan.line.quantity;
  const limit = formatCents(EXACT_CENTS_MAX);
  const product = (f: PlannedField, cents: number) => {
    const message = `${q.header} ${quantity} x ${f.header} ${formatCents(cents)} is more than ${limit}, the largest amount that adds up exactly in cents: check both cells, one is probably mistyped.`;
    addIssue(d, row, q, 'invalid_number', message);
    addIssue(d, row, f, 'invalid_number', message);
  };
  if (!Number.isSafeInteger(line.subTotalCents)) return product(plan.line.unitPrice, unitPrice);
  if (!Number.isSafeInteger(line.discountTotalCents)) return product(plan.line.discount, discount);
  const isSub = !Number.isSafeInteger(d.subTotalCents + line.subTotalCents);
  const total = plan.byField.get(isSub ? 'subTotal' : 'discountTotal')!;
  const what = isSub ? 'unitPrice x quantity' : 'discount x quantity';
  addIssue(d, row, total, 'invalid_number', `The lines of order ${d.customerOrderId ?? ''} up to row ${row} add up (${what}) to more than ${limit}, the largest amount that adds up exactly in cents: check the quantities and prices.`);
}

/** A reference value as the user wrote it, for messages. */
export function showValue(f: PlannedField, value: string | number | undefined, plan: SheetPlan): string {
  if (value === undefined) return 'another value';
  if (typeof value === 'string') return quote(value);
  if (f.def.kind === 'money') return formatCents(value);
  if (f.def.kind === 'date') return plan.formatInstant(value);
  return String(value);
}
