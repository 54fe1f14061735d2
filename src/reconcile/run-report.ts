/** Reconcile's part of the run report (PRODUCT.md section 4): its order entries and its summary. */
import { LazyOrders, type ReportOrders } from '../run-report/json.js';
import type { SpillList } from './spill-list.js';
import { ROLL_UP_STATUSES, type ExceptionType, type ReconciledOrder } from './types.js';

export interface JsonReconciledOrder {
  customerOrderId: string;
  marketplaceOrderId?: string;
  status: ReconciledOrder['status'];
  trackingNumbers: string[];
  lines: { customerLineItemId: string; productId: string; ordered: number; shipped: number; delivered: number; status: string | null; disposition: string | null }[];
  exceptions: { type: ExceptionType; detail: string }[];
}

export function toJsonOrder(order: ReconciledOrder): JsonReconciledOrder {
  return {
    customerOrderId: order.customerOrderId,
    ...(order.marketplaceOrderId ? { marketplaceOrderId: order.marketplaceOrderId } : {}),
    status: order.status,
    trackingNumbers: order.trackingNumbers,
    lines: order.lines.map((l) => ({
      customerLineItemId: l.customerLineItemId,
      productId: l.productId,
      ordered: l.ordered,
      shipped: l.shipped,
      delivered: l.delivered,
      status: l.status,
      disposition: l.disposition,
    })),
    exceptions: order.exceptions.map((e) => ({ type: e.type, detail: e.detail })),
  };
}

/**
 * The report's orders: an array while the run's orders are in memory; else each built from its order
 * on disk when it is printed (writeJsonReport), so that a million are never held at once.
 */
export function reportOrdersOf(orders: SpillList<ReconciledOrder>): ReportOrders<JsonReconciledOrder> {
  const inMemory = orders.inMemory;
  if (inMemory) return inMemory.map(toJsonOrder);
  return new LazyOrders([{ length: orders.length, at: (i) => toJsonOrder(orders.at(i)!) }]);
}

/** Orders per roll-up status; every status listed, zero or not, so scripts need not guess. */
export function summarize(orders: Iterable<ReconciledOrder>): Record<string, number> {
  const counts: Record<string, number> = Object.fromEntries(ROLL_UP_STATUSES.map((s) => [s, 0]));
  for (const o of orders) counts[o.status] = (counts[o.status] ?? 0) + 1;
  return counts;
}
