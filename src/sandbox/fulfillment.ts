/**
 * Simulated fulfillment: a pure function from (stored order, seed, rates, catalogue) to a plan of
 * timed facts. What a reader sees at instant `now` is the plan cut at `now` (see views.ts), so the
 * story of an order depends only on its seed and id, never on request order or timing.
 *
 * Timeline, from acceptance T0:
 * - T0 .. T0+2h(+<=1h): every line is Waiting to Clear. Canceled lines (share `cancel`, or no stock
 *   reserved at all) turn to Order Canceled then, with a new line explaining why.
 * - Labels (label_generated, package appears, shipDate) within T0+2h..T0+25h; a line is Shipped once
 *   all its packages are labeled. tendered_to_carrier 2..12 h after the label.
 * - delivered after a transit time set by the service level: Overnight 10..12 h, 2Day 24..36 h,
 *   Ground 60..100 h; estimatedDeliveryDate = shipDate + 1, 2 or 5 days.
 * - Replaced packages (share `replace`): lost in transit (never delivered, replaced a day after it
 *   should have arrived) or damaged (delivered, replaced 4..48 h later). The old package gets
 *   dateReplaced/replacedByPackageId; the new one carries the same contents (same customerLineItemId,
 *   as the spec says contents name the line given on creation); the order gains a line
 *   `<customerLineItemId>-R<n>` with disposition lost_pre_delivery_in_transit or damaged_shipment,
 *   price 0, status Shipped.
 */
import type { CarrierId } from '../contract/enums.js';
import { dollarsToCents } from '../contract/money.js';
import type { OrderLineItemInput } from '../contract/schemas.js';
import type { Product } from './catalogue.js';
import type { FulfillmentPlan, FulfillmentRates, PlannedContent, PlannedLine, PlannedPackage, StoredOrder } from './model.js';
import { hashText, rngFor, type Rng } from './random.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

export interface PlanContext {
  seed: number;
  rates: FulfillmentRates;
  products: ReadonlyMap<string, Product>;
}

interface CarrierService {
  serviceLevel: string;
  estimateDays: number;
  transitHours: [number, number];
}

export const SHIPPING_CARRIER = 'CarrierX';

/** Carrier name and service level derived from carrierId (values the spec leaves open). No carrierId ships Ground. */
export const CARRIER_SERVICES: Record<CarrierId, CarrierService> = {
  CarrierXGround: { serviceLevel: 'Ground', estimateDays: 5, transitHours: [60, 100] },
  CarrierX2Day: { serviceLevel: '2Day', estimateDays: 2, transitHours: [24, 36] },
  CarrierXOvernight: { serviceLevel: 'Overnight', estimateDays: 1, transitHours: [10, 12] },
};

interface Chunk {
  lineIndex: number;
  units: number;
}

export function planFulfillment(order: StoredOrder, ctx: PlanContext): FulfillmentPlan {
  const details = order.payload.orderDetails;
  const id = details.customerOrderId;
  const t0 = order.createdAtMs;
  const rng = rngFor(ctx.seed, `fulfil:${id}`);
  const service = CARRIER_SERVICES[order.payload.orderShippingDetails?.carrierId ?? 'CarrierXGround'];
  const clearAt = t0 + 2 * HOUR + rng.int(0, 60) * MIN;
  const items = details.lineItems;
  const lines = items.map((item) => createdLine(item, t0));
  const extraLines: PlannedLine[] = [];
  const suffixes = new Map<string, number>();
  const addLine = (item: OrderLineItemInput, disposition: string, quantity: number, atMs: number, status: 'Shipped' | 'Order Canceled'): void => {
    const n = (suffixes.get(item.customerLineItemId) ?? 0) + 1;
    suffixes.set(item.customerLineItemId, n);
    extraLines.push({
      customerLineItemId: `${item.customerLineItemId}-R${n}`,
      productId: item.productId,
      name: item.name,
      quantity,
      unitPriceCents: 0,
      discountCents: 0,
      disposition,
      appearsAtMs: atMs,
      statuses: [{ atMs, status }],
    });
  };

  const byCenter = new Map<string, Chunk[]>();
  items.forEach((item, lineIndex) => {
    const allocation = order.allocations[lineIndex] ?? { centers: [], shortfall: item.quantity };
    const reserved = allocation.centers.reduce((n, c) => n + c.quantity, 0);
    const canceledAtPick = rng.chance(ctx.rates.cancel);
    if (reserved === 0 || canceledAtPick) {
      lines[lineIndex]!.statuses.push({ atMs: clearAt, status: 'Order Canceled' });
      addLine(item, reserved === 0 ? 'out_of_stock' : 'out_of_stock_in_location', item.quantity, clearAt, 'Order Canceled');
      return;
    }
    if (allocation.shortfall > 0) addLine(item, 'out_of_stock', allocation.shortfall, clearAt, 'Order Canceled');
    for (const c of allocation.centers) {
      if (c.quantity <= 0) continue;
      const list = byCenter.get(c.center) ?? [];
      list.push({ lineIndex, units: c.quantity });
      byCenter.set(c.center, list);
    }
  });

  const packages: PlannedPackage[] = [];
  const packageChunks: Chunk[][] = [];
  const lastLabel = new Map<number, number>();
  for (const [center, chunks] of [...byCenter].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const units = chunks.reduce((n, c) => n + c.units, 0);
    const split = rng.chance(ctx.rates.split) && units > 1;
    const parts = split ? Math.min(rng.int(2, 3), units) : 1;
    for (const part of cutUnits(chunks, parts)) {
      const labelAt = clearAt + rng.int(0, 22 * 60) * MIN;
      const pkg = makePackage(ctx, order, packages.length, center, service, rng, labelAt, part);
      packages.push(pkg);
      packageChunks.push(part);
      for (const c of part) lastLabel.set(c.lineIndex, Math.max(lastLabel.get(c.lineIndex) ?? 0, labelAt));
    }
  }
  for (const [lineIndex, atMs] of lastLabel) lines[lineIndex]!.statuses.push({ atMs, status: 'Shipped' });

  const originals = packages.length;
  for (let p = 0; p < originals; p++) {
    if (!rng.chance(ctx.rates.replace)) continue;
    const old = packages[p]!;
    const lost = rng.chance(0.5);
    const tendered = old.events[1]!.atMs;
    let replacedAt: number;
    if (lost) {
      old.events = old.events.filter((e) => e.type !== 'delivered');
      replacedAt = tendered + service.transitHours[1] * HOUR + DAY;
    } else {
      replacedAt = old.events[2]!.atMs + rng.int(4, 48) * HOUR;
    }
    const fresh = makePackage(ctx, order, packages.length, old.originFc, service, rng, replacedAt, packageChunks[p]!);
    old.replacedAtMs = replacedAt;
    old.replacedByPackageId = fresh.packageId;
    packages.push(fresh);
    for (const c of packageChunks[p]!) {
      addLine(items[c.lineIndex]!, lost ? 'lost_pre_delivery_in_transit' : 'damaged_shipment', c.units, replacedAt, 'Shipped');
    }
  }
  return { customerOrderId: id, createdAtMs: t0, lines: [...lines, ...extraLines], packages };
}

