/**
 * Getting the API's side of the selected orders into the store.
 *
 * - Few orders (at most `perOrderMax`): read each order and its packages.
 * - Many: page through tracking updates for the span the store does not cover yet (window.ts),
 *   then read the orders that need it (never read, packages changed, or a line not yet final): as
 *   one list-orders request when there are many, else (or when that fails) one by one.
 * In ledger mode, packages of orders the ledger does not hold are gathered too: unknown orders.
 */
import { LIMITS } from '../contract/limits.js';
import type { OrderRead, PackageRecord } from '../contract/schemas.js';
import type { Ledger } from '../ledger/types.js';
import type { Logger } from '../log.js';
import { FetchedPackages } from './fetched-packages.js';
import { packagesOfKnownOrders, type ApiReader } from './fetch.js';
import { mergePackages, newestUpdate, normaliseInstant, type PackageStore } from './package-store.js';
import type { Selection } from './select.js';
import { earliestUpdateOf, needsFreshRead, planTrackingWindow, TRACKING_WATERMARK, type WindowPlan } from './window.js';

const DAY_MS = 86_400_000;

export interface GatherOptions {
  selection: Selection;
  reader: ApiReader;
  store: PackageStore;
  ledger?: Ledger;
  now: Date;
  overlapMs: number;
  /** At most this many orders: read them one by one instead of paging tracking updates. Default 25. */
  perOrderMax: number;
  /** From this many orders to read on, try one list-orders request first. Default 200. */
  bulkReadMin: number;
  logger: Logger;
  /** Tracking pages already being fetched (startTrackingPrefetch): used when their window is the one the selection needs. */
  prefetch?: TrackingPrefetch;
  /**
   * Called once while the pages of a whole window come in (not an incremental one: its packages are
   * laid over the store's only afterwards), with the packages so far and the order reads made
   * meanwhile. The promise it returns is awaited once the pages are in, before anything else.
   */
  whilePaging?: (paging: Paging) => Promise<void>;
}

export interface Paging {
  packages: FetchedPackages;
  /** The orders read while the pages come in; null if reading them failed (the run then fails too). */
  reads: Promise<ReadonlyMap<string, OrderRead | null> | null>;
  /** Settles (either way) once every page is in or the fetch failed. */
  pagesDone: Promise<unknown>;
}

/**
 * Tracking pages fetched while the selection is still being read. In ledger mode the window needs
 * only the selection's earliest submittedAt, which the ledger tells at once; reading the selected
 * records takes longer, and the pages (mostly waiting on the API) come in meanwhile.
 */
export interface TrackingPrefetch {
  plan: WindowPlan;
  /** Packages of the pages in so far, kept as gatherFromApi keeps them. */
  packages: FetchedPackages;
  /** Settles once page 1 is in (the count of pages is known) or the fetch failed. */
  firstPage: Promise<void>;
  hasFirstPage(): boolean;
  /** Every page; rejects as readTrackingWindow does (marked handled: await it to see the error). */
  done: Promise<{ pages: number; packages: number }>;
}

type WindowOptions = Pick<GatherOptions, 'store' | 'ledger' | 'now' | 'overlapMs'>;

/** The span to fetch for a selection whose packages can have been updated from `startMs` on (earliestUpdateOf). */
async function windowFor(startMs: number, options: WindowOptions): Promise<WindowPlan> {
  return planTrackingWindow({
    selectionStart: new Date(startMs - options.overlapMs),
    now: options.now,
    coverage: options.store.getCoverage(),
    watermark: (await options.ledger?.getWatermark(TRACKING_WATERMARK)) ?? null,
    overlapMs: options.overlapMs,
  });
}

const isSameWindow = (a: WindowPlan, b: WindowPlan) => a.startDate === b.startDate && a.endDate === b.endDate && a.isIncremental === b.isIncremental;

export async function startTrackingPrefetch(options: WindowOptions & { reader: ApiReader; earliestMs: number; logger: Logger }): Promise<TrackingPrefetch> {
  const plan = await windowFor(options.earliestMs, options);
  const packages = new FetchedPackages();
  let isFirstIn = false;
  let settleFirst: () => void = () => undefined;
  const firstPage = new Promise<void>((resolve) => (settleFirst = resolve));
  options.logger.info({ startDate: plan.startDate, endDate: plan.endDate, incremental: plan.isIncremental }, 'fetching tracking updates');
  const done = options.reader.readTrackingWindow(plan, (records) => packages.takePage(records), () => {
    isFirstIn = true;
    settleFirst();
  });
  done.then(settleFirst, settleFirst);
  return { plan, packages, firstPage, hasFirstPage: () => isFirstIn, done };
}

