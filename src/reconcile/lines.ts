/**
 * Lines of one order and the units its live packages carry for each.
 *
 * Matching: a package item belongs to the line with its customerLineItemId (where the API shows
 * two lines with one id, the one whose productId is the item's lineItemProductId, preferring a line
 * that is not canceled).
 *
 * Bundles: an item whose productId differs from its line's productId (lineItemProductId names the
 * ordered product; the item is one of its components) is NEVER counted as a unit of the ordered
 * product: two mugs shipped for one "mug pair" bundle are not two bundles. The API does not say
 * what a bundle holds, so a line whose packages carry only components counts as
 *   shipped   = ordered, when the API marks the line Shipped and a live package carries its
 *               components; otherwise 0 (never a fraction of a bundle);
 *   delivered = shipped, when every live package carrying its components has a delivered event;
 *               otherwise 0.
 * Component units are listed per component product (ReconciledLine.components) for the reader.
 * Over- and partial shipment of a bundle cannot be told from its components, so they are not raised.
 *
 * Lines the network adds (a line we did not send, usually with a disposition) account for something
 * that happened to one of ours: a canceled added line for canceled units (out_of_stock), a shipped
 * one for a replacement shipment whose package names OUR line. Each is linked to the line of the
 * same product it accounts for; an added line is expected to ship only when a package names it.
 */
import type { OrderLineItemRead, OrderRead } from '../contract/schemas.js';
import { API_LINE_DISPOSITION, CANCELED_LINE_STATUS, SHIPPED_LINE_STATUS, type ExpectedOrder, type PackageItem, type ReconciledLine, type ReconciledPackage } from './types.js';

export function isCanceledLine(line: Pick<ReconciledLine, 'status'>): boolean {
  return line.status === CANCELED_LINE_STATUS;
}

/** A package item no line of the order claims (an over-shipment). */
export interface StrayItem {
  packageId: string;
  item: PackageItem;
}

export interface CountedLines {
  lines: ReconciledLine[];
  strays: StrayItem[];
}

function newLine(f: Pick<ReconciledLine, 'customerLineItemId' | 'productId' | 'name' | 'ordered' | 'status' | 'disposition' | 'isAddedByNetwork' | 'isMissingFromApi'>): ReconciledLine {
  // A literal, not a spread: one hidden class for every line (100,000 of them in a large run).
  return {
    customerLineItemId: f.customerLineItemId,
    productId: f.productId,
    name: f.name,
    ordered: f.ordered,
    shipped: 0,
    delivered: 0,
    status: f.status,
    disposition: f.disposition,
    isBundle: false,
    components: [],
    isAddedByNetwork: f.isAddedByNetwork,
    relatedLineId: null,
    canceledUnits: 0,
    isMissingFromApi: f.isMissingFromApi,
  };
}

/** Units a line is still expected to ship. */
export function unitsToShip(line: ReconciledLine): number {
  return Math.max(0, line.ordered - line.canceledUnits);
}

/** Lines whose shipping the roll-up waits for: not canceled, and (if the network added them) named by a package. */
export function isLineToShip(line: ReconciledLine): boolean {
  if (isCanceledLine(line)) return false;
  return !line.isAddedByNetwork || line.shipped > 0 || line.isBundle;
}

/**
 * Links each added line to the line it accounts for (same product; where several, the one whose id
 * starts its id, e.g. L1 for L1-R1) and books canceled added lines as canceled units of a live line.
 */
export function linkAddedLines(lines: ReconciledLine[]): void {
  const originals = lines.filter((l) => !l.isAddedByNetwork);
  for (const line of lines) {
    if (isCanceledLine(line)) line.canceledUnits = line.ordered;
    if (!line.isAddedByNetwork) continue;
    const sameProduct = originals.filter((o) => o.productId === line.productId);
    const related = sameProduct.find((o) => line.customerLineItemId.startsWith(o.customerLineItemId)) ?? sameProduct[0];
    if (!related) continue;
    line.relatedLineId = related.customerLineItemId;
    if (isCanceledLine(line) && !isCanceledLine(related)) related.canceledUnits += line.ordered;
  }
}

