/**
 * Checks that need the API (validate --online, and before every import): productIds known to the
 * inventory and in stock somewhere, customerOrderIds the API already holds. Looked up in bulk once
 * per run and cached, never one request per row.
 */
import pLimit from 'p-limit';
import { isRetryable, isUnusableAnswer } from '../api/errors.js';
import { DEFAULT_BACKOFF, retrying } from '../api/retry.js';
import type { ApiClient } from '../api/types.js';
import { parseApiInstant } from '../contract/instant.js';
import { LIMITS } from '../contract/limits.js';
import type { CreateOrderPayload, InventoryItem } from '../contract/schemas.js';
import { unusableAnswerMessage } from '../api/unusable.js';
import { ApiUnusableError } from '../errors.js';
import type { Issue } from '../issues/index.js';
import { hashPayload, type OrderRecord } from '../ledger/index.js';
import type { Logger } from '../log.js';
import type { CheckedOrder } from '../orders/types.js';
import { issueAt, rowOfLine, type SheetColumns } from '../orders/sheet-cells.js';

export interface OnlineFacts {
  /** Inventory by productId, for the productIds asked about. */
  products: Map<string, InventoryItem>;
  /** customerOrderIds the API already knows, among those asked about. */
  existingOrderIds: Set<string>;
}

export interface FetchFactsOptions {
  client: ApiClient;
  /** The orders about to be checked: their productIds and customerOrderIds are looked up. */
  payloads: readonly CreateOrderPayload[];
  maxAttempts: number;
  concurrency: number;
  logger: Logger;
  signal?: AbortSignal;
}

/** Up to this many products are asked for one by one; more, and the whole inventory is paged through. */
const PRODUCT_LOOKUP_THRESHOLD = 40;

/**
 * The facts, or ApiUnusableError when the API answers a lookup with a 2xx that is not the API's
 * answer (an HTML page, truncated JSON, another shape): not retried, since the same server gives
 * the same page, and the API is unusable as configured (exit 3), not a bug.
 */
export async function fetchOnlineFacts(options: FetchFactsOptions): Promise<OnlineFacts> {
  try {
    return await lookUpFacts(options);
  } catch (err) {
    if (isUnusableAnswer(err)) throw new ApiUnusableError(unusableAnswerMessage(err), { cause: err, kind: 'no_endpoint' });
    throw err;
  }
}

async function lookUpFacts(options: FetchFactsOptions): Promise<OnlineFacts> {
  const { client, logger } = options;
  const productIdSet = new Set(options.payloads.flatMap((p) => p.orderDetails.lineItems.map((l) => l.productId)));
  const orderIdSet = new Set(options.payloads.map((p) => p.orderDetails.customerOrderId));
  const retry = <T>(fn: () => Promise<T>) =>
    retrying(fn, { maxAttempts: options.maxAttempts, policy: DEFAULT_BACKOFF, shouldRetry: isRetryable, signal: options.signal });
  const products = new Map<string, InventoryItem>();

  if (productIdSet.size > 0 && productIdSet.size <= PRODUCT_LOOKUP_THRESHOLD) {
    const limit = pLimit(options.concurrency);
    await Promise.all(
      [...productIdSet].map((productId) =>
        limit(async () => {
          const page = await retry(() => client.listInventory({ productId, pageNumber: 1, itemsPerPage: 1 }, { signal: options.signal }));
          for (const item of page.data) if (item.productId === productId) products.set(productId, item);
        }),
      ),
    );
  } else if (productIdSet.size > 0) {
    const first = await retry(() => client.listInventory({ pageNumber: 1, itemsPerPage: LIMITS.itemsPerPageMax }, { signal: options.signal }));
    const keep = (items: InventoryItem[]) => {
      for (const item of items) if (productIdSet.has(item.productId)) products.set(item.productId, item);
    };
    keep(first.data);
    const totalPages = first.pagination?.totalPages ?? 1;
    const limit = pLimit(options.concurrency);
    await Promise.all(
      Array.from({ length: Math.max(0, totalPages - 1) }, (_, i) => i + 2).map((pageNumber) =>
        limit(async () => keep((await retry(() => client.listInventory({ pageNumber, itemsPerPage: LIMITS.itemsPerPageMax }, { signal: options.signal }))).data)),
      ),
    );
  }

  const existingOrderIds = new Set<string>();
  if (orderIdSet.size > 0) {
    // One listing of every order the API holds for the longest window it offers.
    const listed = await retry(() =>
      client.listOrders({ lastDays: LIMITS.lastDaysMax, orderDisposition: ['all'], orderLineItemDisposition: ['all'] }, { signal: options.signal }),
    );
    for (const order of listed.data) if (orderIdSet.has(order.customerOrderId)) existingOrderIds.add(order.customerOrderId);
  }
  logger.debug({ products: products.size, existingOrders: existingOrderIds.size }, 'online facts fetched');
  return { products, existingOrderIds };
}

