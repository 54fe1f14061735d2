/**
 * The packages a run has fetched so far, per order, with the page in which each order's packages
 * last changed. Matching can then start on an order while pages are still coming in (match-ahead.ts),
 * and the result be known stale if a later page changed its packages.
 */
import type { PackageRecord } from '../contract/schemas.js';
import { lastUpdatedOf } from './package-store.js';

export class FetchedPackages {
  /** Each order's packages: the newest record of each packageId, in first-seen order. */
  readonly byOrder = new Map<string, PackageRecord[]>();
  /** Pages taken so far. */
  private taken = 0;
  /** The page (counted from 0, as taken) in which each order's packages last changed. */
  private readonly lastChange = new Map<string, number>();
  /** Every change as it came, oldest first: the order and the page (an order changed in two pages is listed twice). */
  private readonly changedIds: string[] = [];
  private readonly changedPages: number[] = [];
  /** How far takeQuiet has handed the changes out. */
  private handedOut = 0;
  private onPage: (() => void)[] = [];

  get pages(): number {
    return this.taken;
  }

  /** Keeps a page's packages (the newer record of a package seen twice). */
  takePage(records: readonly PackageRecord[]): void {
    const page = this.taken;
    for (const record of records) {
      if (!keepNewest(this.byOrder, record)) continue;
      const id = record.customerOrderId;
      if (this.lastChange.get(id) === page) continue;
      this.lastChange.set(id, page);
      this.changedIds.push(id);
      this.changedPages.push(page);
    }
    this.taken++;
    const waiting = this.onPage;
    this.onPage = [];
    for (const wake of waiting) wake();
  }

  /** The page in which the order's packages last changed (undefined: none fetched). */
  lastChangeOf(customerOrderId: string): number | undefined {
    return this.lastChange.get(customerOrderId);
  }

  /**
   * Orders whose packages have not changed in the last `quietPages` pages, each once per change:
   * those changed again since are handed out after that change has gone quiet too. In the order
   * they changed; at most `max` of them.
   */
  takeQuiet(quietPages: number, max: number): string[] {
    const out: string[] = [];
    const before = this.taken - quietPages;
    while (this.handedOut < this.changedIds.length && out.length < max && this.changedPages[this.handedOut]! < before) {
      const id = this.changedIds[this.handedOut]!;
      // A later change lists the order again: handed out then.
      if (this.lastChange.get(id) === this.changedPages[this.handedOut]) out.push(id);
      this.handedOut++;
    }
    return out;
  }

  /** Settles once the next page has been taken. */
  nextPage(): Promise<void> {
    return new Promise((resolve) => this.onPage.push(resolve));
  }
}

/**
 * Keeps `record` in its order's list unless a newer record of the same package is there; says
 * whether the list changed. An order has a handful of packages: a list scanned per record is
 * cheaper than a Map per order.
 */
function keepNewest(byOrder: Map<string, PackageRecord[]>, record: PackageRecord): boolean {
  const packages = byOrder.get(record.customerOrderId);
  if (!packages) {
    byOrder.set(record.customerOrderId, [record]);
    return true;
  }
  const index = packages.findIndex((p) => p.packageId === record.packageId);
  if (index < 0) {
    packages.push(record);
    return true;
  }
  // Dates are compared only for a package seen twice (pages that shifted), not for every package.
  if (lastUpdatedOf(record) < lastUpdatedOf(packages[index]!)) return false;
  packages[index] = record;
  return true;
}
