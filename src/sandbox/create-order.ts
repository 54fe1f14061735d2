/**
 * Checks an order creation payload the way the fulfillment API does: the shared schema, then the
 * rules a schema cannot express (date window on the sandbox clock, totals in exact cents, unique
 * line ids, known products). Pure: returns the payload or the 400 answer, never throws.
 */
import type { z } from 'zod';
import { LIMITS } from '../contract/limits.js';
import { dollarsToCents, formatCents } from '../contract/money.js';
import { checkOrderDateWindow, computeTotals, expectedGrandTotalCents } from '../contract/rules.js';
import { API_MESSAGES, type CreateOrderPayload, type createOrderSchema } from '../contract/schemas.js';
import type { Product } from './catalogue.js';
import { parseApiInstant, toIso } from './dates.js';

export interface FieldError {
  field?: string;
  message: string;
}

export type PayloadCheck = { ok: true; payload: CreateOrderPayload } | { ok: false; message: string; errors: FieldError[] };

export interface CheckContext {
  schema: ReturnType<typeof createOrderSchema>;
  nowMs: number;
  products: ReadonlyMap<string, Product>;
}

/** `orderDetails.lineItems[0].quantity` for a zod path. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : `${out ? '.' : ''}${String(key)}`;
  return out;
}

function zodMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type' && /received undefined$/.test(issue.message)) return 'is required';
  if (issue.code === 'invalid_type') return `must be a ${issue.expected}`;
  return issue.message;
}

/** api-spec 7: "address missing" has its own message. Blank lines do not count as address lines. */
function isAddressMissing(body: unknown): boolean {
  const address = (body as { customerDetails?: { shippingAddress?: { addressLines?: unknown } } } | null)?.customerDetails?.shippingAddress;
  const lines = address?.addressLines;
  return !Array.isArray(lines) || !lines.some((l) => typeof l === 'string' && l.trim() !== '');
}

export function checkCreatePayload(body: unknown, ctx: CheckContext): PayloadCheck {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, message: 'Request body must be a JSON object holding the order.', errors: [] };
  }
  const parsed = ctx.schema.safeParse(body);
  const addressMissing = isAddressMissing(body);
  const message = addressMissing ? API_MESSAGES.noAddressLine : API_MESSAGES.invalidField;
  if (!parsed.success) {
    const linesField = 'customerDetails.shippingAddress.addressLines';
    const errors: FieldError[] = [];
    // A missing address is one error however zod words it (absent, empty, every line blank).
    if (addressMissing) errors.push({ field: linesField, message: API_MESSAGES.noAddressLine });
    for (const issue of parsed.error.issues) {
      const field = formatPath(issue.path);
      if (addressMissing && field.startsWith(linesField)) continue;
      errors.push({ field, message: zodMessage(issue) });
    }
    return { ok: false, message, errors };
  }
  return checkParsed(parsed.data, ctx, message);
}

/** The rules after the schema; on success the stored payload carries orderDate as UTC ISO text. */
function checkParsed(payload: CreateOrderPayload, ctx: CheckContext, message: string): PayloadCheck {
  const errors: FieldError[] = [];
  const orderDateMs = checkOrderRules(payload, ctx, errors);
  if (errors.length > 0 || orderDateMs === null) return { ok: false, message, errors };
  payload.orderDetails.orderDate = toIso(orderDateMs);
  return { ok: true, payload };
}

/** Adds the rule errors to `errors`; returns the orderDate instant (null when it is not one). */
function checkOrderRules(payload: CreateOrderPayload, ctx: CheckContext, errors: FieldError[]): number | null {
  const details = payload.orderDetails;
  const orderDateMs = parseApiInstant(details.orderDate);
  if (orderDateMs === null) {
    errors.push({ field: 'orderDetails.orderDate', message: 'must be an ISO 8601 date-time' });
  } else {
    const problem = checkOrderDateWindow(orderDateMs, ctx.nowMs);
    if (problem === 'order_date_in_future') errors.push({ field: 'orderDetails.orderDate', message: 'must not be in the future' });
    if (problem === 'order_date_too_old') {
      errors.push({ field: 'orderDetails.orderDate', message: `must be less than ${LIMITS.orderDateMaxAgeDays} days old` });
    }
  }
  if (details.requestedDeliveryDate !== undefined && parseApiInstant(details.requestedDeliveryDate) === null) {
    errors.push({ field: 'orderDetails.requestedDeliveryDate', message: 'must be an ISO 8601 date-time' });
  }

  const cents = (field: string, value: number): number => {
    const c = dollarsToCents(value);
    if (c === null) errors.push({ field, message: 'must be a whole number of cents' });
    return c ?? 0;
  };
  const seen = new Map<string, number>();
  const lines = details.lineItems.map((item, i) => {
    const at = `orderDetails.lineItems[${i}]`;
    const first = seen.get(item.customerLineItemId);
    if (first !== undefined) {
      errors.push({ field: `${at}.customerLineItemId`, message: `duplicates the customerLineItemId of line item ${first + 1}` });
    } else {
      seen.set(item.customerLineItemId, i);
    }
    if (!ctx.products.has(item.productId)) {
      errors.push({ field: `${at}.productId`, message: `Unknown ProductId '${item.productId}': not in the inventory (GET /api/v0/inventory/items).` });
    }
    const unitPriceCents = cents(`${at}.unitPrice`, item.unitPrice);
    const discountCents = item.discount === undefined ? 0 : cents(`${at}.discount`, item.discount);
    return { quantity: item.quantity, unitPriceCents, discountCents };
  });
  const subTotal = cents('orderDetails.subTotal', details.subTotal);
  const salesTax = cents('orderDetails.salesTax', details.salesTax);
  const grandTotal = cents('orderDetails.grandTotal', details.grandTotal);
  const discountTotal = details.discountTotal === undefined ? null : cents('orderDetails.discountTotal', details.discountTotal);
  if (errors.some((e) => e.message === 'must be a whole number of cents')) return orderDateMs;

  const expected = computeTotals(lines);
  if (subTotal !== expected.subTotalCents) {
    errors.push({ field: 'orderDetails.subTotal', message: `must equal the sum of unitPrice x quantity: ${formatCents(expected.subTotalCents)}` });
  }
  if (discountTotal !== null && discountTotal !== expected.discountTotalCents) {
    errors.push({ field: 'orderDetails.discountTotal', message: `must equal the sum of discount x quantity: ${formatCents(expected.discountTotalCents)}` });
  }
  const expectedGrand = expectedGrandTotalCents(subTotal, salesTax);
  if (grandTotal !== expectedGrand) {
    errors.push({ field: 'orderDetails.grandTotal', message: `must equal subTotal + salesTax: ${formatCents(expectedGrand)}` });
  }
  return orderDateMs;
}