/**
 * The ledger shows this tool sent the order (its POST may have reached the API): an existing order
 * with this id is ours, not someone else's. Pending was never sent; rejected was refused.
 */
export function isSentByThisTool(record: Pick<OrderRecord, 'state'> | undefined): boolean {
  return record !== undefined && record.state !== 'pending' && record.state !== 'rejected';
}

/** Total stock over every fulfillment center (409 comes only when no center has any). */
export function hasStock(item: InventoryItem): boolean {
  if (item.fulfillmentCenters.length > 0) return item.fulfillmentCenters.some((c) => c.availableQuantity > 0);
  return item.availableQuantity > 0;
}

/**
 * The order as the ledger knows it, when the sheet's only errors are verdicts that depend on when
 * the check runs: an order invalid only because its orderDate has aged past the API's window since
 * this tool sent it (the ledger holds it accepted, or sending/unknown/failed: it may be stored).
 * Its payload is rebuilt as of its own orderDate (the one instant the date window certainly allows;
 * nothing else in the rules depends on the instant) and must hash as the ledger's record does: then
 * it is the same order, and goes the way of one the ledger holds (already_submitted, or a lookup
 * before any resend). Undefined otherwise: today's verdict stands.
 */
export function payloadOfAgedOrder(order: CheckedOrder, record: OrderRecord | undefined): CreateOrderPayload | undefined {
  if (!record || !isSentByThisTool(record) || !isInvalidOnlyByAge(order.issues) || !order.payloadAsOf) return undefined;
  const orderDateMs = parseApiInstant(record.payload.orderDetails.orderDate);
  if (orderDateMs === null) return undefined;
  const payload = order.payloadAsOf(orderDateMs);
  return payload !== undefined && hashPayload(payload) === record.payloadHash ? payload : undefined;
}

/** The ledger holds this very payload as sent (it may be stored): its hash is the record's. */
export function isSentAsIs(record: OrderRecord | undefined, payload: CreateOrderPayload): boolean {
  return record !== undefined && isSentByThisTool(record) && record.payloadHash === hashPayload(payload);
}

/** Some error, and every error an order_date_too_old. */
export function isInvalidOnlyByAge(issues: readonly Issue[]): boolean {
  const errors = issues.filter((i) => i.severity === 'error');
  return errors.length > 0 && errors.every((i) => i.code === 'order_date_too_old');
}

/** The issues of an order let through by payloadOfAgedOrder: its date error no longer applies. */
export function withoutAgeErrors(issues: readonly Issue[]): Issue[] {
  return issues.filter((i) => !(i.severity === 'error' && i.code === 'order_date_too_old'));
}

/**
 * API-side issues of one valid order. `isOurs(id)` says the ledger shows this tool sent an order of
 * that id: then an existing order is not an error (the caller reports it already_submitted).
 * `isSentAsIs(payload)` says the ledger holds this very payload as sent (isSentAsIs below): then it
 * is not judged on today's facts at all (stock used up or a product withdrawn since it was sent does
 * not concern an order already stored, and one whose outcome is unknown is looked up before any
 * resend, which the API then judges). An order edited since is checked like any new one.
 */
export function checkOrderOnline(
  order: CheckedOrder,
  payload: CreateOrderPayload | undefined,
  sheet: SheetColumns,
  facts: OnlineFacts,
  isOurs: (customerOrderId: string) => boolean,
  isSentAsIs: (payload: CreateOrderPayload) => boolean = () => false,
): Issue[] {
  const issues: Issue[] = [];
  if (!payload || isSentAsIs(payload)) return issues;
  payload.orderDetails.lineItems.forEach((line, index) => {
    const row = rowOfLine(order, index);
    const item = facts.products.get(line.productId);
    if (!item) {
      issues.push(issueAt(sheet, row, 'productId', 'unknown_product', `Product "${line.productId}" is not in the fulfillment network's inventory: check the productId (it is the network's ID, not your SKU).`));
    } else if (!hasStock(item)) {
      issues.push(issueAt(sheet, row, 'productId', 'out_of_stock', `Product "${line.productId}" is out of stock in every fulfillment center, so the order would be refused: remove the line or wait for stock.`));
    }
  });
  const id = payload.orderDetails.customerOrderId;
  if (facts.existingOrderIds.has(id) && !isOurs(id)) {
    issues.push(issueAt(sheet, order.rows[0] ?? null, 'customerOrderId', 'already_exists', `Order "${id}" already exists in the fulfillment network and was not sent by this tool: use a new customerOrderId if this is a different order.`));
  }
  return issues;
}
