/**
 * Checks that need the API (validate --online, and before every import): productIds known to the
 * inventory and in stock somewhere, customerOrderIds the API already holds. Looked up in bulk once
 * per run and cached, never one request per row.
 */
import pLimit from 'p-limit';
import { isRetryable } from '../api/errors.js';
import { DEFAULT_BACKOFF, retrying } from '../api/retry.js';
import type { ApiClient } from '../api/types.js';
import { LIMITS } from '../contract/limits.js';
import type { CreateOrderPayload, InventoryItem } from '../contract/schemas.js';
import type { Issue } from '../issues/index.js';
import type { OrderRecord } from '../ledger/types.js';
import type { Logger } from '../log.js';
import type { CheckedOrder } from '../orders/types.js';
import { issueAt, rowOfLine, type SheetColumns } from './sheet-cells.js';

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

export async function fetchOnlineFacts(options: FetchFactsOptions): Promise<OnlineFacts> {
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
 * API-side issues of one valid order. `isOurs(id)` says the ledger shows this tool sent the order:
 * then an existing order is not an error (the caller reports it already_submitted).
 */
export function checkOrderOnline(
  order: CheckedOrder,
  payload: CreateOrderPayload | undefined,
  sheet: SheetColumns,
  facts: OnlineFacts,
  isOurs: (customerOrderId: string) => boolean,
): Issue[] {
  const issues: Issue[] = [];
  if (!payload) return issues;
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
