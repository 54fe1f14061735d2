/**
 * Packages of one order: duplicates folded, replacement chains followed (api-spec.md section 3:
 * a package with dateReplaced / replacedByPackageId has been replaced by the package of that id).
 * Only live packages (never replaced) carry units and tracking numbers; a replaced package's units
 * travel on in its replacement, so counting both would ship them twice.
 */
import type { PackageRecord } from '../contract/schemas.js';
import type { PackageItem, ReconciledPackage } from './types.js';

export const DELIVERED_EVENT = 'delivered';

export interface ResolvedPackages {
  /** Every package once (the newest record of each packageId), in first-seen order. */
  packages: ReconciledPackage[];
  /** The live ones, in the same order. */
  live: ReconciledPackage[];
}

function isReplaced(record: PackageRecord): boolean {
  return Boolean(record.replacedByPackageId) || Boolean(record.dateReplaced);
}

function timeOf(iso: string | undefined | null): number {
  if (!iso) return Number.NEGATIVE_INFINITY;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? Number.NEGATIVE_INFINITY : ms;
}

/** The same package seen twice (overlapping windows, two fetch paths): the newer record wins. */
export function dedupePackages(records: Iterable<PackageRecord>): Map<string, PackageRecord> {
  const byId = new Map<string, PackageRecord>();
  for (const record of records) {
    const seen = byId.get(record.packageId);
    // Dates are parsed only for a package seen twice.
    if (!seen || timeOf(record.lastUpdated) >= timeOf(seen.lastUpdated)) byId.set(record.packageId, record);
  }
  return byId;
}

/** The delivered event's timestamp, or null. */
export function deliveredAtOf(record: PackageRecord): string | null {
  const events = record.trackingDetail.trackingEvents ?? [];
  const delivered = events.find((e) => e.eventType === DELIVERED_EVENT);
  return delivered ? delivered.eventTimestamp : null;
}

function lastEventOf(record: PackageRecord): string | null {
  const events = record.trackingDetail.trackingEvents ?? [];
  let best: string | null = null;
  let bestMs = Number.NEGATIVE_INFINITY;
  // Each timestamp parsed once; the later of two equal times wins, as in the order the API lists them.
  for (const e of events) {
    const ms = timeOf(e.eventTimestamp);
    if (best === null || ms >= bestMs) {
      best = e.eventType;
      bestMs = ms;
    }
  }
  return best;
}

function itemsOf(record: PackageRecord): PackageItem[] {
  return record.packageContents.map((c) => ({
    productId: c.productId,
    quantity: c.quantity,
    customerLineItemId: c.customerLineItemId,
    lineItemProductId: c.lineItemProductId ?? null,
    sku: c.sku ?? null,
  }));
}

interface ChainEnd {
  /** Successors after the package, in order. */
  successors: string[];
  livePackageId: string | null;
  end: ReconciledPackage['chainEnd'];
}

const NONE: readonly string[] = [];

/** Follows replacedByPackageId until a live package, a missing one, or a loop. Only for a replaced package. */
function followReplacements(start: PackageRecord, byId: ReadonlyMap<string, PackageRecord>): ChainEnd {
  const successors: string[] = [];
  const visited = new Set<string>([start.packageId]);
  let current = start;
  while (isReplaced(current)) {
    const nextId = current.replacedByPackageId;
    if (!nextId) return { successors, livePackageId: null, end: 'missing' };
    if (visited.has(nextId)) return { successors, livePackageId: null, end: 'loop' };
    successors.push(nextId);
    visited.add(nextId);
    const next = byId.get(nextId);
    if (!next) return { successors, livePackageId: null, end: 'missing' };
    current = next;
  }
  return { successors, livePackageId: current.packageId, end: 'live' };
}

/** Predecessors before the package, oldest first (the first predecessor where several replaced into one). */
function followPredecessors(start: string, replacedInto: ReadonlyMap<string, string>): readonly string[] {
  if (!replacedInto.has(start)) return NONE;
  const out: string[] = [];
  const visited = new Set<string>([start]);
  let current = replacedInto.get(start);
  while (current !== undefined && !visited.has(current)) {
    out.unshift(current);
    visited.add(current);
    current = replacedInto.get(current);
  }
  return out;
}

/**
 * dedupePackages for the common order: a few packages, none seen twice, none replaced. The records
 * themselves, without a Map; null when the order needs the general path.
 */
function plainPackages(records: Iterable<PackageRecord>): readonly PackageRecord[] | null {
  if (!Array.isArray(records) || records.length > 16) return null;
  const list = records as readonly PackageRecord[];
  for (let i = 0; i < list.length; i++) {
    const record = list[i]!;
    if (isReplaced(record)) return null;
    for (let j = 0; j < i; j++) if (list[j]!.packageId === record.packageId) return null;
  }
  return list;
}

export function resolvePackages(records: Iterable<PackageRecord>): ResolvedPackages {
  const plain = plainPackages(records);
  const byId = plain ? null : dedupePackages(records);
  const unique = plain ?? [...byId!.values()];
  let replacedInto: Map<string, string> | null = null;
  if (byId) {
    for (const record of unique) {
      const next = record.replacedByPackageId;
      if (!next || next === record.packageId) continue;
      replacedInto ??= new Map<string, string>();
      if (!replacedInto.has(next)) replacedInto.set(next, record.packageId);
    }
  }
  const packages: ReconciledPackage[] = [];
  const live: ReconciledPackage[] = [];
  for (const record of unique) {
    const t = record.trackingDetail;
    // Nearly every package is live and outside any chain: nothing to walk.
    const end: ChainEnd = byId && isReplaced(record) ? followReplacements(record, byId) : { successors: [], livePackageId: record.packageId, end: 'live' };
    const predecessors = replacedInto ? followPredecessors(record.packageId, replacedInto) : NONE;
    const view: ReconciledPackage = {
      packageId: record.packageId,
      customerOrderId: record.customerOrderId,
      trackingNumber: t.trackingNumber || null,
      trackingUrl: t.trackingUrl || null,
      carrier: t.shippingCarrier || null,
      serviceLevel: t.serviceLevel || null,
      originFc: t.originFc || null,
      shipDate: t.shipDate || null,
      estimatedDeliveryDate: t.estimatedDeliveryDate || null,
      deliveredAt: deliveredAtOf(record),
      lastEvent: lastEventOf(record),
      lastUpdated: record.lastUpdated ?? t.lastUpdated ?? null,
      isLive: !isReplaced(record),
      dateReplaced: record.dateReplaced ?? null,
      replacedByPackageId: record.replacedByPackageId ?? null,
      chain: predecessors.length === 0 && end.successors.length === 0 ? [record.packageId] : [...predecessors, record.packageId, ...end.successors],
      livePackageId: end.livePackageId,
      chainEnd: end.end,
      items: itemsOf(record),
    };
    packages.push(view);
    if (view.isLive) live.push(view);
  }
  return { packages, live };
}
