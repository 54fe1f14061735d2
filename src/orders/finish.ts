/**
 * The rules that need the whole order: required order-level values, the carrier when shipping
 * details are given, address line count, the orderDate window, duplicate line IDs and the totals
 * (exact cents, with the contract's own arithmetic so the sandbox agrees).
 */
import { LIMITS } from '../contract/limits.js';
import { formatCents } from '../contract/money.js';
import { checkOrderDateWindow, expectedGrandTotalCents } from '../contract/rules.js';
import type { Issue } from '../issues/index.js';
import { addIssue, hasDuplicate, requiredMessage, type OrderDraft } from './draft.js';
import { applyPostal } from './merge-row.js';
import type { PlannedField, SheetPlan } from './plan.js';
import { quote } from './text.js';

const DAY_MS = 86_400_000;
const SHIPPING_DETAILS = ['shippingAccountNumber', 'shipLabelNameDisplay', 'shippingContactName', 'shippingContactPhoneNumber'] as const;

export interface OrderTotals {
  subTotalCents: number;
  /** Sent only when given, or computed because some line has a discount. */
  discountTotalCents: number | null;
  salesTaxCents: number;
  grandTotalCents: number;
}

export interface FinishedOrder {
  /** Every issue of the order, by row. */
  issues: Issue[];
  isValid: boolean;
  /** The totals to send; null when the lines cannot be added up. */
  totals: OrderTotals | null;
}

export function finishDraft(d: OrderDraft, plan: SheetPlan, nowMs: number): FinishedOrder {
  resolvePendingPostal(d, plan);
  checkRequired(d, plan);
  checkAddressLines(d);
  checkOrderDate(d, plan, nowMs);
  checkDuplicateLineIds(d, plan);
  const totals = checkTotals(d, plan);
  const issues = d.issues ?? [];
  if (issues.length > 1) issues.sort((a, b) => (a.row ?? 0) - (b.row ?? 0));
  return { issues, isValid: !d.hasError && plan.missingRequired.length === 0, totals };
}

function resolvePendingPostal(d: OrderDraft, plan: SheetPlan): void {
  if (d.pendingPostal === null) return;
  const country = d.refs[plan.country.slot];
  for (const { row, text, isNumberCell } of d.pendingPostal) applyPostal(d, row, text, isNumberCell, country === 'US', plan);
  d.pendingPostal = null;
}

function checkRequired(d: OrderDraft, plan: SheetPlan): void {
  const first = d.rows[0]!;
  for (const f of plan.requiredOrderFields) {
    if ((d.seen & f.bit) === 0) addIssue(d, first, f, 'required', requiredMessage(f, 'order'));
  }
  const line1 = plan.byField.get('addressLine1')!;
  if (line1.col >= 0 && line1.def.requiredValue && (d.seen & plan.addressLineBits) === 0) {
    addIssue(d, first, line1, 'required', `${line1.header} is empty, and so are the other address lines: every order needs a shipping address line.`);
  }
  const carrier = plan.byField.get('carrierId')!;
  if ((d.seen & carrier.bit) !== 0 || (d.seen & plan.shippingDetailBits) === 0) return;
  const given = SHIPPING_DETAILS.map((field) => plan.byField.get(field)!).filter((f) => (d.seen & f.bit) !== 0);
  if (given.length === 0) return;
  addIssue(d, first, carrier, 'required', `${carrier.header} is empty, but ${given.map((f) => f.header).join(', ')} ${given.length === 1 ? 'is' : 'are'} filled in: shipping details need a carrier (CarrierXGround, CarrierX2Day or CarrierXOvernight).`);
}

function checkAddressLines(d: OrderDraft): void {
  const overflow = d.addressOverflow;
  if (overflow === null) return;
  addIssue(d, overflow.row, overflow.field, 'too_many_address_lines',
    `The address has ${d.addressLineCount} lines (a line break inside an address cell starts a new line); at most ${LIMITS.addressLinesMax} are allowed. Put at most ${LIMITS.addressLinesMax} lines in all into the address columns.`);
}

function checkOrderDate(d: OrderDraft, plan: SheetPlan, nowMs: number): void {
  const f = plan.byField.get('orderDate')!;
  const ms = d.refs[f.slot];
  if (typeof ms !== 'number') return;
  const problem = checkOrderDateWindow(ms, nowMs);
  if (problem === null) return;
  const when = plan.formatInstant(ms);
  const now = plan.formatInstant(nowMs);
  if (problem === 'order_date_in_future') {
    addIssue(d, d.refRowOf(f.slot), f, problem, `${f.header} ${when} is in the future (now is ${now}): use the date and time the order was placed.`);
    return;
  }
  const days = Math.floor((nowMs - ms) / DAY_MS);
  const oldest = plan.formatInstant(nowMs - LIMITS.orderDateMaxAgeDays * DAY_MS);
  addIssue(d, d.refRowOf(f.slot), f, problem,
    `${f.header} ${when} is ${days} days before now (${now}): the API accepts only orders less than ${LIMITS.orderDateMaxAgeDays} days old, placed after ${oldest}.`);
}

