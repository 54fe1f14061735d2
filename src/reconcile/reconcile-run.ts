/**
 * One reconcile run, given a client and (optionally) a ledger: pull orders, packages and tracking for
 * the selected orders, match them against what the ledger says we sent (src/reconcile/), and write
 * the reconciliation workbook (and, on request, the marketplace confirmations CSV). Returns the run
 * report of PRODUCT.md section 4; the CLI decides what to print and the exit code.
 *
 * A run that fails (the API unusable, a disk error) records nothing as done: the watermark moves
 * only after the workbook is written, so the next run covers what this one missed.
 */
import { existsSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { apiUnusableOf } from '../api/unusable.js';
import type { ApiClient } from '../api/types.js';
import type { JsonOutputError, JsonReport } from '../run-report/json.js';
import { writeOrRecordFailure } from '../run-report/output-errors.js';
import { ApiUnusableError, UsageError } from '../errors.js';
import type { Ledger, RunLock } from '../ledger/index.js';
import type { Logger } from '../log.js';
import { readRunNow } from './api-clock.js';
import { createApiReader, type ApiReader, type ApiReaderOptions } from './fetch.js';
import { gatherFromApi, GATHER_DEFAULTS, startTrackingPrefetch, type Gathered, type TrackingPrefetch } from './gather.js';
import { createMatchAhead, type MatchAheadOptions } from './match-ahead.js';
import { matchOrders, orderMatcher } from './match-orders.js';
import { createMemoryPackageStore, type PackageStore } from './package-store.js';
import { openSqlitePackageStore, packageStorePathForLedger } from './package-store-sqlite.js';
import { letGo, rememberRun } from './remember-run.js';
import { reportOrdersOf, summarize } from './run-report.js';
import { checkSelectOptions, resolveSince, selectOrders, type Selection } from './select.js';
import { DEFAULT_MEMORY_WINDOW, RunSpill, type MemoryWindow } from './spill.js';
import type { ItemSequence } from './spill-list.js';
import { describeSpillFailure } from './spill-failure.js';
import type { ReconciledOrder } from './types.js';
import type { ConfirmationFile } from './confirmations/write-files.js';
import { writeConfirmations, type WrittenConfirmations } from './confirmations/index.js';
import { DEFAULT_OVERLAP_MS, earliestUpdateOf, TRACKING_WATERMARK } from './window.js';
import { writeReconcileWorkbook } from './workbook.js';

export interface ReconcileOptions {
  ledger?: Ledger;
  client: ApiClient;
  since?: Date;
  hours?: number;
  ordersFile?: string;
  all?: boolean;
  /**
   * The instant the run reconciles as of (the end of the tracking window, the late clock). With
   * isNowFromApi, only the fallback for an API that does not say what time it is.
   */
  now: Date;
  /**
   * Reconcile as of the API's clock (the Date header of its answers) rather than `now`: for a run
   * without --now, as the machine's clock can differ from the API's. Default false.
   */
  isNowFromApi?: boolean;
  /** This machine's clock when `now` is the API's (set by the run itself): see SelectOptions.ledgerNow. */
  ledgerNow?: Date;
  lateAfterDays: number;
  /** Workbook path (.xlsx) or an existing folder; default reconcile-<UTC time>.xlsx here. */
  out?: string;
  confirmationsPath?: string;
  /** --confirmations-all: a folder's files list every confirmable package, not only those not written before. */
  confirmationsAll?: boolean;
  /** Puts a confirmations folder where it is picked up (a remote one's upload) before the ledger records what it holds. */
  placeConfirmations?: () => Promise<void>;
  concurrency?: number;
  maxAttempts?: number;
  logger: Logger;
  /** --orders: the worksheet of an xlsx result file. */
  sheet?: string;
  /** --orders: the zone import read dates without an offset in (default UTC). */
  timezone?: string;
  /** --all filters (default: every order disposition; the API's default for line dispositions). */
  orderDisposition?: readonly string[];
  orderLineItemDisposition?: readonly string[];
  /**
   * Where packages and reads are remembered; default a SQLite file per ledger (packageStorePathForLedger),
   * in memory for a run without one.
   */
  store?: PackageStore;
  /** Where the store of a PostgreSQL ledger is kept on this host; default `.order-batch` here. */
  storeFolder?: string;
  perOrderMax?: number;
  bulkReadMin?: number;
  overlapMs?: number;
  /** Take the ledger's run lock (default true): two runs never move the watermark at once. */
  isLocking?: boolean;
  /** Matching orders while the tracking pages come in (match-ahead.ts): its tuning, or false for none. */
  matchAhead?: MatchAheadOptions | false;
  /** For tests: no real waiting between retries. */
  readerOverrides?: Pick<ApiReaderOptions, 'sleep' | 'random' | 'monotonicNow'>;
  /**
   * How much of each structure (selected orders, reads, packages, matched orders) stays in memory
   * before it moves to disk (spill.ts); default DEFAULT_MEMORY_WINDOW.
   */
  memoryWindow?: MemoryWindow;
  /** Where what moves to disk goes; default the system's temporary folder. */
  spillFolder?: string;
}

export interface ReconcileResult {
  report: JsonReport & { confirmations?: string; confirmationFiles?: ConfirmationFile[]; confirmationNotes?: string[] };
  /** Some order's status is exception or not_found. */
  hasExceptions: boolean;
  output: string;
  /** In memory (an array) while they fit the run's window; else read from disk, each time afresh. */
  orders: ItemSequence<ReconciledOrder>;
  /** The instant the run reconciled as of: `now`, or the API's time with isNowFromApi. */
  asOf: Date;
  /**
   * Gives back the disk space of a run that outgrew memory, once its report has been printed: its
   * orders (and the report's) are not readable afterwards. Nothing to do for a run held in memory.
   */
  release(): void;
  /** The ledger's run of this reconciliation (none without a ledger): History lists it under this id. */
  runId?: string;
}

/** The latest instant a Date can hold. */
const LATEST_DATE = new Date(8.64e15);

const pad = (n: number) => String(n).padStart(2, '0');

export function defaultWorkbookName(now: Date): string {
  const d = now;
  return `reconcile-${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}-${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}.xlsx`;
}

export function workbookPathFor(out: string | undefined, now: Date): string {
  if (out === undefined) return defaultWorkbookName(now);
  if ((existsSync(out) && statSync(out).isDirectory()) || out.endsWith('/')) return join(out, defaultWorkbookName(now));
  if (extname(out).toLowerCase() !== '.xlsx') throw new UsageError(`--out ${out}: the reconciliation workbook must end in .xlsx (use --confirmations for a CSV).`);
  return out;
}

/** A failure of the API, as the one error that says reconcile could not use it; anything else as it is. */
function apiUnusable(error: unknown): unknown {
  const unusable = apiUnusableOf(error);
  return unusable ? new ApiUnusableError(`Reconcile could not read the API: ${unusable.message}`, { cause: error, kind: unusable.kind }) : error;
}

export async function reconcile(options: ReconcileOptions): Promise<ReconcileResult> {
  const { ledger } = options;
  if (!Number.isFinite(options.lateAfterDays) || options.lateAfterDays < 0) throw new UsageError('lateAfterDays must be a number of days, 0 or more.');
  // Before the API's time is known, only "in the future" cannot be judged: that waits for selectOrders.
  checkSelectOptions(options.isNowFromApi ? { ...options, now: LATEST_DATE } : options);
  workbookPathFor(options.out, options.now);
  let lock: RunLock | undefined;
  let store: PackageStore | undefined;
  const spill = new RunSpill(options.memoryWindow ?? DEFAULT_MEMORY_WINDOW, options.spillFolder);
  try {
    if (ledger && (options.isLocking ?? true)) lock = await ledger.acquireRunLock({ wait: true, command: 'reconcile' });
    const storePath = ledger ? packageStorePathForLedger(ledger, options.storeFolder) : null;
    store = options.store ?? (storePath ? openSqlitePackageStore(storePath) : createMemoryPackageStore());
    const run = await ledger?.startRun({ command: 'reconcile', files: options.ordersFile ? [options.ordersFile] : [] });
    let result: ReconcileResult;
    try {
      // The run's own store (no ledger to remember for) is thrown away at the end: nothing is written to it.
      result = await reconcileWith(options, store, spill, options.store !== undefined || store.isPersistent);
    } catch (error) {
      spill.close();
      await run?.finish({ summary: { failed: error instanceof Error ? error.message : String(error) } });
      throw describeSpillFailure(error, spill) ?? apiUnusable(error);
    }
    const written = [result.report.output, ...(result.report.confirmationFiles?.map((f) => f.path) ?? [result.report.confirmations])].filter((f): f is string => typeof f === 'string');
    await run?.finish({ summary: result.report.summary, resultFiles: written });
    return run ? { ...result, runId: run.runId } : result;
  } finally {
    if (options.store === undefined) store?.close();
    await lock?.release();
  }
}

async function reconcileWith(given: ReconcileOptions, store: PackageStore, spill: RunSpill, isRemembering: boolean): Promise<ReconcileResult> {
  const reader = createApiReader({
    client: given.client,
    logger: given.logger,
    ...(given.concurrency ? { concurrency: given.concurrency } : {}),
    ...(given.maxAttempts ? { maxAttempts: given.maxAttempts } : {}),
    ...given.readerOverrides,
  });
  const t0 = performance.now();
  // From here on, "now" is the one instant the whole run goes by.
  const options: ReconcileOptions = given.isNowFromApi ? onApiClock(given, await readRunNow(reader, given.now, given.logger)) : given;
  const { ledger, logger, now } = options;
  const output = workbookPathFor(options.out, now);
  const overlapMs = options.overlapMs ?? DEFAULT_OVERLAP_MS;
  const perOrderMax = options.perOrderMax ?? GATHER_DEFAULTS.perOrderMax;
  const prefetch = await prefetchForLedgerSelection(options, store, reader, overlapMs, perOrderMax, spill);
  const stopReader = async (error: unknown): Promise<void> => {
    reader.cancel(error instanceof Error ? error : new Error(String(error)));
    await prefetch?.done.catch(() => undefined);
  };
  let selection: Selection;
  try {
    selection = await selectOrders({ ...options, spill }, reader);
  } catch (error) {
    await stopReader(error);
    throw error;
  }
  const t1 = performance.now();
  logger.info({ mode: selection.mode, orders: selection.customerOrderIds.length }, 'orders selected');
  const matchOne = orderMatcher(selection, { now, lateAfterDays: options.lateAfterDays, isLedgerConsulted: ledger !== undefined });
  const ahead = options.matchAhead === false ? undefined : createMatchAhead(matchOne, options.matchAhead);
  let gathered: Gathered;
  try {
    gathered = await gatherFromApi({
      selection,
      reader,
      store,
      ...(ledger ? { ledger } : {}),
      now,
      overlapMs,
      perOrderMax,
      bulkReadMin: options.bulkReadMin ?? GATHER_DEFAULTS.bulkReadMin,
      logger,
      ...(prefetch ? { prefetch } : {}),
      ...(ahead ? { whilePaging: ahead.whilePaging } : {}),
      spill,
    });
  } catch (error) {
    // Pages fetched ahead must not run on after a failure the run reports (the reader stops them).
    await stopReader(error);
    throw error;
  }

  const t2 = performance.now();
  const orders = await matchOrders({ selection, gathered, store, reader, matchOne, ahead, spill });
  const t3 = performance.now();
  if (ahead) {
    logger.debug({ orders: orders.length, ...ahead.counts() }, 'orders matched');
    ahead.clear();
  }
  const summary = summarize(orders);
  if (orders.length > 1 && summary.not_found === orders.length) {
    // Each may be true; all at once more often means a wrong base URL, or a gateway not routing the order paths.
    logger.warn({ orders: orders.length }, 'The API answered 404 for every order: if they were sent to this API, check FULFILLMENT_BASE_URL.');
  }
  const fetched = describeFetch(gathered, selection, perOrderMax);
  if (isRemembering) rememberRun(store, gathered, selection, orders, now);
  letGo(gathered, selection);
  if (spill.isUsed) logger.info({ folder: spill.folder }, 'the run outgrew memory: its packages and orders were kept on disk while it ran');

  const { outputErrors, workbook, confirmationsWritten } = await writeOutputs(options, orders, { output, now, fetched, selection, stats: reader.stats() });
  const confirmations = confirmationsWritten?.path;
  const t4 = performance.now();

  // Only now is the run a success: the store's coverage first, then the ledger's watermark (a crash
  // between the two leaves them different, which makes the next run fetch the whole window: safe).
  if (gathered.plan && outputErrors.length === 0) {
    store.setCoverage(gathered.plan.nextCoverage);
    await ledger?.setWatermark(TRACKING_WATERMARK, gathered.plan.nextCoverage.end);
  }
  // Where the time went, in ms, for the log; writeMs: the store, the workbook and the CSV.
  const timings = { selectMs: t1 - t0, fetchMs: t2 - t1, matchMs: t3 - t2, writeMs: t4 - t3 };
  // Says what happened: a workbook that could not be written is not "written", and the watermark stayed.
  if (outputErrors.length === 0) logger.info({ summary, output, ...(confirmations ? { confirmations } : {}), timings }, 'reconciliation written');
  else {
    logger.error(
      { summary, output: workbook ?? null, ...(confirmations ? { confirmations } : {}), notWritten: outputErrors.map((e) => e.path), timings },
      `reconciliation done, but not written: ${outputErrors.map((e) => e.path).join(' and ')} could not be written${gathered.plan ? '; the watermark was not moved, so the next run fetches this window again' : ''}`,
    );
  }
  return {
    report: {
      command: 'reconcile',
      input: selection.input,
      summary,
      orders: reportOrdersOf(orders),
      output: workbook ?? null,
      ...(confirmations ? { confirmations } : {}),
      ...(confirmationsWritten?.files ? { confirmationFiles: confirmationsWritten.files } : {}),
      ...(confirmationsWritten?.notes?.length ? { confirmationNotes: confirmationsWritten.notes } : {}),
      ...(outputErrors.length > 0 ? { outputErrors } : {}),
    },
    hasExceptions: (summary.exception ?? 0) + (summary.not_found ?? 0) > 0,
    output,
    orders: orders.inMemory ?? orders,
    asOf: now,
    release: () => spill.close(),
  };
}

/**
 * The workbook and, with --confirmations, the CSV (or a folder of one file per marketplace). A file that cannot be written (a read-only folder,
 * a full disk) does not hide what was found: the report still comes back, with the failure in
 * outputErrors (the CLI prints it after the report).
 */
async function writeOutputs(
  options: ReconcileOptions,
  orders: Parameters<typeof writeReconcileWorkbook>[1] & Parameters<typeof writeConfirmations>[1],
  run: { output: string; now: Date; fetched: string; selection: Selection; stats: ReturnType<ApiReader['stats']> },
): Promise<{ outputErrors: JsonOutputError[]; workbook: string | undefined; confirmationsWritten: WrittenConfirmations | undefined }> {
  const { ledger, logger } = options;
  const { output, now, selection, stats } = run;
  const summaryFacts: [string, string | number][] = [
    ['Orders selected', selection.description],
    ['Fetched', run.fetched],
    ['API requests', `${stats.requests} (${stats.trackingPages} tracking-update pages, ${stats.retries} retries)`],
  ];
  const outputErrors: JsonOutputError[] = [];
  const selected = selection.input[0]?.file ?? 'reconcile';
  const workbook = await writeOrRecordFailure(outputErrors, { file: selected, path: output, logger }, () =>
    writeReconcileWorkbook(output, orders, { generatedAt: now, facts: summaryFacts, lateAfterDays: options.lateAfterDays, notes: READER_NOTES }),
  );
  const confirmationsPath = options.confirmationsPath;
  const confirmationsWritten =
    confirmationsPath === undefined
      ? undefined
      : await writeOrRecordFailure(outputErrors, { file: selected, path: confirmationsPath, logger }, () =>
          writeConfirmations(confirmationsPath, orders, {
            ...(ledger ? { store: ledger.marketplace } : {}),
            ...(options.placeConfirmations ? { place: options.placeConfirmations } : {}),
            isAll: options.confirmationsAll === true,
            logger,
          }),
        );
  return { outputErrors, workbook, confirmationsWritten };
}

/**
 * The run on the API's clock. The ledger's times were written by this machine's, so it selects on
 * that one (ledgerNow); and when this machine runs ahead, its submittedAt times are later than the
 * API's were: the tracking window starts earlier by that much, or it would miss their first packages.
 */
function onApiClock(given: ReconcileOptions, apiNow: Date): ReconcileOptions {
  const aheadMs = Math.max(0, given.now.getTime() - apiNow.getTime());
  return { ...given, now: apiNow, ledgerNow: given.now, overlapMs: (given.overlapMs ?? DEFAULT_OVERLAP_MS) + aheadMs };
}

/**
 * Ledger mode with more orders than are read one by one: the tracking window depends only on the
 * earliest orderDate and submittedAt of the selection (earliestUpdateOf, the start gatherFromApi
 * computes from the records), which the ledger answers at once, so its pages start coming in while
 * the selected records are read (selectOrders yields between pages of them).
 */
async function prefetchForLedgerSelection(options: ReconcileOptions, store: PackageStore, reader: ApiReader, overlapMs: number, perOrderMax: number, spill: RunSpill): Promise<TrackingPrefetch | undefined> {
  const { ledger } = options;
  if (!ledger || options.ordersFile !== undefined || options.all) return undefined;
  const since = resolveSince(options);
  // Only whether there are more than perOrderMax matters: the count stops there.
  const { count, earliestSubmittedAt } = await ledger.summarizeSubmittedSince(since, perOrderMax + 1);
  if (count <= perOrderMax) return undefined;
  const earliestMs = earliestUpdateOf({ orderDate: await ledger.earliestOrderDateSince(since), submittedAt: earliestSubmittedAt });
  if (earliestMs === null) return undefined;
  return startTrackingPrefetch({ reader, store, ledger, now: options.now, overlapMs, earliestMs, logger: options.logger, spill });
}

/** What a reader of the workbook needs to know to read its numbers right. */
const READER_NOTES = [
  'Quantities are units of the product ordered. A bundle shipped as its components counts as shipped when the API marks its line Shipped; its component units are listed on Lines (bundleComponentsShipped), never counted as units of the bundle.',
  'A replaced package is not live: its units and tracking number are counted once, on the package that replaced it. Confirmations list live packages only.',
  'Lines the network added (addedByNetwork) record what happened to one of ours (relatedLine): a cancellation or a replacement shipment.',
];

/** The Summary sheet's "Fetched" fact: what this run asked the API for. */
export function describeFetch(gathered: Gathered, selection: Selection, perOrderMax: number): string {
  const reads = `${gathered.freshReads.size} order read(s)`;
  if (gathered.strategy === 'per-order') {
    const perOrder = `each order and its packages (${reads})`;
    // Packages of orders the ledger never sent are found only by paging tracking updates: say so, or a
    // run of few orders would look like it found none.
    return selection.mode === 'ledger'
      ? `${perOrder}; unknown orders (packages of orders the ledger never sent) are looked for only when tracking updates are paged, for more than ${perOrderMax} orders`
      : perOrder;
  }
  if (gathered.strategy === 'none') return 'nothing (no orders selected)';
  if (!gathered.plan) return reads;
  const kind = gathered.plan.isIncremental ? 'changes since the last successful run' : 'the whole window';
  return `tracking updates ${gathered.plan.startDate} to ${gathered.plan.endDate} (${kind}), ${reads}`;
}
