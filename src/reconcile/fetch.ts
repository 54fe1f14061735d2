/**
 * Reading the API for reconcile: orders, packages per order, and tracking-update pages, through one
 * concurrency limit (default 8 requests in flight) with the client's retry policy and the
 * wholesale-failure guard (api-requests.ts): the first error that outlasts its retries stops every
 * other request.
 */
import { HttpError } from '../api/errors.js';
import type { ApiClient, ListOrdersQuery } from '../api/types.js';
import { LIMITS } from '../contract/limits.js';
import type { OrderRead, PackageRecord } from '../contract/schemas.js';
import type { Logger } from '../log.js';
import { ApiRequests, type ReaderStats } from './api-requests.js';
import { readTrackingWindow, type TrackingWindow } from './tracking-pages.js';

export type { ReaderStats } from './api-requests.js';
export type { TrackingWindow } from './tracking-pages.js';

export interface ApiReader {
  /** Each order's read; null when the API answers 404. */
  readOrders(customerOrderIds: readonly string[]): Promise<Map<string, OrderRead | null>>;
  /** Each order's packages, or the HttpError of a 404 for them: see packagesOfKnownOrders. */
  readPackagesOf(customerOrderIds: readonly string[]): Promise<Map<string, PackageRecord[] | HttpError>>;
  /**
   * Every page of tracking updates in the window; `onPage` gets each page as it arrives (in any
   * order), so a caller can store them without holding all pages at once.
   */
  readTrackingWindow(window: TrackingWindow, onPage: (records: PackageRecord[]) => void, onFirstPage?: () => void): Promise<{ pages: number; packages: number }>;
  /**
   * Every order list orders gives for `query`, each handed to `onOrder` as the answer comes in (never
   * held whole: ApiClient.eachListedOrder); resolves with their count. A retried request hands its
   * orders over again: `onOrder` must take an order seen twice as the same order.
   */
  eachListedOrder(query: ListOrdersQuery, onOrder: (order: OrderRead) => void): Promise<number>;
  /**
   * eachListedOrder as a shortcut (one request instead of one per order): false, without stopping the
   * run, when the API refuses it; the caller then reads order by order (what was handed over stays read).
   */
  tryEachListedOrder(query: ListOrdersQuery, onOrder: (order: OrderRead) => void): Promise<boolean>;
  /** The API's clock now (ApiClient.serverNow, with retries for the token exchange it may make); null when it does not tell. */
  readServerNow(): Promise<Date | null>;
  stats(): ReaderStats;
  /** Stops every request queued or in flight: they reject with `reason` (a run that failed elsewhere). */
  cancel(reason: Error): void;
}

export interface ApiReaderOptions {
  client: ApiClient;
  /** Requests in flight at once; default 8. */
  concurrency?: number;
  /** Attempts per request, the first included; default 6. */
  maxAttempts?: number;
  logger: Logger;
  /** Injected for tests: no real waiting. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  /** Monotonic milliseconds for the failure guard; default performance.now. */
  monotonicNow?: () => number;
}

export const READER_DEFAULTS = { concurrency: 8, maxAttempts: 6, itemsPerPage: LIMITS.itemsPerPageMax } as const;

export function createApiReader(options: ApiReaderOptions): ApiReader {
  const { client, logger } = options;
  const { sleep, random, monotonicNow } = options;
  const requests = new ApiRequests({
    logger,
    ...(sleep ? { sleep } : {}),
    ...(random ? { random } : {}),
    ...(monotonicNow ? { monotonicNow } : {}),
    concurrency: options.concurrency ?? READER_DEFAULTS.concurrency,
    maxAttempts: options.maxAttempts ?? READER_DEFAULTS.maxAttempts,
  });
  return {
    async readOrders(ids) {
      const reads = await requests.all(ids.map((id) => requests.call(`order ${id}`, (signal) => client.getOrder(id, { signal }))));
      return new Map(ids.map((id, i) => [id, reads[i]?.order ?? null]));
    },
    async readPackagesOf(ids) {
      const pages = await requests.all(ids.map((id) => requests.call(`packages of ${id}`, (signal) => readPackagesOrNotFound(client, id, signal))));
      return new Map(ids.map((id, i) => [id, pages[i] ?? []]));
    },
    readTrackingWindow: (window, onPage, onFirstPage) => readTrackingWindow(requests, client, window, onPage, onFirstPage),
    async eachListedOrder(query, onOrder) {
      const listed = await requests.call('list orders', (signal) => client.eachListedOrder(query, onOrder, { signal }));
      return listed.orders;
    },
    async tryEachListedOrder(query, onOrder) {
      try {
        await requests.call('list orders', (signal) => client.eachListedOrder(query, onOrder, { signal }), true);
        return true;
      } catch (error) {
        if (requests.signal.aborted) throw error;
        logger.info({ err: (error as Error).message }, 'list orders did not answer usefully; reading orders one by one');
        return false;
      }
    },
    readServerNow: () => requests.call('the API clock', (signal) => client.serverNow({ signal })),
    stats: () => ({ ...requests.stats }),
    cancel: (reason) => requests.stopAll(reason),
  };
}

/**
 * An order's packages, or the 404 the API answered for them. A 404 means "no such order" only if the
 * order's own read says so too (PRODUCT.md section 6): the caller judges, as an API that returns an
 * order but 404s its packages (a gateway that does not route them) must stop the run, not pass as
 * an order without packages. Only the request's own 404 counts: one from a token refresh is not about the order.
 */
async function readPackagesOrNotFound(client: ApiClient, customerOrderId: string, signal: AbortSignal): Promise<PackageRecord[] | HttpError> {
  try {
    return (await client.getPackages(customerOrderId, { signal })).data;
  } catch (error) {
    if (error instanceof HttpError && error.status === 404 && error.stage === 'request') return error;
    throw error;
  }
}

/**
 * The packages read by readPackagesOf, once the orders' reads are known: a 404 for an order the API
 * does not know (its read is null) is no packages; a 404 for an order it returned is thrown.
 */
export function packagesOfKnownOrders(read: ReadonlyMap<string, PackageRecord[] | HttpError>, isOrderUnknown: (customerOrderId: string) => boolean): Map<string, PackageRecord[]> {
  const out = new Map<string, PackageRecord[]>();
  for (const [id, records] of read) {
    if (!(records instanceof HttpError)) out.set(id, records);
    else if (isOrderUnknown(id)) out.set(id, []);
    else {
      const { method, url, status, body, requestId, stage } = records;
      throw new HttpError(`The API returned order '${id}' but answered 404 for its packages (${method} ${url}): ${records.message}`, {
        method, url, status, body, stage, cause: records, ...(requestId === undefined ? {} : { requestId }),
      });
    }
  }
  return out;
}
