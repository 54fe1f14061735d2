/**
 * A reconciled order's live packages as the items a marketplace confirms: one per line per package, with
 * the units of that line the package holds, so a split order tells the customer what each package
 * brings. A replaced package is left out (its replacement, live, confirms the new tracking number). A
 * line the network added to ship a replacement is confirmed under the line it stands for.
 */
import type { ReconciledOrder, ReconciledPackage } from '../types.js';
import type { LineIdentifiers, Marketplace } from '../../mapping/marketplace-identifiers.js';

/** What the ledger kept of one order line read with a marketplace profile. */
export interface MarketplaceLine {
  customerOrderId: string;
  customerLineItemId: string;
  marketplace: Marketplace;
  /** The profile the sheet was read with (a built-in's name or a saved mapping's). */
  profile: string;
  identifiers: LineIdentifiers;
}

export interface ShippedItem {
  customerOrderId: string;
  marketplaceOrderId: string | null;
  customerLineItemId: string;
  /** The seller's SKU as sent (productId), for formats that find the line by it. */
  productId: string;
  /** Units of the line in this package; null for a bundle, whose package holds its components, not its units. */
  quantity: number | null;
  packageId: string;
  trackingNumber: string;
  trackingUrl: string | null;
  carrier: string | null;
  serviceLevel: string | null;
  /** ISO 8601 as the API gave it. */
  shipDate: string | null;
  /** The marketplace identifiers of the line (null: the order was not read with a marketplace profile). */
  line: MarketplaceLine | null;
}

const NO_LINES: ReadonlyMap<string, string> = new Map();

/** The packages a confirmation covers: live, with a tracking number. */
export function confirmablePackages(order: ReconciledOrder): ReconciledPackage[] {
  return order.packages.filter((p) => p.isLive && p.trackingNumber);
}

/**
 * The items of one package, per line. `lineOf` gives the kept identifiers of (order, line), null when
 * the ledger holds none.
 */
export function shippedItemsOf(order: ReconciledOrder, pkg: ReconciledPackage, lineOf: (customerOrderId: string, customerLineItemId: string) => MarketplaceLine | null): ShippedItem[] {
  if (!pkg.trackingNumber) return [];
  const standsFor = order.lines.some((l) => l.isAddedByNetwork) ? new Map(order.lines.filter((l) => l.isAddedByNetwork && l.relatedLineId).map((l) => [l.customerLineItemId, l.relatedLineId!])) : NO_LINES;
  const perLine = new Map<string, { productId: string; units: number; isBundle: boolean }>();
  for (const item of pkg.items) {
    const lineId = standsFor.get(item.customerLineItemId) ?? item.customerLineItemId;
    const lineProduct = item.lineItemProductId ?? item.productId;
    const entry = perLine.get(lineId) ?? { productId: lineProduct, units: 0, isBundle: false };
    if (item.productId === lineProduct) entry.units += item.quantity;
    else entry.isBundle = true;
    perLine.set(lineId, entry);
  }
  const items: ShippedItem[] = [];
  for (const [customerLineItemId, entry] of perLine) {
    items.push({
      customerOrderId: order.customerOrderId,
      marketplaceOrderId: order.marketplaceOrderId,
      customerLineItemId,
      productId: entry.productId,
      quantity: entry.isBundle && entry.units === 0 ? null : entry.units,
      packageId: pkg.packageId,
      trackingNumber: pkg.trackingNumber,
      trackingUrl: pkg.trackingUrl,
      carrier: pkg.carrier,
      serviceLevel: pkg.serviceLevel,
      shipDate: pkg.shipDate,
      line: lineOf(order.customerOrderId, customerLineItemId),
    });
  }
  return items;
}

/** `yyyy-mm-dd` of an ISO instant, in UTC (the day the API says it shipped); empty when unknown. */
export function shipDay(iso: string | null): string {
  if (!iso) return '';
  // Already UTC (the API's usual form): its day is its first ten characters, no Date needed.
  if (iso.endsWith('Z') && iso[10] === 'T') return iso.slice(0, 10);
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? iso.slice(0, 10) : new Date(ms).toISOString().slice(0, 10);
}
