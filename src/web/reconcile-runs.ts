/**
 * Reconciliations started from the web app: the CLI's runReconcile writes the workbook into
 * the work folder, and a snapshot of the roll-up, the orders and the exceptions is kept beside it;
 * both go into the ledger, so every instance (and this one after a restart) shows the latest one.
 */
import { basename, join } from 'node:path';
import type { SharedFiles } from './shared-files.js';
import type { ReconcileResult } from '../reconcile/reconcile-run.js';
import { ROLL_UP_STATUSES, type ReconciledOrder } from '../reconcile/types.js';
import type { WorkDir } from './work-dir.js';

export interface ReconcileException {
  customerOrderId: string;
  marketplaceOrderId: string | null;
  type: string;
  detail: string;
}

/** One order of a reconciliation as the page's table shows it. */
export interface ReconcileOrderRow {
  customerOrderId: string;
  marketplaceOrderId: string | null;
  status: string;
  /** Live packages' tracking: the number, and its tracking page when the API gave an http(s) one. */
  tracking: { number: string; url: string | null }[];
  /** Exception types (late_shipment, ...). */
  exceptions: string[];
}

export interface ReconcileSnapshot {
  id: string;
  createdAt: string;
  /** The instant reconciled as of. */
  asOf: string;
  /** Orders per roll-up status, every status present. */
  summary: Record<string, number>;
  orders: number;
  exceptions: ReconcileException[];
  /** Exceptions left off the page (all of them are in the workbook). */
  exceptionsLeftOff: number;
  /** The workbook's name inside the snapshot's folder. */
  workbook: string;
  /** Every order (at most MAX_ORDERS_KEPT: the workbook has them all), in the workbook's order. */
  orderRows?: ReconcileOrderRow[];
  ordersLeftOff?: number;
  /** The confirmation files written in the snapshot's CONFIRMATIONS_FOLDER: confirmations.csv, then one per marketplace. */
  confirmations?: { name: string; marketplace: string; packages: number; rows: number }[];
  /** What a seller must know about them (a marketplace without an upload). */
  confirmationNotes?: string[];
}

/** The folder of a snapshot that holds its confirmation files. */
export const CONFIRMATIONS_FOLDER = 'confirmations';

export interface Reconciler {
  /**
   * Runs one reconciliation under `id` (its job's: reconcile-jobs.ts). The job runner calls it, one
   * run at a time with the submissions; reconcile is read-only against the API and its ledger writes
   * are idempotent, so a run another instance began and lost is simply run again.
   */
  run(id: string): Promise<ReconcileSnapshot>;
  latest(): Promise<ReconcileSnapshot | undefined>;
  get(id: string): Promise<ReconcileSnapshot | undefined>;
}

const SNAPSHOT_FILE = 'snapshot.json';
const MAX_EXCEPTIONS_SHOWN = 2_000;
const MAX_ORDERS_KEPT = 20_000;

export function createReconciler(options: {
  workDir: WorkDir;
  /** Runs reconcile with the workbook at `out`; `asOf` is what it reconciled as of. */
  runReconcile: (out: string) => Promise<{ result: ReconcileResult; asOf: Date }>;
  wallClock: () => Date;
  files: SharedFiles;
}): Reconciler {
  const { workDir, files } = options;
  const read = async (id: string) => ((await files.fetch('reconcile', id)) ? workDir.readJson<ReconcileSnapshot>('reconcile', id, SNAPSHOT_FILE) : undefined);
  return {
    async run(id) {
      const dir = workDir.dirOf('reconcile', id);
      const { result, asOf } = await options.runReconcile(join(dir, 'reconciliation.xlsx'));
      let snapshot: ReconcileSnapshot;
      try {
        snapshot = snapshotOf(id, result, asOf, options.wallClock());
      } finally {
        result.release();
      }
      workDir.writeJson('reconcile', id, SNAPSHOT_FILE, snapshot);
      await files.publish('reconcile', id);
      return snapshot;
    },
    async latest() {
      let newest: ReconcileSnapshot | undefined;
      for (const id of await files.newest('reconcile', 3)) {
        const snapshot = await read(id);
        if (snapshot && (!newest || snapshot.createdAt > newest.createdAt)) newest = snapshot;
      }
      return newest;
    },
    get: read,
  };
}

function snapshotOf(id: string, result: ReconcileResult, asOf: Date, now: Date): ReconcileSnapshot {
  const summary = Object.fromEntries(ROLL_UP_STATUSES.map((s) => [s, result.report.summary[s] ?? 0]));
  // The first ones shown, the rest counted: a run of a million orders is walked once, never gathered.
  const exceptions: ReconcileException[] = [];
  const orderRows: ReconcileOrderRow[] = [];
  let exceptionsLeftOff = 0;
  for (const order of result.orders) {
    for (const e of order.exceptions) {
      if (exceptions.length < MAX_EXCEPTIONS_SHOWN) exceptions.push({ customerOrderId: order.customerOrderId, marketplaceOrderId: order.marketplaceOrderId, type: e.type, detail: e.detail });
      else exceptionsLeftOff++;
    }
    if (orderRows.length < MAX_ORDERS_KEPT) orderRows.push(orderRowOf(order));
  }
  return {
    id,
    createdAt: now.toISOString(),
    orderRows,
    ordersLeftOff: Math.max(0, result.orders.length - MAX_ORDERS_KEPT),
    asOf: asOf.toISOString(),
    summary,
    orders: result.orders.length,
    exceptions,
    exceptionsLeftOff,
    workbook: basename(result.output),
    ...(result.report.confirmationFiles ? { confirmations: result.report.confirmationFiles.map((f) => ({ name: basename(f.path), marketplace: f.marketplace, packages: f.packages, rows: f.rows })) } : {}),
    ...(result.report.confirmationNotes ? { confirmationNotes: result.report.confirmationNotes } : {}),
  };
}

function orderRowOf(order: ReconciledOrder): ReconcileOrderRow {
  return {
    customerOrderId: order.customerOrderId,
    marketplaceOrderId: order.marketplaceOrderId,
    status: order.status,
    tracking: order.trackingNumbers.map((number) => ({ number, url: safeLink(order.packages.find((p) => p.trackingNumber === number && p.isLive)?.trackingUrl ?? null) })),
    exceptions: [...new Set(order.exceptions.map((e) => e.type))],
  };
}

/** A link the page may show: http or https only (a `javascript:` URL from an API is no tracking page). */
export function safeLink(url: string | null): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : null;
  } catch {
    return null;
  }
}
