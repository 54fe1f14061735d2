/**
 * Read-side amounts, checked as PRODUCT.md section 6 decides (api-spec.md 2.2 taken literally):
 * read unitPrice = created unitPrice - discount; read subTotal = sum of read unitPrice x quantity;
 * read grandTotal = read subTotal + salesTax. Compared exactly in cents.
 *
 * With the payload we sent, the expected figures come from it (what the customer was charged), so
 * a line the network added or canceled later does not move them. Without it (an order we did not
 * send), only the order's own arithmetic is checked, over the lines it was created with
 * (disposition api_order, or none shown).
 */
import { dollarsToCents, formatCents } from '../contract/money.js';
import type { OrderLineItemRead, OrderRead } from '../contract/schemas.js';
import { API_LINE_DISPOSITION, type ExpectedOrder, type ReconcileException } from './types.js';

type Cents = number | null;

function readCents(value: number | undefined): Cents | undefined {
  return value === undefined ? undefined : dollarsToCents(value);
}

function money(cents: number): string {
  return formatCents(cents);
}

function isOriginalLine(line: OrderLineItemRead): boolean {
  return line.disposition === undefined || line.disposition === API_LINE_DISPOSITION;
}

/** Compares one figure; undefined `actual` means the API did not show it (nothing to check). */
function compare(out: ReconcileException[], what: string, expected: Cents, actualDollars: number | undefined, how: string, lineId?: string): void {
  if (actualDollars === undefined || expected === null) return;
  const actual = dollarsToCents(actualDollars);
  const exception: ReconcileException = { type: 'amount_mismatch', detail: '' };
  if (lineId !== undefined) exception.customerLineItemId = lineId;
  if (actual === null) {
    exception.detail = `${what} shown by the API (${actualDollars}) is not a whole number of cents; expected ${money(expected)} (${how}).`;
    out.push(exception);
  } else if (actual !== expected) {
    exception.detail = `${what} is ${money(actual)} in the API, expected ${money(expected)} (${how}).`;
    out.push(exception);
  }
}

function sumOrNull(values: Iterable<Cents>): Cents {
  let total = 0;
  for (const v of values) {
    if (v === null) return null;
    total += v;
  }
  return total;
}

export function checkReadAmounts(expected: ExpectedOrder | undefined, read: OrderRead): ReconcileException[] {
  const out: ReconcileException[] = [];
  if (!expected) {
    checkOwnArithmetic(read, out);
    return out;
  }
  const readLines = new Map<string, OrderLineItemRead>();
  for (const line of read.lineItems) {
    if (isOriginalLine(line) && !readLines.has(line.customerLineItemId)) readLines.set(line.customerLineItemId, line);
  }
  const unitCents: Cents[] = [];
  for (const line of expected.lines) {
    const net = line.unitPriceCents === null || line.discountCents === null ? null : line.unitPriceCents - line.discountCents;
    unitCents.push(net === null ? null : net * line.quantity);
    const readLine = readLines.get(line.customerLineItemId);
    if (!readLine || net === null) continue;
    const how = line.discountCents ? `unit price ${money(line.unitPriceCents!)} less discount ${money(line.discountCents)}` : 'the unit price sent';
    compare(out, `Unit price of line ${line.customerLineItemId}`, net, readLine.unitPrice, how, line.customerLineItemId);
  }
  const subTotal = sumOrNull(unitCents);
  compare(out, 'subTotal', subTotal, read.subTotal, 'sum of unit price less discount times quantity, as sent');
  compare(out, 'salesTax', expected.salesTaxCents, read.salesTax, 'as sent');
  const grand = subTotal === null || expected.salesTaxCents === null ? null : subTotal + expected.salesTaxCents;
  compare(out, 'grandTotal', grand, read.grandTotal, 'subTotal plus salesTax');
  const discounts = sumOrNull(expected.lines.map((l) => (l.discountCents === null ? null : l.discountCents * l.quantity)));
  compare(out, 'discountTotal', discounts, read.discountTotal, 'sum of discount times quantity, as sent');
  return out;
}

function checkOwnArithmetic(read: OrderRead, out: ReconcileException[]): void {
  const lines = read.lineItems.filter(isOriginalLine);
  const parts: Cents[] = lines.map((l) => {
    const unit = readCents(l.unitPrice);
    return unit === undefined || unit === null ? null : unit * l.quantity;
  });
  compare(out, 'subTotal', sumOrNull(parts), read.subTotal, 'sum of the lines\u2019 unit price times quantity');
  const sub = readCents(read.subTotal);
  const tax = readCents(read.salesTax);
  if (sub !== undefined && sub !== null && tax !== undefined && tax !== null) {
    compare(out, 'grandTotal', sub + tax, read.grandTotal, 'subTotal plus salesTax');
  }
}
