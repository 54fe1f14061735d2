/**
 * What we expected of an order: the payload the ledger recorded, with money in cents; for an order an
 * --orders file lists that the ledger does not hold, what the file says (orders-file.ts).
 */
import { dollarsToCents } from '../contract/money.js';
import type { CreateOrderPayload } from '../contract/schemas.js';
import type { OrderRecord } from '../ledger/index.js';
import type { ExpectedOrder } from './types.js';

function cents(value: number | undefined | null): number | null {
  return value === undefined || value === null ? null : dollarsToCents(value);
}

/** The ExpectedOrder of a created-order payload (and, when known, when the API accepted it). */
export function expectOrderFromPayload(payload: CreateOrderPayload, submittedAt: string | null = null): ExpectedOrder {
  const d = payload.orderDetails;
  return {
    customerOrderId: d.customerOrderId,
    marketplaceOrderId: d.marketplaceOrderId ?? null,
    sourceOfSale: d.sourceOfSale ?? null,
    orderDate: d.orderDate ?? null,
    submittedAt,
    lines: d.lineItems.map((line) => ({
      customerLineItemId: line.customerLineItemId,
      productId: line.productId,
      name: line.name ?? null,
      quantity: line.quantity,
      unitPriceCents: cents(line.unitPrice),
      // An absent discount is no discount (api-spec.md 2.1.3).
      discountCents: line.discount === undefined ? 0 : cents(line.discount),
    })),
    subTotalCents: cents(d.subTotal),
    salesTaxCents: cents(d.salesTax),
    discountTotalCents: cents(d.discountTotal),
    grandTotalCents: cents(d.grandTotal),
  };
}

/** The ExpectedOrder of a ledger record. */
export function expectOrderFromRecord(record: Pick<OrderRecord, 'payload' | 'submittedAt'>): ExpectedOrder {
  return expectOrderFromPayload(record.payload, record.submittedAt);
}

/**
 * The expected side of an --orders run: the ledger's record where it holds the order (what was
 * sent, exactly), else what the file's rows say (for an order whose rows were not what was sent, its
 * ID alone: orders-file.ts). In the file's order.
 */
export function expectedForOrdersFile<M extends { set(id: string, expected: ExpectedOrder): unknown }>(
  ids: readonly string[],
  fromLedger: { get(id: string): ExpectedOrder | undefined },
  fromFile: ReadonlyMap<string, ExpectedOrder>,
  out: M,
): M {
  for (const id of ids) {
    const expected = fromLedger.get(id) ?? fromFile.get(id);
    if (expected) out.set(id, expected);
  }
  return out;
}
