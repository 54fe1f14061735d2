/**
 * Reconciliations started from the web app: the CLI's reconcileCommand writes the workbook into
 * the work folder, and a snapshot of the roll-up and the exceptions is kept beside it, so the
 * page shows the latest one after a restart too.
 */
import { existsSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { ReconcileResult } from '../commands/reconcile-run.js';
import { ROLL_UP_STATUSES } from '../reconcile/types.js';
import { newId, type WorkDir } from './work-dir.js';

export interface ReconcileException {
  customerOrderId: string;
  marketplaceOrderId: string | null;
  type: string;
  detail: string;
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
}

export interface Reconciler {
  run(): Promise<ReconcileSnapshot>;
  latest(): ReconcileSnapshot | undefined;
  get(id: string): ReconcileSnapshot | undefined;
}

const SNAPSHOT_FILE = 'snapshot.json';
const MAX_EXCEPTIONS_SHOWN = 2_000;

export function createReconciler(options: {
  workDir: WorkDir;
  /** Runs reconcile with the workbook at `out`; `asOf` is what it reconciled as of. */
  runReconcile: (out: string) => Promise<{ result: ReconcileResult; asOf: Date }>;
  serialize: <T>(task: () => Promise<T>) => Promise<T>;
  wallClock: () => Date;
}): Reconciler {
  const { workDir } = options;
  return {
    run() {
      return options.serialize(async () => {
        const id = newId();
        const dir = workDir.dirOf('reconcile', id);
        const { result, asOf } = await options.runReconcile(join(dir, 'reconciliation.xlsx'));
        let snapshot: ReconcileSnapshot;
        try {
          snapshot = snapshotOf(id, result, asOf, options.wallClock());
        } finally {
          result.release();
        }
        workDir.writeJson('reconcile', id, SNAPSHOT_FILE, snapshot);
        return snapshot;
      });
    },
    latest() {
      const dir = join(workDir.root, 'reconcile');
      if (!existsSync(dir)) return undefined;
      let newest: ReconcileSnapshot | undefined;
      for (const id of readdirSync(dir)) {
        const snapshot = workDir.readJson<ReconcileSnapshot>('reconcile', id, SNAPSHOT_FILE);
        if (snapshot && (!newest || snapshot.createdAt > newest.createdAt)) newest = snapshot;
      }
      return newest;
    },
    get(id) {
      return workDir.readJson<ReconcileSnapshot>('reconcile', id, SNAPSHOT_FILE);
    },
  };
}

function snapshotOf(id: string, result: ReconcileResult, asOf: Date, now: Date): ReconcileSnapshot {
  const summary = Object.fromEntries(ROLL_UP_STATUSES.map((s) => [s, result.report.summary[s] ?? 0]));
  // The first ones shown, the rest counted: a run of a million orders is walked, never gathered.
  const exceptions: ReconcileException[] = [];
  let leftOff = 0;
  for (const order of result.orders) {
    for (const e of order.exceptions) {
      if (exceptions.length < MAX_EXCEPTIONS_SHOWN) exceptions.push({ customerOrderId: order.customerOrderId, marketplaceOrderId: order.marketplaceOrderId, type: e.type, detail: e.detail });
      else leftOff++;
    }
  }
  return {
    id,
    createdAt: now.toISOString(),
    asOf: asOf.toISOString(),
    summary,
    orders: result.orders.length,
    exceptions,
    exceptionsLeftOff: leftOff,
    workbook: basename(result.output),
  };
}