function checkDuplicateLineIds(d: OrderDraft, plan: SheetPlan): void {
  // A closed order dropped its line IDs only when they had no duplicates.
  const ids = d.lineIds;
  if (ids === null || !hasDuplicate(ids)) return;
  const rowsById = new Map<string, number[]>();
  ids.forEach((id, k) => {
    if (id !== '') rowsById.set(id, [...(rowsById.get(id) ?? []), d.rows[k]!]);
  });
  const f = plan.line.customerLineItemId;
  for (const [id, rows] of rowsById) {
    if (rows.length < 2) continue;
    const message = `${f.header} ${quote(id)} is used on rows ${rows.join(', ')} of order ${d.customerOrderId ?? ''}: each line of an order needs its own ID.`;
    for (const row of rows) addIssue(d, row, f, 'duplicate_line_item_id', message);
  }
}

/** Given totals must match the lines exactly; blank ones are computed, and the order says so. */
function checkTotals(d: OrderDraft, plan: SheetPlan): OrderTotals | null {
  const by = plan.byField;
  const sub = by.get('subTotal')!;
  const discount = by.get('discountTotal')!;
  const tax = by.get('salesTax')!;
  const grand = by.get('grandTotal')!;
  const given = (f: PlannedField): number | undefined => {
    const v = d.refs[f.slot];
    return typeof v === 'number' ? v : undefined;
  };
  const isBlank = (f: PlannedField): boolean => (d.seen & f.bit) === 0;
  const first = d.rows[0]!;

  const givenSub = given(sub);
  let subTotal: number | undefined = givenSub;
  if (d.linesComplete) {
    const computed = d.subTotalCents;
    if (givenSub !== undefined && givenSub !== computed) {
      addIssue(d, d.refRowOf(sub.slot), sub, 'subtotal_mismatch',
        `${sub.header} is ${formatCents(givenSub)} but the lines add up to ${formatCents(computed)} (unitPrice x quantity, before discounts). Correct it, or leave it blank to have it computed.`);
    } else if (isBlank(sub)) {
      addIssue(d, first, sub, 'computed_total', `${sub.header} was blank and was computed from the lines as ${formatCents(computed)}.`);
    }
    // The lines are the truth: a wrong subTotal must not also make a right grandTotal look wrong.
    subTotal = computed;
  }

  let discountTotal: number | null = given(discount) ?? null;
  if (d.linesComplete && d.discountsComplete) {
    const computed = d.discountTotalCents;
    if (discountTotal !== null && discountTotal !== computed) {
      addIssue(d, d.refRowOf(discount.slot), discount, 'discount_total_mismatch',
        `${discount.header} is ${formatCents(discountTotal)} but the lines' discounts add up to ${formatCents(computed)} (discount x quantity). Correct it, or leave it blank to have it computed.`);
    } else if (isBlank(discount) && d.hasDiscount) {
      addIssue(d, first, discount, 'computed_total', `${discount.header} was blank and was computed from the lines as ${formatCents(computed)}.`);
      discountTotal = computed;
    }
  }

  const salesTax = given(tax);
  if (subTotal === undefined || salesTax === undefined) return null;
  const expectedGrand = expectedGrandTotalCents(subTotal, salesTax);
  const givenGrand = given(grand);
  if (givenGrand !== undefined && givenGrand !== expectedGrand) {
    addIssue(d, d.refRowOf(grand.slot), grand, 'grand_total_mismatch',
      `${grand.header} is ${formatCents(givenGrand)} but ${sub.header} ${formatCents(subTotal)} plus ${tax.header} ${formatCents(salesTax)} is ${formatCents(expectedGrand)}. Correct it, or leave it blank to have it computed.`);
  } else if (isBlank(grand) && d.linesComplete) {
    addIssue(d, first, grand, 'computed_total', `${grand.header} was blank and was computed as ${sub.header} plus ${tax.header}: ${formatCents(expectedGrand)}.`);
  }
  if (!d.linesComplete || (isBlank(grand) === false && givenGrand === undefined)) return null;
  return { subTotalCents: subTotal, discountTotalCents: discountTotal, salesTaxCents: salesTax, grandTotalCents: givenGrand ?? expectedGrand };
}