export interface Gathered {
  strategy: 'none' | 'per-order' | 'tracking';
  plan: WindowPlan | null;
  /** Packages of the orders this run fetched any for: what it fetched over what the store held. */
  packages: Map<string, PackageRecord[]>;
  /**
   * True when this run fetched every package of every selected order (each order's own, or the
   * whole window since the selection's start): the store then has nothing to add.
   */
  isComplete: boolean;
  /** Orders read in this run (null: 404). */
  freshReads: Map<string, OrderRead | null>;
  /** Orders whose packages changed in this run: to be written back to the store. */
  changed: Set<string>;
  /** Ledger mode: orders with packages updated in the window that the ledger does not hold. */
  unknownIds: string[];
}

export const GATHER_DEFAULTS = { perOrderMax: 25, bulkReadMin: 200 } as const;

function earliest(instants: Iterable<number | null>): number | null {
  let min: number | null = null;
  for (const ms of instants) if (ms !== null && (min === null || ms < min)) min = ms;
  return min;
}

export async function gatherFromApi(options: GatherOptions): Promise<Gathered> {
  const { selection, reader, store } = options;
  const ids = selection.customerOrderIds;
  const freshReads = new Map<string, OrderRead | null>();
  const changed = new Set<string>();
  let fetchedPackages = new FetchedPackages();
  let packages = fetchedPackages.byOrder;
  // A prefetch's packages are this run's only if its window is the one this selection needs.
  let prefetch = options.prefetch;
  const dropPrefetch = async () => {
    if (!prefetch) return;
    const unused = prefetch;
    prefetch = undefined;
    options.logger.debug('the tracking pages fetched ahead are not the ones this selection needs; fetching again');
    await unused.done.catch(() => undefined);
  };
  const take = (records: readonly PackageRecord[]) => fetchedPackages.takePage(records);
  /**
   * Lays what was fetched over what the store holds and notes the orders that changed (the caller
   * writes those back once the run has succeeded).
   */
  const settle = (isComplete: boolean) => {
    for (const [id, fetched] of packages) {
      // A complete fetch is the whole truth; merging it with the store would cost a read per order.
      if (isComplete) {
        changed.add(id);
        continue;
      }
      const merged = mergePackages(store.packagesOf(id), fetched);
      packages.set(id, merged.packages);
      if (merged.hasChanges) changed.add(id);
    }
  };
  const result = (strategy: Gathered['strategy'], plan: WindowPlan | null, isComplete: boolean, unknownIds: string[] = []): Gathered => ({
    strategy,
    plan,
    packages,
    isComplete,
    freshReads,
    changed,
    unknownIds,
  });
  if (ids.length <= options.perOrderMax) await dropPrefetch();
  if (ids.length === 0) return result('none', null, true);

  if (ids.length <= options.perOrderMax) {
    const toRead = ids.filter((id) => !selection.reads.has(id));
    const [reads, perOrder] = await Promise.all([reader.readOrders(toRead), reader.readPackagesOf(ids)]);
    for (const [id, read] of reads) freshReads.set(id, read);
    const isUnknown = (id: string) => (reads.has(id) ? reads.get(id) : selection.reads.get(id)) === null;
    for (const records of packagesOfKnownOrders(perOrder, isUnknown).values()) take(records);
    settle(true);
    return result('per-order', null, true);
  }

  // One store lookup per order, however often it is asked about; the selected ones in one go.
  const storedReads = store.getOrderReads(ids);
  const storedRead = (id: string) => {
    if (!storedReads.has(id)) storedReads.set(id, store.getOrderRead(id));
    return storedReads.get(id);
  };
  // Packages can only be updated after their order was created, which is after its orderDate. What
  // we sent (and when the ledger recorded it accepted), else the API's copy of the order.
  // Asked up to three times per order (the window, the early reads, the late ones): parsed once.
  const dates = new Map<string, number | null>();
  const dateOf = (id: string): number | null => {
    let ms = dates.get(id);
    if (ms !== undefined) return ms;
    const e = selection.expected.get(id);
    ms = (e ? earliestUpdateOf(e) : null) ?? earliestUpdateOf({ orderDate: selection.reads.get(id)?.orderDate ?? storedRead(id)?.read?.orderDate });
    dates.set(id, ms);
    return ms;
  };
  const undated = ids.filter((id) => dateOf(id) === null);
  if (undated.length > 0) for (const [id, read] of await readMany(undated, options)) freshReads.set(id, read);
  const start = earliest([...ids.map(dateOf), ...[...freshReads.values()].map((r) => earliestUpdateOf({ orderDate: r?.orderDate }))]);
  if (start === null) return result('tracking', null, true);

  const plan = await windowFor(start, options);
  if (prefetch && !isSameWindow(prefetch.plan, plan)) await dropPrefetch();
  if (!prefetch) options.logger.info({ startDate: plan.startDate, endDate: plan.endDate, incremental: plan.isIncremental }, 'fetching tracking updates');
  // Orders to be read whatever the packages say (never read, or a line not final) are read while
  // the pages come in; those whose packages turn out to have changed, after.
  const needed = (id: string, hasChanges: boolean) => !freshReads.has(id) && !selection.reads.has(id) && needsFreshRead(storedRead(id), hasChanges);
  const early = ids.filter((id) => needed(id, false));
  // Started once page 1 is in: the pages' count is known and they go first; a big list-orders answer must not hold page 1 up.
  let earlyReads: Promise<Map<string, OrderRead | null>> = Promise.resolve(new Map());
  let earlyReadsIn: (reads: ReadonlyMap<string, OrderRead | null> | null) => void = () => undefined;
  const readsIn = new Promise<ReadonlyMap<string, OrderRead | null> | null>((resolve) => (earlyReadsIn = resolve));
  const startEarlyReads = () => {
    earlyReads = readMany(early, options, earliest(early.map(dateOf)));
    // Awaited below; marked handled now so a failure during the pages is not an unhandled rejection.
    earlyReads.then(earlyReadsIn, () => earlyReadsIn(null));
  };
  if (prefetch) {
    fetchedPackages = prefetch.packages;
    packages = fetchedPackages.byOrder;
  }
  const fetchPages = async (): Promise<{ pages: number; packages: number }> => {
    if (!prefetch) return reader.readTrackingWindow(plan, take, startEarlyReads);
    await prefetch.firstPage;
    if (prefetch.hasFirstPage()) startEarlyReads();
    return prefetch.done;
  };
  const pagesDone = fetchPages();
  const paging = plan.isIncremental ? undefined : options.whilePaging?.({ packages: fetchedPackages, reads: readsIn, pagesDone });
  const fetched = await pagesDone.catch(async (error: unknown) => {
    await Promise.all([earlyReads.catch(() => undefined), paging]);
    throw error;
  });
  await paging;
  for (const [id, read] of await earlyReads) freshReads.set(id, read);
  settle(!plan.isIncremental);
  options.logger.info({ pages: fetched.pages, packages: fetched.packages, ordersChanged: changed.size }, 'tracking updates fetched');

  const unknownIds = await findUnknownOrders(options, new Set(ids), packages);
  const late = [...ids, ...unknownIds].filter((id) => needed(id, changed.has(id)));
  for (const [id, read] of await readMany(late, options, earliest(late.map(dateOf)))) freshReads.set(id, read);
  return result('tracking', plan, !plan.isIncremental, unknownIds);
}

