/**
 * What reconcile remembers between runs, so a nightly run fetches only what changed since the last
 * successful one: the packages of each order (the newest record of each packageId), the last read
 * of each order, and the span of tracking updates already fetched (its coverage).
 *
 * Packages are kept per order, one entry holding all of an order's packages: a run merges what it
 * fetched into that and writes each changed order once, instead of a row per package per page
 * (100,000 single-row upserts cost seconds; 15,000 order rows a fraction of that).
 *
 * Two implementations: in memory (tests, a run without a ledger) and SQLite (package-store-sqlite.ts,
 * a file per ledger: beside a ledger file, or on each host of a PostgreSQL ledger). Reconcile keeps
 * its own file rather than tables in the ledger: the ledger's schema belongs to the ledger, and losing
 * this cache is harmless (the next run fetches the whole window again).
 */
import type { OrderRead, PackageRecord } from '../contract/schemas.js';
import type { RollUpStatus } from './types.js';

/** The span [start, end] of lastUpdated instants whose packages are all in the store (ISO 8601 UTC). */
export interface Coverage {
  start: string;
  end: string;
}

export interface StoredOrderRead {
  /** null: the API answered 404. */
  read: OrderRead | null;
  status: RollUpStatus;
  readAt: string;
}

export interface PackageStore {
  readonly isPersistent: boolean;
  /** Replaces the stored packages of each order given (the caller has merged them). */
  putOrderPackages(entries: Iterable<[customerOrderId: string, packages: readonly PackageRecord[]]>): void;
  packagesOf(customerOrderId: string): PackageRecord[];
  /** Orders with a package updated at or after `sinceIso`. */
  orderIdsUpdatedSince(sinceIso: string): string[];
  /** Many reads in one go (one transaction in SQLite). */
  putOrderReads(entries: Iterable<[customerOrderId: string, entry: StoredOrderRead]>): void;
  getOrderRead(customerOrderId: string): StoredOrderRead | undefined;
  /** getOrderRead for many orders at once: every id asked for is a key (undefined: never read). */
  getOrderReads(customerOrderIds: readonly string[]): Map<string, StoredOrderRead | undefined>;
  getCoverage(): Coverage | null;
  setCoverage(coverage: Coverage | null): void;
  close(): void;
}

/** An instant as comparable ISO UTC text ('' when absent or unreadable, which sorts first). */
export function normaliseInstant(iso: string | undefined | null): string {
  if (!iso) return '';
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? '' : new Date(ms).toISOString();
}

export function lastUpdatedOf(record: PackageRecord): string {
  return normaliseInstant(record.lastUpdated ?? record.trackingDetail.lastUpdated);
}

/** The newest lastUpdated of a set of packages ('' for none). */
export function newestUpdate(packages: readonly PackageRecord[]): string {
  let newest = '';
  for (const p of packages) {
    const at = lastUpdatedOf(p);
    if (at > newest) newest = at;
  }
  return newest;
}

/**
 * Stored packages with fresh ones laid over them (a fresh record wins unless it is older), and
 * whether anything changed: a package new to the store or a newer record of a known one.
 */
export function mergePackages(stored: readonly PackageRecord[], fresh: Iterable<PackageRecord>): { packages: PackageRecord[]; hasChanges: boolean } {
  const byId = new Map(stored.map((p) => [p.packageId, p]));
  let hasChanges = false;
  for (const record of fresh) {
    const seen = byId.get(record.packageId);
    if (seen && lastUpdatedOf(record) <= lastUpdatedOf(seen)) continue;
    byId.set(record.packageId, record);
    hasChanges = true;
  }
  return { packages: [...byId.values()], hasChanges };
}

export function createMemoryPackageStore(): PackageStore {
  const packages = new Map<string, { records: PackageRecord[]; newest: string }>();
  const reads = new Map<string, StoredOrderRead>();
  let coverage: Coverage | null = null;
  return {
    isPersistent: false,
    putOrderPackages(entries) {
      for (const [id, records] of entries) packages.set(id, { records: [...records], newest: newestUpdate(records) });
    },
    packagesOf: (customerOrderId) => [...(packages.get(customerOrderId)?.records ?? [])],
    orderIdsUpdatedSince(sinceIso) {
      const since = normaliseInstant(sinceIso);
      return [...packages].filter(([, entry]) => entry.newest >= since).map(([id]) => id);
    },
    putOrderReads(entries) {
      for (const [id, entry] of entries) reads.set(id, entry);
    },
    getOrderRead: (customerOrderId) => reads.get(customerOrderId),
    getOrderReads: (customerOrderIds) => new Map(customerOrderIds.map((id) => [id, reads.get(id)])),
    getCoverage: () => coverage,
    setCoverage(next) {
      coverage = next;
    },
    close() {},
  };
}
