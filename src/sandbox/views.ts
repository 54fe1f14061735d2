/**
 * What a reader sees at instant `now`: the fulfillment plan cut at `now`, in the response shapes
 * of api-spec.md 2.2 and 2.6 with the read-side decisions of PRODUCT.md section 6 (read unitPrice
 * = created unitPrice - discount; subTotal and grandTotal from those; orderRegionInfo null once redacted).
 */
import { centsToDollars, dollarsToCents } from '../contract/money.js';
import { isRegionRedacted, toIso } from './dates.js';
import type { PlannedLine, PlannedPackage, PlannedStatus, StoredOrder } from './model.js';

export function statusAt(line: PlannedLine, nowMs: number): PlannedStatus | null {
  if (line.appearsAtMs > nowMs) return null;
  let status: PlannedStatus | null = null;
  for (const s of line.statuses) if (s.atMs <= nowMs) status = s.status;
  return status;
}

export interface LineView {
  productId: string;
  name: string;
  customerLineItemId: string;
  quantity: number;
  unitPrice: number;
  discount: number;
  disposition: string;
  status: PlannedStatus;
}

export interface OrderDetailsView {
  customerOrderId: string;
  orderDate: string;
  orderRegionInfo: { city: string | null; state: string | null; country: string | null; portalCode: string | null };
  sourceOfSale: string;
  lineItems: LineView[];
  subTotal: number;
  salesTax: number;
  discountTotal: number;
  grandTotal: number;
  disposition: 'api';
}

/** `lines`: the plan's lines, or for a just-created order its created lines (the plan adds nothing before clearing). */
export function viewOrder(order: StoredOrder, lines: readonly PlannedLine[], nowMs: number): OrderDetailsView {
  const details = order.payload.orderDetails;
  const address = order.payload.customerDetails.shippingAddress;
  const redacted = isRegionRedacted(order.createdAtMs, nowMs);
  const lineItems: LineView[] = [];
  let subTotalCents = 0;
  let discountTotalCents = 0;
  for (const line of lines) {
    const status = statusAt(line, nowMs);
    if (!status) continue;
    subTotalCents += line.unitPriceCents * line.quantity;
    discountTotalCents += line.discountCents * line.quantity;
    lineItems.push({
      productId: line.productId,
      name: line.name,
      customerLineItemId: line.customerLineItemId,
      quantity: line.quantity,
      unitPrice: centsToDollars(line.unitPriceCents),
      discount: centsToDollars(line.discountCents),
      disposition: line.disposition,
      status,
    });
  }
  const salesTaxCents = dollarsToCents(details.salesTax) ?? 0;
  return {
    customerOrderId: details.customerOrderId,
    // Stored as UTC ISO text at acceptance (create-order.ts).
    orderDate: details.orderDate,
    orderRegionInfo: redacted
      ? { city: null, state: null, country: null, portalCode: null }
      : { city: address.city, state: address.provinceOrState, country: address.countryCode, portalCode: address.postalOrZipCode },
    sourceOfSale: details.sourceOfSale,
    lineItems,
    subTotal: centsToDollars(subTotalCents),
    salesTax: centsToDollars(salesTaxCents),
    discountTotal: centsToDollars(discountTotalCents),
    grandTotal: centsToDollars(subTotalCents + salesTaxCents),
    disposition: 'api',
  };
}

/** How far an order's view has got at `now`: line statuses passed, doubled, +1 once its region is redacted. */
function orderStage(order: StoredOrder, lines: readonly PlannedLine[], nowMs: number): number {
  let passed = 0;
  for (const line of lines) {
    if (line.appearsAtMs > nowMs) continue;
    for (const s of line.statuses) if (s.atMs <= nowMs) passed++;
  }
  return passed * 2 + (isRegionRedacted(order.createdAtMs, nowMs) ? 1 : 0);
}

const orderJsonCache = new WeakMap<readonly PlannedLine[], (string | undefined)[]>();

