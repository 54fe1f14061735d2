/**
 * Which orders a run reconciles:
 * - default / --since / --hours: orders the ledger recorded as accepted since then (default 30 days);
 * - --orders <result file>: the accepted and already_submitted orders of a validate/import result;
 * - --all: every order the API lists (list orders with lastDays and the disposition filters).
 * The ledger, when there is one, supplies what we sent for each (the expected order).
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { JsonInput } from '../run-report/json.js';
import { LIMITS } from '../contract/limits.js';
import type { OrderRead } from '../contract/schemas.js';
import { UsageError } from '../errors.js';
import type { Ledger } from '../ledger/index.js';
import type { Logger } from '../log.js';
import { CLOCK_SKEW_NOTICE_MS } from './api-clock.js';
import { expectedForOrdersFile, expectOrderFromRecord } from './expected.js';
import type { ApiReader } from './fetch.js';
import { readOrdersFile } from './orders-file.js';
import type { RunSpill } from './spill.js';
import { orderMap, type OrderMap } from './spill-map.js';
import type { ExpectedOrder } from './types.js';

const DAY_MS = 86_400_000;
export const DEFAULT_SINCE_DAYS = 30;
/** Ledger records read per step (a few ms of work) before the event loop gets a turn. */
const SELECT_PAGE = 200;
/** Orders whose records are asked of the ledger at once. */
const LEDGER_BATCH = 1_000;

export type SelectionMode = 'ledger' | 'orders-file' | 'all';

export interface Selection {
  mode: SelectionMode;
  /** For the Summary sheet: what was selected. */
  description: string;
  customerOrderIds: string[];
  /** What was sent, by order (past the run's window, on disk: see spill.ts). */
  expected: OrderMap<ExpectedOrder>;
  /** Order reads the selection already brought (--all lists them). */
  reads: OrderMap<OrderRead>;
  /** Ledger mode: orders submitted since then; packages of orders the ledger lacks updated since then are unknown orders. */
  since: Date | null;
  input: JsonInput[];
  /** --orders given a plain order sheet (no status column): every order taken, none known to be accepted. */
  isOrdersFileWithoutStatus?: boolean;
}

export interface SelectOptions {
  ledger?: Ledger;
  since?: Date;
  hours?: number;
  ordersFile?: string;
  all?: boolean;
  sheet?: string;
  /** --orders: the zone dates without an offset are read in (default UTC). */
  timezone?: string;
  now: Date;
  /**
   * This machine's clock, when `now` is the API's: the ledger's submittedAt times were written by it,
   * so --hours and the default window select the ledger on it. Default `now`.
   */
  ledgerNow?: Date;
  /** --all: order dispositions to list (default all) and line dispositions (default: the API's, all). */
  orderDisposition?: readonly string[];
  orderLineItemDisposition?: readonly string[];
  logger: Logger;
  /** Where the selected orders go past the run's window; without one they stay in memory. */
  spill?: RunSpill;
}

/**
 * The start of the window: --since, else --hours before now, else 30 days before now. "now" is the
 * API's for --all (it lists orders by its own clock), this machine's for the ledger (see ledgerNow).
 */
export function resolveSince(options: Pick<SelectOptions, 'since' | 'hours' | 'now' | 'ledgerNow' | 'all'>): Date {
  const now = options.all ? options.now : (options.ledgerNow ?? options.now);
  if (options.since && options.hours !== undefined) throw new UsageError('Give --since or --hours, not both.');
  if (options.since) {
    if (Number.isNaN(options.since.getTime())) throw new UsageError('--since takes an ISO 8601 instant such as 2026-11-01T00:00:00Z.');
    if (options.since.getTime() > now.getTime()) throw new UsageError(`--since ${options.since.toISOString()} is in the future.`);
    return options.since;
  }
  if (options.hours !== undefined) {
    if (!Number.isFinite(options.hours) || options.hours <= 0) throw new UsageError('--hours takes a positive number of hours.');
    return new Date(now.getTime() - options.hours * 3_600_000);
  }
  return new Date(now.getTime() - DEFAULT_SINCE_DAYS * DAY_MS);
}

/**
 * --all asks the API to list orders by `lastDays`, whole days from 1 to 365: a --hours or --since
 * window is rounded up to whole days (--hours 5 lists the last day) and capped at 365. `note` says
 * so when the window asked for is not exactly what is listed ('' when it is, or none was asked for).
 */
export function listWindowOf(options: Pick<SelectOptions, 'since' | 'hours' | 'now'>, since: Date): { lastDays: number; note: string } {
  const days = (options.now.getTime() - since.getTime()) / DAY_MS;
  const lastDays = Math.min(LIMITS.lastDaysMax, Math.max(1, Math.ceil(days)));
  const asked = options.hours !== undefined ? `--hours ${options.hours}` : options.since ? `--since ${since.toISOString()}` : null;
  if (asked === null || lastDays === days) return { lastDays, note: '' };
  const note = lastDays < days ? `${asked} is capped at the ${LIMITS.lastDaysMax} days the API lists at most` : `${asked} is rounded up to whole days, as the API lists orders by day`;
  return { lastDays, note };
}

/**
 * The ledger is selected on this machine's clock (it wrote the submittedAt times) while the rest of
 * the Summary sheet (Generated, Fetched) is on the API's: said when the two differ.
 */
