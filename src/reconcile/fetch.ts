/**
 * Reading the API for reconcile: orders, packages per order, and tracking-update pages, through one
 * concurrency limit (default 8 requests in flight) with the client's retry policy (transient
 * failures only, exponential backoff with full jitter, Retry-After honoured) and the wholesale-
 * failure guard. The first error that outlasts its retries stops every other request: a
 * reconciliation built on half the answers would be wrong without saying so.
 */
import { performance } from 'node:perf_hooks';
import { setImmediate as afterPendingIo, setTimeout as sleepFor } from 'node:timers/promises';
import pLimit from 'p-limit';
import { createFailureGuard, type FailureGuard } from '../api/breaker.js';
import { describeApiTrouble } from '../api/error-message.js';
import { HttpError, isRetryable, TransportError } from '../api/errors.js';
import { DEFAULT_BACKOFF, retrying } from '../api/retry.js';
import type { ApiClient, ListOrdersQuery, UnparsedPage } from '../api/types.js';
import { failingWholesale, isUnusableForEveryRequest } from '../api/unusable.js';
import type { SearchBy } from '../contract/enums.js';
import { LIMITS } from '../contract/limits.js';
import type { OrderRead, PackageRecord } from '../contract/schemas.js';
import { ApiUnusableError } from '../errors.js';
import type { Logger } from '../log.js';

export interface TrackingWindow {
  startDate: string;
  endDate: string;
  searchBy?: SearchBy;
}

export interface ReaderStats {
  requests: number;
  retries: number;
  trackingPages: number;
}

export interface ApiReader {
  /** Each order's read; null when the API answers 404. */
  readOrders(customerOrderIds: readonly string[]): Promise<Map<string, OrderRead | null>>;
  /** Each order's packages; none when the API answers 404 (an order it does not know). */
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
  // rejectOnClear: tasks still queued when the run stops must settle, or awaiting them would hang.
  const concurrency = options.concurrency ?? READER_DEFAULTS.concurrency;
  const limit = pLimit({ concurrency, rejectOnClear: true });
  const maxAttempts = options.maxAttempts ?? READER_DEFAULTS.maxAttempts;
  const guard: FailureGuard = createFailureGuard({ now: options.monotonicNow ?? (() => performance.now()) });
  const stop = new AbortController();
  const stats: ReaderStats = { requests: 0, retries: 0, trackingPages: 0 };
  /** The last retryable failure, worded by cause, for the message of a run that stops on them. */
  let lastTrouble: string | undefined;

  /**
   * One request with retries; the first failure that outlasts them aborts everything else, unless
   * the request is optional (its failure is the caller's to handle).
   */
  function call<T>(what: string, fn: (signal: AbortSignal) => Promise<T>, isOptional = false): Promise<T> {
    return limit(async () => {
      stop.signal.throwIfAborted();
      try {
        return await retrying(
          async () => {
            const pause = guard.delayBeforeNextMs();
            if (pause > 0) await (options.sleep ?? defaultSleep)(pause, stop.signal);
            if (guard.shouldStop()) throw new ApiUnusableError(`${failingWholesale(lastTrouble).message}; reconcile stopped early. Try again later.`, { kind: 'unavailable' });
            stats.requests++;
            try {
              const result = await fn(stop.signal);
              guard.record('success');
              return result;
            } catch (error) {
              const isFailure = isRetryable(error);
              guard.record(isFailure ? 'failure' : 'success');
              if (isFailure) lastTrouble = describeApiTrouble(error);
              throw error;
            }
          },
          {
            maxAttempts,
            policy: DEFAULT_BACKOFF,
            // An answer too large stays too large: not worth a retry.
            shouldRetry: (error) => isRetryable(error) && !(error instanceof TransportError && error.code === 'response_too_large'),
            signal: stop.signal,
            ...(options.sleep ? { sleep: options.sleep } : {}),
            ...(options.random ? { random: options.random } : {}),
            onRetry: ({ attempt, error, delayMs }) => {
              stats.retries++;
              logger.debug({ what, attempt, delayMs, err: (error as Error).message }, 'retrying a read');
            },
          },
        );
      } catch (error) {
        if (isOptional && !stop.signal.aborted && !isUnusableForEveryRequest(error)) throw error;
        stopAll(error);
        throw error;
      }
    });
  }

  /** Stops every request queued or in flight; the first reason given is the one the run reports. */
  function stopAll(reason: unknown): void {
    if (stop.signal.aborted) return;
    stop.abort(reason);
    limit.clearQueue();
  }