/**
 * viewOrder of an order's planned lines as JSON text, cached per stage (the view changes only when
 * a line status passes or the region is redacted): list orders answers every order of a month at once.
 */
export function orderDetailsJson(order: StoredOrder, planLines: readonly PlannedLine[], nowMs: number): string {
  return cachedByStage(orderJsonCache, planLines, orderStage(order, planLines, nowMs), () => viewOrder(order, planLines, nowMs));
}

/** The JSON of `view()` for `key` at `stage`, made once: a view changes only when its stage does. */
function cachedByStage<K extends object>(cache: WeakMap<K, (string | undefined)[]>, key: K, stage: number, view: () => unknown): string {
  let byStage = cache.get(key);
  if (!byStage) {
    byStage = [];
    cache.set(key, byStage);
  }
  let text = byStage[stage];
  if (text === undefined) {
    text = JSON.stringify(view());
    byStage[stage] = text;
  }
  return text;
}

/** How far a package has got at `now`: 0 = not yet labeled; events visible, +3 once replaced. */
export function packageStage(pkg: PlannedPackage, nowMs: number): number {
  if (pkg.createdAtMs > nowMs) return 0;
  let stage = 0;
  for (const e of pkg.events) if (e.atMs <= nowMs) stage++;
  if (pkg.replacedAtMs !== undefined && pkg.replacedAtMs <= nowMs) stage += 3;
  return stage;
}

/** The latest event or replacement at or before `now`; null before the package exists. */
export function packageLastUpdated(pkg: PlannedPackage, nowMs: number): number | null {
  if (pkg.createdAtMs > nowMs) return null;
  let last = pkg.createdAtMs;
  for (const e of pkg.events) if (e.atMs <= nowMs && e.atMs > last) last = e.atMs;
  if (pkg.replacedAtMs !== undefined && pkg.replacedAtMs <= nowMs && pkg.replacedAtMs > last) last = pkg.replacedAtMs;
  return last;
}

/** The package record (api-spec 2.6) as of `now`, or null before it exists. */
export function viewPackage(pkg: PlannedPackage, nowMs: number): Record<string, unknown> | null {
  if (pkg.createdAtMs > nowMs) return null;
  const events = pkg.events.filter((e) => e.atMs <= nowMs);
  const trackingLast = events.reduce((m, e) => Math.max(m, e.atMs), pkg.createdAtMs);
  const replaced = pkg.replacedAtMs !== undefined && pkg.replacedAtMs <= nowMs;
  const record: Record<string, unknown> = {
    packageId: pkg.packageId,
    customerOrderId: pkg.customerOrderId,
    packageContents: pkg.contents,
    trackingDetail: {
      trackingNumber: pkg.trackingNumber,
      trackingUrl: pkg.trackingUrl,
      shippingCarrier: pkg.shippingCarrier,
      serviceLevel: pkg.serviceLevel,
      originFc: pkg.originFc,
      shipDate: toIso(pkg.shipDateMs),
      estimatedDeliveryDate: toIso(pkg.estimatedDeliveryMs),
      lastUpdated: toIso(trackingLast),
      trackingEvents: events.map((e) => ({ eventType: e.type, eventTimestamp: toIso(e.atMs) })),
    },
    lastUpdated: toIso(packageLastUpdated(pkg, nowMs)!),
  };
  if (replaced) {
    record.dateReplaced = toIso(pkg.replacedAtMs!);
    record.replacedByPackageId = pkg.replacedByPackageId;
  }
  return record;
}

const jsonCache = new WeakMap<PlannedPackage, (string | undefined)[]>();

/** viewPackage as JSON text, cached per stage: the view only changes when an event or replacement passes. */
export function packageJson(pkg: PlannedPackage, nowMs: number): string | null {
  const stage = packageStage(pkg, nowMs);
  if (stage === 0) return null;
  return cachedByStage(jsonCache, pkg, stage, () => viewPackage(pkg, nowMs));
}
