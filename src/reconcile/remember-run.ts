/** The end of a run: what it learnt kept for the next one (package-store.ts), then let go of. */
import type { PackageRecord } from '../contract/schemas.js';
import type { Gathered } from './gather.js';
import type { PackageStore, StoredOrderRead } from './package-store.js';
import type { Selection } from './select.js';
import type { SpillList } from './spill-list.js';
import type { ReconciledOrder } from './types.js';

/**
 * Writes what this run learnt (packages that changed, fresh reads) to the store for the next run, an
 * order at a time (from disk when the run outgrew memory).
 */
export function rememberRun(store: PackageStore, gathered: Gathered, selection: Selection, orders: SpillList<ReconciledOrder>, now: Date): void {
  store.putOrderPackages(
    (function* () {
      for (const id of gathered.changed) yield [id, gathered.packages.get(id) ?? []] as [string, PackageRecord[]];
    })(),
  );
  const readAt = now.toISOString();
  store.putOrderReads(
    (function* () {
      for (const o of orders) {
        const id = o.customerOrderId;
        const fresh = gathered.freshReads.get(id);
        const read = fresh !== undefined ? fresh : selection.reads.get(id);
        if (read !== undefined) yield [id, { read, status: o.status, readAt }] as [string, StoredOrderRead];
      }
    })(),
  );
}

/** Lets go of what the orders were built from: from here on a large run holds each order once, or none. */
export function letGo(gathered: Gathered, selection: Selection): void {
  gathered.packages.clear();
  gathered.freshReads.clear();
  selection.reads.clear();
  selection.expected.clear();
}
