/**
 * Getting the API's side of the selected orders into the store.
 *
 * - Few orders (at most `perOrderMax`): read each order and its packages.
 * - Many: page through tracking updates for the span the store does not cover yet (window.ts),
 *   then read the orders that need it (never read, packages changed, or a line not yet final): as
 *   one list-orders request when there are many, else (or when that fails) one by one.
 * In ledger mode, packages of orders the ledger does not hold are gathered too: unknown orders.
 * What is gathered (packages, reads) moves to disk past the run's window (spill.ts); what stays in
 * memory per order is its ID and a few numbers.
 */
import { LIMITS } from '../contract/limits.js';
import type { OrderRead, PackageRecord } from '../contract/schemas.js';
import type { Ledger } from '../ledger/index.js';
import type { Logger } from '../log.js';
import { FetchedPackages } from './fetched-packages.js';
import { packagesOfKnownOrders, type ApiReader } from './fetch.js';
import { mergePackages, normaliseInstant, type PackageStore } from './package-store.js';
import type { Selection } from './select.js';
import type { RunSpill } from './spill.js';
import { orderMap, type OrderMap } from './spill-map.js';
import { earliestUpdateOf, needsFreshRead, planTrackingWindow, TRACKING_WATERMARK, type WindowPlan } from './window.js';

const DAY_MS = 86_400_000;
/** Orders asked about at once: of the store, of the ledger, or read one by one. */
const BATCH = 1_000;

/** A run's order reads, looked up by ID (null: the API answered 404). */
export interface ReadLookup {
  get(customerOrderId: string): OrderRead | null | undefined;
}

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
  /** Where packages and reads go past the run's window; without one they stay in memory. */
  spill?: RunSpill;
}

