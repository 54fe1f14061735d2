/**
 * Which packages a tracking-updates query returns (api-spec 4.2, PRODUCT.md section 6):
 * - hours=N: packages whose lastUpdated is within the N hours up to now;
 * - searchBy=updated (default): lastUpdated within [startDate, endDate];
 * - searchBy=created: packages of orders created (accepted) within the period, as the spec words it;
 * - searchBy=replaced: packages whose dateReplaced is within the period.
 * Only packages that exist at now are seen, with their state at now.
 *
 * A selection stays right until the next simulated event (a package appearing, an event, a
 * replacement) or, for hours=N, until a package ages out of the window; `validUntilMs` says when,
 * so pages of one query can be served from a cache and agree with each other.
 */
import type { SearchBy } from '../contract/enums.js';
import type { PlannedPackage } from './model.js';

export type TrackingFilter = { kind: 'hours'; hours: number } | { kind: 'period'; searchBy: SearchBy; startMs: number; endMs: number };

export interface Selection {
  packages: PlannedPackage[];
  /** The selection (and every selected package's state) holds for any now < validUntilMs. */
  validUntilMs: number;
}

export function selectPackages(
  packages: readonly PlannedPackage[],
  filter: TrackingFilter,
  nowMs: number,
  orderCreatedAtMs: (customerOrderId: string) => number | undefined,
): Selection {
  const out: PlannedPackage[] = [];
  let until = Number.POSITIVE_INFINITY;
  const windowMs = filter.kind === 'hours' ? filter.hours * 3_600_000 : 0;
  for (const pkg of packages) {
    if (pkg.createdAtMs > nowMs) {
      if (pkg.createdAtMs < until) until = pkg.createdAtMs;
      continue;
    }
    let last = pkg.createdAtMs;
    for (const e of pkg.events) {
      if (e.atMs <= nowMs) {
        if (e.atMs > last) last = e.atMs;
      } else if (e.atMs < until) {
        until = e.atMs;
      }
    }
    const replaced = pkg.replacedAtMs;
    if (replaced !== undefined) {
      if (replaced <= nowMs) {
        if (replaced > last) last = replaced;
      } else if (replaced < until) {
        until = replaced;
      }
    }
    let at: number | undefined;
    if (filter.kind === 'hours') {
      if (last > nowMs - windowMs) {
        out.push(pkg);
        if (last + windowMs < until) until = last + windowMs;
      }
      continue;
    }
    if (filter.searchBy === 'updated') at = last;
    else if (filter.searchBy === 'created') at = orderCreatedAtMs(pkg.customerOrderId);
    else at = replaced !== undefined && replaced <= nowMs ? replaced : undefined;
    if (at !== undefined && at >= filter.startMs && at <= filter.endMs) out.push(pkg);
  }
  return { packages: out, validUntilMs: until };
}

interface CacheEntry {
  version: number;
  selection: Selection;
  /**
   * Page JSON up to (not including) the requestId, by "pageNumber:itemsPerPage" ("" = unpaged);
   * `null` for a page asked for once so far. Only a page asked for again is kept: a reconcile
   * reads each page once, and keeping all of them (a hundred megabytes for a large window) made
   * the garbage collector stop the sandbox for half a second in the middle of the run.
   */
  pages: Map<string, Buffer | null>;
}

/** A small cache of selections by query, dropped when the package set changes or time passes an event. */
export function createSelectionCache(maxEntries = 64) {
  const entries = new Map<string, CacheEntry>();
  return {
    get(key: string, version: number, nowMs: number): CacheEntry | undefined {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (entry.version === version && nowMs < entry.selection.validUntilMs) return entry;
      entries.delete(key);
      return undefined;
    },
    put(key: string, version: number, selection: Selection): CacheEntry {
      if (entries.size >= maxEntries) entries.clear();
      const entry = { version, selection, pages: new Map<string, Buffer | null>() };
      entries.set(key, entry);
      return entry;
    },
  };
}
