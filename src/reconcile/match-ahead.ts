/**
 * Matching orders while the tracking pages still come in. An order's packages can be on any page,
 * so an order cannot be known complete before the last one; but most orders stop changing long
 * before it. Those whose packages have not changed for a while are matched in the gaps between
 * pages, and the result is kept with exactly what it was made from: its order read, its package
 * list, and the page count at that moment. After the last page, an order whose read is the same
 * object and whose packages have not changed since is taken as matched; any other is matched then.
 * reconcileOrder is pure, so a result reused is the result the end would have made.
 *
 * Paging waits on the API's latency, so there are gaps; matching in small steps (one setImmediate
 * each) lets the pages' I/O go first. On a machine with no core to spare, paging takes longer by
 * much of the matching moved into it (docs/performance.md): the gain is what fits the gaps.
 *
 * A run whose packages outgrow memory keeps them on disk (fetched-packages.ts): nothing is matched
 * ahead then, and what was is let go, as the orders are matched from the disk after the last page.
 */
import { setImmediate as afterPendingIo } from 'node:timers/promises';
import type { OrderRead, PackageRecord } from '../contract/schemas.js';
import type { FetchedPackages } from './fetched-packages.js';
import type { Paging } from './gather.js';
import type { ReconciledOrder } from './types.js';

export type MatchOne = (customerOrderId: string, read: OrderRead | null, packages: PackageRecord[]) => ReconciledOrder;

export interface MatchAheadOptions {
  /**
   * An order is matched once its packages have not changed for this many pages (taken in page
   * order). It is a guess at how far apart the API lists one order's packages: an order a later
   * page changes costs a second match, never a wrong one. Default 16.
   */
  quietPages?: number;
  /** Orders matched per step between two turns of the event loop. Default 32. */
  step?: number;
}

export interface MatchAhead {
  /** For gatherFromApi's whilePaging: matches quiet orders until the pages are in. */
  whilePaging(paging: Paging): Promise<void>;
  /** The order as matched ahead from exactly this read and package list, unchanged since; else undefined. */
  reuse(customerOrderId: string, read: OrderRead | null | undefined, packages: PackageRecord[] | undefined): ReconciledOrder | undefined;
  /** For the run's log: orders matched ahead (the newest match of each), and how many of those reuse has handed back. */
  counts(): { matchedAhead: number; reused: number };
  /** Lets go of what was kept. */
  clear(): void;
}

interface Made {
  order: ReconciledOrder;
  read: OrderRead | null;
  packages: PackageRecord[];
  from: FetchedPackages;
  /** Pages taken when it was matched: a change in a later page makes it stale. */
  pages: number;
}

export function createMatchAhead(matchOne: MatchOne, options: MatchAheadOptions = {}): MatchAhead {
  const quietPages = options.quietPages ?? 16;
  const step = options.step ?? 32;
  const made = new Map<string, Made>();
  let reused = 0;

  async function whilePaging({ packages, reads, pagesDone }: Paging): Promise<void> {
    let isDone = false;
    const finished = pagesDone.then(
      () => (isDone = true),
      () => (isDone = true),
    );
    const readMap = await Promise.race([reads, finished.then(() => null)]);
    if (!readMap) return;
    while (!isDone) {
      if (packages.isOnDisk) {
        made.clear();
        return;
      }
      const ids = packages.takeQuiet(quietPages, step);
      if (ids.length === 0) {
        await Promise.race([packages.nextPage(), finished]);
        continue;
      }
      for (const id of ids) {
        // Only orders whose read is in: the others are read after the pages, and matched then.
        const read = readMap.get(id);
        if (read === undefined) continue;
        const list = packages.byOrder.get(id)!;
        made.set(id, { order: matchOne(id, read, list), read, packages: list, from: packages, pages: packages.pages });
      }
      await afterPendingIo();
    }
  }

  return {
    whilePaging,
    reuse(customerOrderId, read, packages) {
      const m = made.get(customerOrderId);
      if (!m || m.read !== read || m.packages !== packages) return undefined;
      const changed = m.from.lastChangeOf(customerOrderId);
      if (changed === undefined || changed >= m.pages) return undefined;
      reused++;
      return m.order;
    },
    counts: () => ({ matchedAhead: made.size, reused }),
    clear: () => made.clear(),
  };
}