/** Pairs the lines we sent with the API's lines: ours first, in the order sent, then the lines only the API has. */
export function mergeLines(expected: ExpectedOrder | undefined, read: OrderRead | null | undefined): ReconciledLine[] {
  const readLines: OrderLineItemRead[] = read?.lineItems ?? [];
  const used = new Set<number>();
  const lines: ReconciledLine[] = [];
  for (const sent of expected?.lines ?? []) {
    let index = readLines.findIndex((r, i) => !used.has(i) && r.customerLineItemId === sent.customerLineItemId && r.productId === sent.productId);
    if (index < 0) index = readLines.findIndex((r, i) => !used.has(i) && r.customerLineItemId === sent.customerLineItemId);
    const match = index >= 0 ? readLines[index] : undefined;
    if (match) used.add(index);
    lines.push(
      newLine({
        customerLineItemId: sent.customerLineItemId,
        productId: sent.productId,
        name: sent.name ?? match?.name ?? null,
        ordered: sent.quantity,
        status: match?.status ?? null,
        disposition: match?.disposition ?? null,
        isAddedByNetwork: false,
        // Only meaningful when the API's order was read at all.
        isMissingFromApi: Boolean(read) && !match,
      }),
    );
  }
  readLines.forEach((r, i) => {
    if (used.has(i)) return;
    lines.push(
      newLine({
        customerLineItemId: r.customerLineItemId,
        productId: r.productId,
        name: r.name ?? null,
        ordered: r.quantity,
        status: r.status ?? null,
        disposition: r.disposition ?? null,
        // Without our payload every line is the API's own; with it, a line we did not send was added.
        isAddedByNetwork: expected !== undefined || (r.disposition !== undefined && r.disposition !== API_LINE_DISPOSITION),
        isMissingFromApi: false,
      }),
    );
  });
  linkAddedLines(lines);
  return lines;
}

function pickLine(lines: readonly ReconciledLine[], item: PackageItem): ReconciledLine | undefined {
  const candidates = lines.filter((l) => l.customerLineItemId === item.customerLineItemId);
  if (candidates.length <= 1) return candidates[0];
  const ordered = item.lineItemProductId ?? item.productId;
  return (
    candidates.find((l) => l.productId === ordered && !isCanceledLine(l)) ??
    candidates.find((l) => l.productId === ordered) ??
    candidates.find((l) => !isCanceledLine(l)) ??
    candidates[0]
  );
}

/** Adds the live packages' units to the lines (mutating them) and returns the items no line claims. */
export function countUnits(lines: ReconciledLine[], live: readonly ReconciledPackage[]): CountedLines {
  const strays: StrayItem[] = [];
  const components = new Map<ReconciledLine, Map<string, number>>();
  const componentPackages = new Map<ReconciledLine, ReconciledPackage[]>();
  for (const pkg of live) {
    for (const item of pkg.items) {
      const line = pickLine(lines, item);
      if (!line) {
        strays.push({ packageId: pkg.packageId, item });
        continue;
      }
      if (item.productId === line.productId) {
        line.shipped += item.quantity;
        if (pkg.deliveredAt) line.delivered += item.quantity;
        continue;
      }
      const perProduct = components.get(line) ?? new Map<string, number>();
      perProduct.set(item.productId, (perProduct.get(item.productId) ?? 0) + item.quantity);
      components.set(line, perProduct);
      const pkgs = componentPackages.get(line) ?? [];
      if (!pkgs.includes(pkg)) pkgs.push(pkg);
      componentPackages.set(line, pkgs);
    }
  }
  for (const [line, perProduct] of components) {
    line.isBundle = true;
    line.components = [...perProduct].map(([productId, quantity]) => ({ productId, quantity }));
    // Direct units, when a bundle also shipped as itself, are the better evidence; components only fill in.
    if (line.shipped > 0) continue;
    if (line.status === SHIPPED_LINE_STATUS) {
      line.shipped = unitsToShip(line);
      const pkgs = componentPackages.get(line) ?? [];
      line.delivered = pkgs.every((p) => p.deliveredAt) ? line.shipped : 0;
    }
  }
  return { lines, strays };
}