  /** Runs every task; on the first failure, rejects with the error that stopped the run (not an abort it caused). */
  async function all<T>(tasks: Promise<T>[]): Promise<T[]> {
    const settled = await Promise.allSettled(tasks);
    if (stop.signal.aborted) throw stop.signal.reason;
    return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
  }

  async function readTrackingWindow(window: TrackingWindow, onPage: (records: PackageRecord[]) => void, onFirstPage?: () => void) {
    const query = (pageNumber: number) => ({
      searchBy: window.searchBy ?? 'updated',
      startDate: window.startDate,
      endDate: window.endDate,
      pageNumber,
      itemsPerPage: READER_DEFAULTS.itemsPerPage,
    });
    let packages = 0;
    let fetched = 0;
    let totalPages = 1;
    const fetchPage = (pageNumber: number) => call(`tracking page ${pageNumber}`, (signal) => client.fetchTrackingUpdates(query(pageNumber), { signal }));
    const take = (unparsed: UnparsedPage<PackageRecord>) => {
      try {
        const page = unparsed.parse();
        stats.trackingPages++;
        onPage(page.data);
        packages += page.data.length;
        fetched++;
        // If the window grew meanwhile (a page reports more pages than page 1 did), the extra pages are fetched too.
        totalPages = Math.max(totalPages, page.pagination?.totalPages ?? 1);
      } catch (error) {
        // A page that cannot be read stops the others too: a window with pages missing must not pass as complete.
        stopAll(error);
        throw error;
      }
    };
    take(await fetchPage(1));
    onFirstPage?.();
    // `concurrency` lanes, each asking for the next page as soon as its last one is in, and parsing
    // that one afterwards (after the pending I/O callbacks): pages that arrive together all have their
    // next request out before any of them is parsed, so no lane waits for the others' parsing. A
    // request made meanwhile (the order reads of gather.ts) waits for one page, not for all of them.
    let next = 2;
    const parsing: Promise<void>[] = [];
    // Pages are taken in page order, whatever order they come in: an order's packages are then listed
    // as the API lists them, and two runs over the same answers give the same workbook. A page waits
    // for those requested before it: a few, or longer while one of them is being retried.
    const arrived = new Map<number, UnparsedPage<PackageRecord>>();
    let nextToTake = 2;
    const parseLater = (pageNumber: number, unparsed: UnparsedPage<PackageRecord>): Promise<void> => {
      const parsed = afterPendingIo().then(() => {
        if (stop.signal.aborted) return;
        arrived.set(pageNumber, unparsed);
        for (let page = arrived.get(nextToTake); page; page = arrived.get(nextToTake)) {
          arrived.delete(nextToTake++);
          take(page);
        }
      });
      // Awaited below; marked handled now, as lanes stopped by its failure end first.
      parsed.catch(() => undefined);
      return parsed;
    };
    const lane = async (): Promise<void> => {
      try {
        while (next <= totalPages) {
          const pageNumber = next++;
          parsing.push(parseLater(pageNumber, await fetchPage(pageNumber)));
        }
      } catch (error) {
        stopAll(error);
        throw error;
      }
    };
    while (next <= totalPages) {
      await all(Array.from({ length: Math.min(concurrency, totalPages - next + 1) }, lane));
      await all(parsing.splice(0));
    }
    return { pages: fetched, packages };
  }

  return {
    async readOrders(ids) {
      const reads = await all(ids.map((id) => call(`order ${id}`, (signal) => client.getOrder(id, { signal }))));
      return new Map(ids.map((id, i) => [id, reads[i]?.order ?? null]));
    },
    async readPackagesOf(ids) {
      const pages = await all(ids.map((id) => call(`packages of ${id}`, (signal) => readPackagesOrNotFound(client, id, signal))));
      return new Map(ids.map((id, i) => [id, pages[i] ?? []]));
    },
    readTrackingWindow,
    async eachListedOrder(query, onOrder) {
      const listed = await call('list orders', (signal) => client.eachListedOrder(query, onOrder, { signal }));
      return listed.orders;
    },
    async tryEachListedOrder(query, onOrder) {
      try {
        await call('list orders', (signal) => client.eachListedOrder(query, onOrder, { signal }), true);
        return true;
      } catch (error) {
        if (stop.signal.aborted) throw error;
        logger.info({ err: (error as Error).message }, 'list orders did not answer usefully; reading orders one by one');
        return false;
      }
    },
    readServerNow: () => call('the API clock', (signal) => client.serverNow({ signal })),
    stats: () => ({ ...stats }),
    cancel: stopAll,
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

async function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  await sleepFor(ms, undefined, signal ? { signal } : undefined);
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