export interface Paging {
  packages: FetchedPackages;
  /** The orders read while the pages come in; null if reading them failed (the run then fails too). */
  reads: Promise<ReadLookup | null>;
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

export async function startTrackingPrefetch(options: WindowOptions & { reader: ApiReader; earliestMs: number; logger: Logger; spill?: RunSpill }): Promise<TrackingPrefetch> {
  const plan = await windowFor(options.earliestMs, options);
  const packages = new FetchedPackages(options.spill);
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
  packages: OrderMap<PackageRecord[]>;
  /**
   * True when this run fetched every package of every selected order (each order's own, or the
   * whole window since the selection's start): the store then has nothing to add.
   */
  isComplete: boolean;
  /** Orders read in this run (null: 404). */
  freshReads: OrderMap<OrderRead | null>;
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
  const freshReads = orderMap<OrderRead | null>(options.spill);
  const changed = new Set<string>();
  let fetched = new FetchedPackages(options.spill);
  // A prefetch's packages are this run's only if its window is the one this selection needs.
  let prefetch = options.prefetch;
  const dropPrefetch = async () => {
    if (!prefetch) return;
    const unused = prefetch;
    prefetch = undefined;
    options.logger.debug('the tracking pages fetched ahead are not the ones this selection needs; fetching again');
    await unused.done.catch(() => undefined);
  };
  const take = (records: readonly PackageRecord[]) => fetched.takePage(records);
  /**
   * Lays what was fetched over what the store holds and notes the orders that changed (the caller
   * writes those back once the run has succeeded).
   */
  const settle = (isComplete: boolean) => {
    const packages = fetched.packages;
    // A complete fetch is the whole truth; merging it with the store would cost a read per order.
    if (isComplete) {
      for (const id of packages.keys()) changed.add(id);
      return;
    }
    for (const id of [...packages.keys()]) {
      const merged = mergePackages(store.packagesOf(id), packages.get(id) ?? []);
      packages.set(id, merged.packages);
      if (merged.hasChanges) changed.add(id);
    }
  };
  const result = (strategy: Gathered['strategy'], plan: WindowPlan | null, isComplete: boolean, unknownIds: string[] = []): Gathered => ({
    strategy,
    plan,
    packages: fetched.packages,
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

  // What the store's last reads say of each selected order (its orderDate, whether it is final),
  // asked in batches; and the earliest instant each order's packages can have been updated.
  const storedStates = readStatesOf(store, ids);
  const dates = new Map<string, number | null>();
  for (const [id, e] of selection.expected) dates.set(id, earliestUpdateOf(e));
  // Packages can only be updated after their order was created, which is after its orderDate. What
  // we sent (and when the ledger recorded it accepted), else the API's copy of the order.
  const dateOf = (id: string): number | null => {
    let ms = dates.get(id);
    if (ms !== undefined && ms !== null) return ms;
    ms = earliestUpdateOf({ orderDate: selection.reads.get(id)?.orderDate ?? storedStates.get(id)?.orderDate });
    dates.set(id, ms);
    return ms;
  };
  const undated = ids.filter((id) => dateOf(id) === null);
  if (undated.length > 0) await readMany(undated, options, null, freshReads);
  const start = earliest([...ids.map(dateOf), ...undated.map((id) => earliestUpdateOf({ orderDate: freshReads.get(id)?.orderDate }))]);
  if (start === null) return result('tracking', null, true);

  const plan = await windowFor(start, options);
  if (prefetch && !isSameWindow(prefetch.plan, plan)) await dropPrefetch();
  if (!prefetch) options.logger.info({ startDate: plan.startDate, endDate: plan.endDate, incremental: plan.isIncremental }, 'fetching tracking updates');
  // Orders to be read whatever the packages say (never read, or a line not final) are read while
  // the pages come in; those whose packages turn out to have changed, after.
  const needed = (id: string, hasChanges: boolean) => !freshReads.has(id) && !selection.reads.has(id) && (hasChanges || storedStates.get(id)?.isFinal !== true);
  const early = ids.filter((id) => needed(id, false));
  // Started once page 1 is in: the pages' count is known and they go first; a big list-orders answer must not hold page 1 up.
  let earlyReads: Promise<void> = Promise.resolve();
  let earlyReadsIn: (reads: ReadLookup | null) => void = () => undefined;
  const readsIn = new Promise<ReadLookup | null>((resolve) => (earlyReadsIn = resolve));
  const startEarlyReads = () => {
    earlyReads = readMany(early, options, earliest(early.map(dateOf)), freshReads);
    // Awaited below; marked handled now so a failure during the pages is not an unhandled rejection.
    earlyReads.then(() => earlyReadsIn(freshReads), () => earlyReadsIn(null));
  };
  if (prefetch) fetched = prefetch.packages;
  const fetchPages = async (): Promise<{ pages: number; packages: number }> => {
    if (!prefetch) return reader.readTrackingWindow(plan, take, startEarlyReads);
    await prefetch.firstPage;
    if (prefetch.hasFirstPage()) startEarlyReads();
    return prefetch.done;
  };
  const pagesDone = fetchPages();
  const paging = plan.isIncremental ? undefined : options.whilePaging?.({ packages: fetched, reads: readsIn, pagesDone });
  const pages = await pagesDone.catch(async (error: unknown) => {
    await Promise.all([earlyReads.catch(() => undefined), paging]);
    throw error;
  });
  await paging;
  await earlyReads;
  settle(!plan.isIncremental);
  options.logger.info({ pages: pages.pages, packages: pages.packages, ordersChanged: changed.size }, 'tracking updates fetched');

  const unknownIds = await findUnknownOrders(options, fetched);
  for (const [id, state] of readStatesOf(store, unknownIds)) storedStates.set(id, state);
  const late = [...ids, ...unknownIds].filter((id) => needed(id, changed.has(id)));
  await readMany(late, options, earliest(late.map(dateOf)), freshReads);
  return result('tracking', plan, !plan.isIncremental, unknownIds);
}

/** What a stored read tells of an order before it is read again: its orderDate, and whether every line is final. */
interface StoredReadState {
  orderDate: string | undefined;
  isFinal: boolean;
}

/** The stored read of each of `ids` the store holds, reduced to what gathering asks of it. */
function readStatesOf(store: PackageStore, ids: readonly string[]): Map<string, StoredReadState> {
  const out = new Map<string, StoredReadState>();
  for (let i = 0; i < ids.length; i += BATCH) {
    for (const [id, stored] of store.getOrderReads(ids.slice(i, i + BATCH))) {
      if (stored) out.set(id, { orderDate: stored.read?.orderDate, isFinal: !needsFreshRead(stored, false) });
    }
  }
  return out;
}

/**
 * The packages of an order as this run knows them: fetched now, over what the store remembers
 * (unless this run fetched everything, when the store has nothing to add).
 */
export function packagesFor(gathered: Pick<Gathered, 'packages' | 'isComplete'>, store: PackageStore, customerOrderId: string): PackageRecord[] {
  return gathered.packages.get(customerOrderId) ?? (gathered.isComplete ? [] : store.packagesOf(customerOrderId));
}

/** Ledger mode: orders whose packages were updated since the selection's start and that the ledger does not hold. */
async function findUnknownOrders(options: GatherOptions, fetched: FetchedPackages): Promise<string[]> {
  const { selection, ledger, store } = options;
  if (selection.mode !== 'ledger' || !ledger || !selection.since) return [];
  const since = normaliseInstant(selection.since.toISOString());
  // In ledger mode the selection is exactly the orders of `expected`.
  const candidates = new Set<string>();
  for (const id of [...store.orderIdsUpdatedSince(since), ...fetched.orderIdsUpdatedSince(since)]) if (!selection.expected.has(id)) candidates.add(id);
  const unknown: string[] = [];
  const list = [...candidates];
  for (let i = 0; i < list.length; i += BATCH) {
    const batch = list.slice(i, i + BATCH);
    const known = await ledger.getMany(batch);
    for (const id of batch) if (!known.has(id)) unknown.push(id);
  }
  return unknown;
}

/**
 * Order reads into `into`: one list-orders request when there are many (read as its answer comes in,
 * keeping the orders asked for), then one by one, in batches, the orders it left out.
 */
async function readMany(ids: readonly string[], options: GatherOptions, earliestMs: number | null, into: OrderMap<OrderRead | null>): Promise<void> {
  if (ids.length === 0) return;
  let rest = ids;
  if (ids.length >= options.bulkReadMin && earliestMs !== null) {
    const days = Math.ceil((options.now.getTime() - earliestMs) / DAY_MS) + 1;
    if (days <= LIMITS.lastDaysMax) {
      const wanted = new Set(ids);
      let listed = 0;
      let used = 0;
      const isAnswered = await options.reader.tryEachListedOrder({ lastDays: Math.max(1, days), orderDisposition: ['all'] }, (order) => {
        listed++;
        const id = order.customerOrderId;
        if (!wanted.has(id)) return;
        if (!into.has(id)) used++;
        into.set(id, order);
      });
      // Orders handed over before a failure stay read.
      rest = ids.filter((id) => !into.has(id));
      if (isAnswered) options.logger.info({ listed, used, remaining: rest.length }, 'orders read by list');
    }
  }
  for (let i = 0; i < rest.length; i += BATCH) {
    for (const [id, read] of await options.reader.readOrders(rest.slice(i, i + BATCH))) into.set(id, read);
  }
}