/** What the lines the network added for replacement shipments account for (see linesExplainedByReplacement). */
export interface ReplacementLines {
  /** Every added line that only records a replacement shipment: folded into replaced_package, never unexpected. */
  explained: Set<ReconciledLine>;
  /**
   * Per replaced package id, per line of ours in it: the added line recording its re-shipment, or the
   * lines that may (more than one where it cannot be told which).
   */
  byPackage: Map<string, ReconciledLine[][]>;
}

/** One line of ours in one replaced package, and the added lines that may record its re-shipment. */
interface ReplacedUnits {
  pkg: ReconciledPackage;
  fits: ReconciledLine[];
  isSettled: boolean;
}

/**
 * Added lines that only account for a replacement shipment: the network re-ships OUR line in a new
 * package and books the event as a line of the same product with a disposition such as
 * damaged_shipment (not canceled, and named by no package).
 *
 * Which replaced package each one records is told where the evidence allows: the added line's
 * quantity against the units of our line in the package, and a disposition the package's delivery
 * rules out (lost_pre_delivery_in_transit for a package with a delivered event,
 * lost_post_delivery_driver_follow_up for one without). Each added line records one re-shipment of
 * one line of ours in one package, so an added line only one re-shipment fits is that one's (and is
 * then out of the running for the others). Where that does not settle it (two replacements alike in
 * every way), each of them names every added line that fits it, as one of those.
 */
export function linesExplainedByReplacement(lines: readonly ReconciledLine[], packages: readonly ReconciledPackage[]): ReplacementLines {
  const explained = new Set<ReconciledLine>();
  const replaced: ReplacedUnits[] = [];
  for (const p of packages) {
    if (p.isLive) continue;
    for (const lineId of new Set(p.items.map((i) => i.customerLineItemId))) {
      const added = lines.filter((l) => l.isAddedByNetwork && l.relatedLineId === lineId && !isCanceledLine(l) && !isLineToShip(l));
      if (added.length === 0) continue;
      for (const l of added) explained.add(l);
      const fitting = added.filter((l) => canRecord(l, p));
      // Where none fits (evidence read some other way than here), every one is listed, as before.
      replaced.push({ pkg: p, fits: fitting.length > 0 ? fitting : added, isSettled: false });
    }
  }
  settleReplacements(replaced);
  const byPackage = new Map<string, ReconciledLine[][]>();
  const inLineOrder = (a: ReconciledLine, b: ReconciledLine) => lines.indexOf(a) - lines.indexOf(b);
  for (const r of replaced) {
    if (r.fits.length === 0) continue;
    const groups = byPackage.get(r.pkg.packageId) ?? [];
    groups.push([...r.fits].sort(inLineOrder));
    byPackage.set(r.pkg.packageId, groups);
  }
  for (const groups of byPackage.values()) groups.sort((a, b) => inLineOrder(a[0]!, b[0]!));
  return { explained, byPackage };
}

/** The added line can record the re-shipment of its line of ours from this package (see linesExplainedByReplacement). */
function canRecord(line: ReconciledLine, p: ReconciledPackage): boolean {
  if (line.disposition === 'lost_pre_delivery_in_transit' && p.deliveredAt !== null) return false;
  if (line.disposition === 'lost_post_delivery_driver_follow_up' && p.deliveredAt === null) return false;
  const items = p.items.filter((i) => i.customerLineItemId === line.relatedLineId);
  // Components of a bundle say nothing about how many bundles were re-shipped.
  if (items.some((i) => i.productId !== line.productId)) return true;
  return items.reduce((n, i) => n + i.quantity, 0) === line.ordered;
}

/** Gives each re-shipment the added line the fits force on it, until nothing more is forced (mutates `replaced`). */
function settleReplacements(replaced: ReplacedUnits[]): void {
  for (let changed = true; changed; ) {
    changed = false;
    for (const r of replaced) {
      if (r.isSettled) continue;
      // A line no other re-shipment can take is this one's; two such lines would both claim it: then neither is told.
      const onlyHere = r.fits.filter((l) => replaced.every((o) => o === r || o.isSettled || !o.fits.includes(l)));
      if (onlyHere.length !== 1) continue;
      const line = onlyHere[0]!;
      r.fits = [line];
      r.isSettled = true;
      for (const o of replaced) if (!o.isSettled) o.fits = o.fits.filter((l) => l !== line);
      changed = true;
    }
  }
}
