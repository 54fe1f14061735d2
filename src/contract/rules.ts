/**
 * The semantic rules of order creation that a schema cannot express: the orderDate window and
 * the totals (api-spec.md 2.1.2, PRODUCT.md section 6 "Totals on creation"). Pure functions in
 * cents, shared by the sheet checker and the sandbox.
 */
import { LIMITS } from './limits.js';

const DAY_MS = 86_400_000;

export type OrderDateProblem = 'order_date_too_old' | 'order_date_in_future';

/** orderDate must be less than 30 days old and not in the future, as of `now`. */
export function checkOrderDateWindow(orderDateMs: number, nowMs: number): OrderDateProblem | null {
  if (orderDateMs > nowMs) return 'order_date_in_future';
  if (nowMs - orderDateMs >= LIMITS.orderDateMaxAgeDays * DAY_MS) return 'order_date_too_old';
  return null;
}

export interface LineCents {
  quantity: number;
  unitPriceCents: number;
  discountCents?: number | null;
}

export interface ExpectedTotals {
  subTotalCents: number;
  discountTotalCents: number;
}

/** subTotal = Σ unitPrice × quantity (discounts not subtracted); discountTotal = Σ discount × quantity. */
export function computeTotals(lines: readonly LineCents[]): ExpectedTotals {
  let subTotalCents = 0;
  let discountTotalCents = 0;
  for (const line of lines) {
    subTotalCents += line.unitPriceCents * line.quantity;
    discountTotalCents += (line.discountCents ?? 0) * line.quantity;
  }
  return { subTotalCents, discountTotalCents };
}

/** grandTotal = subTotal + salesTax. */
export function expectedGrandTotalCents(subTotalCents: number, salesTaxCents: number): number {
  return subTotalCents + salesTaxCents;
}