/**
 * The packages of an order as this run knows them: fetched now, over what the store remembers
 * (unless this run fetched everything, when the store has nothing to add).
 */
export function packagesFor(gathered: Gathered, store: PackageStore, customerOrderId: string): PackageRecord[] {
  return gathered.packages.get(customerOrderId) ?? (gathered.isComplete ? [] : store.packagesOf(customerOrderId));
}

/** Ledger mode: orders whose packages were updated since the selection's start and that the ledger does not hold. */
async function findUnknownOrders(options: GatherOptions, selected: ReadonlySet<string>, fetched: ReadonlyMap<string, readonly PackageRecord[]>): Promise<string[]> {
  const { selection, ledger, store } = options;
  if (selection.mode !== 'ledger' || !ledger || !selection.since) return [];
  const since = normaliseInstant(selection.since.toISOString());
  const seen = new Set(store.orderIdsUpdatedSince(since));
  for (const [id, records] of fetched) if (!seen.has(id) && !selected.has(id) && newestUpdate(records) >= since) seen.add(id);
  const candidates = [...seen].filter((id) => !selected.has(id));
  if (candidates.length === 0) return [];
  const known = await ledger.getMany(candidates);
  return candidates.filter((id) => !known.has(id));
}

/** Order reads: one list-orders request when there are many (orders it leaves out are read one by one). */
async function readMany(ids: readonly string[], options: GatherOptions, earliestMs: number | null = null): Promise<Map<string, OrderRead | null>> {
  const out = new Map<string, OrderRead | null>();
  if (ids.length === 0) return out;
  let rest = ids;
  if (ids.length >= options.bulkReadMin && earliestMs !== null) {
    const days = Math.ceil((options.now.getTime() - earliestMs) / DAY_MS) + 1;
    if (days <= LIMITS.lastDaysMax) {
      const listed = await options.reader.tryListOrders({ lastDays: Math.max(1, days), orderDisposition: ['all'] });
      if (listed) {
        const wanted = new Set(ids);
        for (const order of listed) if (wanted.has(order.customerOrderId)) out.set(order.customerOrderId, order);
        rest = ids.filter((id) => !out.has(id));
        options.logger.info({ listed: listed.length, used: out.size, remaining: rest.length }, 'orders read by list');
      }
    }
  }
  for (const [id, read] of await options.reader.readOrders(rest)) out.set(id, read);
  return out;
}
