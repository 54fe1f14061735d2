/**
 * The end of a run's matching: every selected order reconciled (or taken as matched ahead while the
 * pages came in, match-ahead.ts), the suspicious ones re-read, then the unknown orders found on the way.
 */
import type { OrderRead, PackageRecord } from '../contract/schemas.js';
import { packagesOfKnownOrders, type ApiReader } from './fetch.js';
import { packagesFor, type Gathered } from './gather.js';
import type { MatchAhead } from './match-ahead.js';
import { reconcileOrder } from './match.js';
import { mergePackages, type PackageStore } from './package-store.js';
import type { Selection } from './select.js';
import type { ReconciledOrder } from './types.js';

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
}

export async function matchOrders({ selection, gathered, store, reader, matchOne, ahead }: MatchContext): Promise<ReconciledOrder[]> {
  const readOf = (id: string) => (gathered.freshReads.has(id) ? gathered.freshReads.get(id) : (selection.reads.get(id) ?? store.getOrderRead(id)?.read));
  const reconcileOne = (id: string, isSelected = true) => matchOne(id, readOf(id), packagesFor(gathered, store, id), isSelected);
  const orders = selection.customerOrderIds.map((id) => {
    const read = readOf(id);
    const packages = packagesFor(gathered, store, id);
    return ahead?.reuse(id, read, packages) ?? matchOne(id, read, packages);
  });
  // A page that shifted while it was fetched can drop a package: where the API says a line shipped
  // but its units are missing, and this run saw the order change, its packages are read directly.
  if (gathered.strategy === 'tracking') {
    const suspects = orders
      .map((o, i) => ({ o, i }))
      .filter(({ o }) => o.exceptions.some((e) => e.type === 'partial_shipment') && (gathered.freshReads.has(o.customerOrderId) || gathered.changed.has(o.customerOrderId)));
    if (suspects.length > 0) {
      // The API returned each of these orders: a 404 for its packages is an API in trouble, not an unknown order.
      const packages = packagesOfKnownOrders(await reader.readPackagesOf(suspects.map(({ o }) => o.customerOrderId)), () => false);
      for (const [id, records] of packages) {
        const merged = mergePackages(packagesFor(gathered, store, id), records);
        gathered.packages.set(id, merged.packages);
        if (merged.hasChanges) gathered.changed.add(id);
      }
      for (const { o, i } of suspects) orders[i] = reconcileOne(o.customerOrderId);
    }
  }
  for (const id of gathered.unknownIds) {
    const order = reconcileOne(id, false);
    // An order of another channel (a marketplace order the network fulfils) is not ours to report.
    if (order.exceptions.some((e) => e.type === 'unknown_order')) orders.push(order);
  }
  return orders;
}
