/**
 * The end of a run's matching: every selected order reconciled (or taken as matched ahead while the
 * pages came in, match-ahead.ts), the suspicious ones re-read, then the unknown orders found on the way.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { OrderRead, PackageRecord } from '../contract/schemas.js';
import { packagesOfKnownOrders, type ApiReader } from './fetch.js';
import { packagesFor, type Gathered } from './gather.js';
import type { MatchAhead } from './match-ahead.js';
import { reconcileOrder } from './match.js';
import { mergePackages, type PackageStore } from './package-store.js';
import type { Selection } from './select.js';
import type { RunSpill } from './spill.js';
import { SpillList } from './spill-list.js';
import type { ReconciledOrder } from './types.js';

/** Suspect orders whose packages are read at once. */
const BATCH = 1_000;

/** An order from these inputs; `isSelected` false for an unknown order found on the way. */
export type OrderMatcher = (id: string, read: OrderRead | null | undefined, packages: PackageRecord[], isSelected?: boolean) => ReconciledOrder;

/** reconcileOrder with what the whole run shares filled in: the same for orders matched ahead and at the end. */
export function orderMatcher(selection: Selection, run: { now: Date; lateAfterDays: number; isLedgerConsulted: boolean }): OrderMatcher {
  // An --orders result file lists its orders as sent, whether or not this ledger recorded them.
  const isListedAsSent = selection.mode === 'orders-file';
  return (id, read, packages, isSelected = true) =>
    reconcileOrder({
      expected: selection.expected.get(id),
      read,
      packages,
      now: run.now,
      lateAfterDays: run.lateAfterDays,
      isLedgerConsulted: run.isLedgerConsulted,
      customerOrderId: id,
      isListedAsSent: isListedAsSent && isSelected,
      isListedWithoutStatus: selection.isOrdersFileWithoutStatus === true && isSelected,
    });
}

export interface MatchContext {
  selection: Selection;
  gathered: Gathered;
  store: PackageStore;
  reader: ApiReader;
  matchOne: OrderMatcher;
  ahead: MatchAhead | undefined;
  /** Where the matched orders go past the run's window; without one they stay in memory. */
  spill?: RunSpill;
}

/** Orders matched between two turns of the event loop. */
const MATCH_STEP = 1_000;

/** The selected orders reconciled, in the selection's order, then the unknown orders found on the way. */
export async function matchOrders({ selection, gathered, store, reader, matchOne, ahead, spill }: MatchContext): Promise<SpillList<ReconciledOrder>> {
  const readOf = (id: string): OrderRead | null | undefined => {
    const fresh = gathered.freshReads.get(id);
    return fresh !== undefined ? fresh : (selection.reads.get(id) ?? store.getOrderRead(id)?.read);
  };
  const reconcileOne = (id: string, isSelected = true) => matchOne(id, readOf(id), packagesFor(gathered, store, id), isSelected);
  const orders = new SpillList<ReconciledOrder>(spill);
  // A page that shifted while it was fetched can drop a package: where the API says a line shipped
  // but its units are missing, and this run saw the order change, its packages are read directly.
  const isSuspect = (o: ReconciledOrder) =>
    gathered.strategy === 'tracking' &&
    o.exceptions.some((e) => e.type === 'partial_shipment') &&
    (gathered.changed.has(o.customerOrderId) || gathered.freshReads.has(o.customerOrderId));
  const suspects: { id: string; index: number }[] = [];
  for (const id of selection.customerOrderIds) {
    const read = readOf(id);
    const packages = packagesFor(gathered, store, id);
    const order = ahead?.reuse(id, read, packages) ?? matchOne(id, read, packages);
    if (isSuspect(order)) suspects.push({ id, index: orders.length });
    orders.push(order);
    if (orders.length % MATCH_STEP === 0) await nextTurn();
  }
  for (let i = 0; i < suspects.length; i += BATCH) {
    const batch = suspects.slice(i, i + BATCH);
    // The API returned each of these orders: a 404 for its packages is an API in trouble, not an unknown order.
    const packages = packagesOfKnownOrders(await reader.readPackagesOf(batch.map((s) => s.id)), () => false);
    for (const [id, records] of packages) {
      const merged = mergePackages(packagesFor(gathered, store, id), records);
      gathered.packages.set(id, merged.packages);
      if (merged.hasChanges) gathered.changed.add(id);
    }
    for (const { id, index } of batch) orders.set(index, reconcileOne(id));
  }
  for (const id of gathered.unknownIds) {
    const order = reconcileOne(id, false);
    // An order of another channel (a marketplace order the network fulfils) is not ours to report.
    if (order.exceptions.some((e) => e.type === 'unknown_order')) orders.push(order);
  }
  return orders;
}