/** A line as created: Waiting to Clear from t0, read price = unitPrice - discount. */
export function createdLine(item: OrderLineItemInput, t0: number): PlannedLine {
  const unit = dollarsToCents(item.unitPrice) ?? 0;
  const discount = item.discount === undefined ? 0 : (dollarsToCents(item.discount) ?? 0);
  return {
    customerLineItemId: item.customerLineItemId,
    productId: item.productId,
    name: item.name,
    quantity: item.quantity,
    unitPriceCents: unit - discount,
    discountCents: discount,
    disposition: 'api_order',
    appearsAtMs: t0,
    statuses: [{ atMs: t0, status: 'Waiting to Clear' }],
  };
}

/** Cuts a center's units into `parts` contiguous runs of nearly equal size, keeping line order. */
export function cutUnits(chunks: readonly Chunk[], parts: number): Chunk[][] {
  const total = chunks.reduce((n, c) => n + c.units, 0);
  const out: Chunk[][] = [];
  for (let p = 0; p < parts; p++) {
    const start = Math.floor((p * total) / parts);
    const end = Math.floor(((p + 1) * total) / parts);
    const part: Chunk[] = [];
    let pos = 0;
    for (const c of chunks) {
      const overlap = Math.min(end, pos + c.units) - Math.max(start, pos);
      if (overlap > 0) part.push({ lineIndex: c.lineIndex, units: overlap });
      pos += c.units;
    }
    out.push(part);
  }
  return out;
}

function makePackage(
  ctx: PlanContext,
  order: StoredOrder,
  index: number,
  center: string,
  service: CarrierService,
  rng: Rng,
  labelAt: number,
  part: readonly Chunk[],
): PlannedPackage {
  const id = order.payload.orderDetails.customerOrderId;
  const packageId = `PKG-${String(hashText(`${id}#${index}`, ctx.seed | 0)).padStart(16, '0')}`;
  const trackingNumber = `CX${String(hashText(`${id}#${index}`, (ctx.seed | 0) ^ 0x5bd1e995)).padStart(16, '0')}`;
  const tenderAt = labelAt + rng.int(2 * 60, 12 * 60) * MIN;
  const deliverAt = tenderAt + rng.int(service.transitHours[0] * 60, service.transitHours[1] * 60) * MIN;
  return {
    packageId,
    customerOrderId: id,
    contents: part.flatMap((c) => contentsOf(ctx, order.payload.orderDetails.lineItems[c.lineIndex]!, c.units)),
    trackingNumber,
    trackingUrl: `https://tracking.carrierx.example/track/${trackingNumber}`,
    shippingCarrier: SHIPPING_CARRIER,
    serviceLevel: service.serviceLevel,
    originFc: center,
    createdAtMs: labelAt,
    shipDateMs: labelAt,
    estimatedDeliveryMs: labelAt + service.estimateDays * DAY,
    events: [
      { type: 'label_generated', atMs: labelAt },
      { type: 'tendered_to_carrier', atMs: tenderAt },
      { type: 'delivered', atMs: deliverAt },
    ],
  };
}

/** A bundle ships as its components; lineItemProductId keeps the productId given on creation. */
function contentsOf(ctx: PlanContext, item: OrderLineItemInput, units: number): PlannedContent[] {
  const product = ctx.products.get(item.productId);
  if (product?.components) {
    return product.components.map((c) => {
      const component = ctx.products.get(c.productId);
      return {
        productId: c.productId,
        sku: component?.sku ?? c.productId,
        upc: component?.upc ?? '',
        quantity: c.quantity * units,
        customerLineItemId: item.customerLineItemId,
        lineItemProductId: item.productId,
      };
    });
  }
  return [
    {
      productId: item.productId,
      sku: product?.sku ?? item.productId,
      upc: product?.upc ?? '',
      quantity: units,
      customerLineItemId: item.customerLineItemId,
      lineItemProductId: item.productId,
    },
  ];
}