export function ledgerClockNote(options: Pick<SelectOptions, 'now' | 'ledgerNow'>): string {
  if (!options.ledgerNow) return '';
  const skewMs = options.now.getTime() - options.ledgerNow.getTime();
  if (Math.abs(skewMs) <= CLOCK_SKEW_NOTICE_MS) return '';
  const hours = Math.abs(skewMs) / 3_600_000;
  const size = hours < 48 ? `${hours.toFixed(1)} hours` : `${(hours / 24).toFixed(1)} days`;
  return `, by this machine's clock, which recorded them (Generated and Fetched are on the API's clock, ${size} ${skewMs > 0 ? 'ahead of' : 'behind'} this machine's)`;
}

async function expectedFromLedger(ledger: Ledger | undefined, ids: readonly string[], spill: RunSpill | undefined): Promise<OrderMap<ExpectedOrder>> {
  const out = orderMap<ExpectedOrder>(spill);
  if (!ledger) return out;
  for (let i = 0; i < ids.length; i += LEDGER_BATCH) {
    for (const [id, record] of await ledger.getMany(ids.slice(i, i + LEDGER_BATCH))) out.set(id, expectOrderFromRecord(record));
  }
  return out;
}

/** Flags that cannot go together, or a window that makes no sense: refused before anything is read. */
export function checkSelectOptions(options: Pick<SelectOptions, 'ledger' | 'since' | 'hours' | 'ordersFile' | 'all' | 'now' | 'ledgerNow'>): void {
  if (options.ordersFile !== undefined && (options.all || options.since || options.hours !== undefined)) {
    throw new UsageError('--orders names the orders itself: leave out --all, --since and --hours.');
  }
  if (options.ordersFile === undefined) resolveSince(options);
  if (options.ordersFile === undefined && !options.all && !options.ledger) {
    throw new UsageError('reconcile needs the ledger to know which orders were sent; or give --orders <result file> or --all.');
  }
}

export async function selectOrders(options: SelectOptions, reader: ApiReader): Promise<Selection> {
  const { ledger } = options;
  checkSelectOptions(options);
  if (options.ordersFile !== undefined) {
    const file = await readOrdersFile(options.ordersFile, { logger: options.logger, ...(options.sheet ? { sheet: options.sheet } : {}), ...(options.timezone ? { timezone: options.timezone } : {}) });
    const skipped = Object.entries(file.skipped).map(([status, n]) => `${n} ${status}`);
    if (file.customerOrderIds.length === 0 && skipped.length > 0) {
      // A validate result, or an import whose orders all failed: nothing there was ever accepted.
      options.logger.warn({ file: file.file, left: file.skipped }, `${file.file} lists no accepted or already submitted order (${skipped.join(', ')}): give --orders the result file of an import.`);
    }
    return {
      mode: 'orders-file',
      description: `orders of ${file.file} accepted or already submitted${skipped.length ? ` (left out: ${skipped.join(', ')})` : ''}`,
      customerOrderIds: file.customerOrderIds,
      expected: expectedForOrdersFile(file.customerOrderIds, await expectedFromLedger(ledger, file.customerOrderIds, options.spill), file.expected, orderMap(options.spill)),
      reads: orderMap(options.spill),
      since: null,
      input: [{ file: file.file, sha256: file.sha256, rows: file.rows, orders: file.customerOrderIds.length }],
      ...(file.hasStatusColumn ? {} : { isOrdersFileWithoutStatus: true }),
    };
  }
  const since = resolveSince(options);
  if (options.all) {
    const { lastDays, note } = listWindowOf(options, since);
    if (note !== '') options.logger.info({ lastDays }, `--all lists the orders of the last ${lastDays} day(s): ${note}.`);
    const orderDisposition = options.orderDisposition ?? ['all'];
    const reads = orderMap<OrderRead>(options.spill);
    const ids: string[] = [];
    // The answer is read as it comes in: each order once (a retried request lists them again).
    const query = { lastDays, orderDisposition, ...(options.orderLineItemDisposition ? { orderLineItemDisposition: options.orderLineItemDisposition } : {}) };
    await reader.eachListedOrder(query, (order) => {
      if (reads.has(order.customerOrderId)) return;
      reads.set(order.customerOrderId, order);
      ids.push(order.customerOrderId);
    });
    return {
      mode: 'all',
      description: `every order the API lists for the last ${lastDays} day(s)${note === '' ? '' : ` (${note})`} (order dispositions: ${orderDisposition.join(', ')})`,
      customerOrderIds: ids,
      expected: await expectedFromLedger(ledger, ids, options.spill),
      reads,
      since: null,
      input: [],
    };
  }
  if (!ledger) throw new UsageError('reconcile needs the ledger to know which orders were sent; or give --orders <result file> or --all.');
  // In pages, letting the event loop run between them: tracking pages already in flight (see
  // startTrackingPrefetch) are taken in while the ledger is read.
  const expected = orderMap<ExpectedOrder>(options.spill);
  const ids: string[] = [];
  for await (const page of ledger.pagesSubmittedSince(since, SELECT_PAGE)) {
    for (const record of page) {
      if (!expected.has(record.customerOrderId)) ids.push(record.customerOrderId);
      expected.set(record.customerOrderId, expectOrderFromRecord(record));
    }
    await nextTurn();
  }
  return {
    mode: 'ledger',
    description: `orders the ledger recorded as accepted since ${since.toISOString()}${ledgerClockNote(options)}`,
    customerOrderIds: ids,
    expected,
    reads: orderMap(options.spill),
    since,
    input: [{ file: ledger.location, sha256: null, rows: expected.size, orders: expected.size }],
  };
}
