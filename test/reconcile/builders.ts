/** In-memory builders for reconciliation tests: orders as sent, as read, and packages. */
import type { CreateOrderPayload, OrderRead, PackageRecord } from '../../src/contract/schemas.js';
import type { ExpectedOrder } from '../../src/reconcile/types.js';
import { buildOrderPayload } from '../support/order-payload.js';

export const T0 = '2030-03-01T10:00:00.000Z';
export const DAY_MS = 86_400_000;

export function at(hoursAfterT0: number): string {
  return new Date(Date.parse(T0) + hoursAfterT0 * 3_600_000).toISOString();
}

export interface LineSpec {
  id: string;
  productId: string;
  quantity: number;
  /** Dollars. */
  price?: number;
  discount?: number;
}

export function expected(id: string, lines: LineSpec[], extra: Partial<ExpectedOrder> = {}): ExpectedOrder {
  const sent = lines.map((l) => ({
    customerLineItemId: l.id,
    productId: l.productId,
    name: `Item ${l.productId}`,
    quantity: l.quantity,
    unitPriceCents: Math.round((l.price ?? 10) * 100),
    discountCents: Math.round((l.discount ?? 0) * 100),
  }));
  const sub = sent.reduce((n, l) => n + l.unitPriceCents * l.quantity, 0);
  const disc = sent.reduce((n, l) => n + l.discountCents * l.quantity, 0);
  return {
    customerOrderId: id,
    marketplaceOrderId: `MP-${id}`,
    sourceOfSale: 'OtherMarketplace',
    orderDate: T0,
    submittedAt: at(1),
    lines: sent,
    subTotalCents: sub,
    salesTaxCents: 150,
    discountTotalCents: disc,
    grandTotalCents: sub + 150,
    ...extra,
  };
}

export interface ReadLineOverride {
  status?: string;
  disposition?: string;
  quantity?: number;
  unitPrice?: number;
}

/**
 * The order as the API would read it back (PRODUCT.md section 6): unitPrice net of discount,
 * subTotal over net prices, grandTotal = subTotal + salesTax. `status` applies to every line.
 */
export function readOf(order: ExpectedOrder, status = 'Waiting to Clear', overrides: Record<string, ReadLineOverride> = {}): OrderRead {
  const lineItems = order.lines.map((l) => {
    const o = overrides[l.customerLineItemId] ?? {};
    return {
      productId: l.productId,
      name: l.name ?? '',
      customerLineItemId: l.customerLineItemId,
      quantity: o.quantity ?? l.quantity,
      unitPrice: o.unitPrice ?? ((l.unitPriceCents ?? 0) - (l.discountCents ?? 0)) / 100,
      discount: (l.discountCents ?? 0) / 100,
      disposition: o.disposition ?? 'api_order',
      status: o.status ?? status,
    };
  });
  const subCents = order.lines.reduce((n, l) => n + ((l.unitPriceCents ?? 0) - (l.discountCents ?? 0)) * l.quantity, 0);
  return {
    customerOrderId: order.customerOrderId,
    orderDate: order.orderDate ?? T0,
    sourceOfSale: order.sourceOfSale ?? 'OtherMarketplace',
    lineItems,
    subTotal: subCents / 100,
    salesTax: (order.salesTaxCents ?? 0) / 100,
    grandTotal: (subCents + (order.salesTaxCents ?? 0)) / 100,
    disposition: 'api',
  };
}

export interface ItemSpec {
  line: string;
  productId: string;
  quantity: number;
  /** Set for bundle components: the ordered product. */
  lineItemProductId?: string;
}

export interface PackageSpec {
  id: string;
  order: string;
  items: ItemSpec[];
  tracking?: string;
  delivered?: boolean;
  replacedBy?: string;
  lastUpdated?: string;
}

export function pkg(spec: PackageSpec): PackageRecord {
  const events = [
    { eventType: 'label_generated', eventTimestamp: at(10) },
    { eventType: 'tendered_to_carrier', eventTimestamp: at(12) },
  ];
  if (spec.delivered) events.push({ eventType: 'delivered', eventTimestamp: at(40) });
  const record: PackageRecord = {
    packageId: spec.id,
    customerOrderId: spec.order,
    packageContents: spec.items.map((i) => ({
      productId: i.productId,
      sku: `SKU-${i.productId}`,
      quantity: i.quantity,
      customerLineItemId: i.line,
      lineItemProductId: i.lineItemProductId ?? i.productId,
    })),
    trackingDetail: {
      trackingNumber: spec.tracking ?? `TRK-${spec.id}`,
      trackingUrl: `https://track.example/${spec.id}`,
      shippingCarrier: 'CarrierX',
      serviceLevel: 'Ground',
      originFc: 'FC-EAST-1',
      shipDate: at(12),
      estimatedDeliveryDate: at(72),
      lastUpdated: spec.lastUpdated ?? at(spec.delivered ? 40 : 12),
      trackingEvents: events,
    },
    lastUpdated: spec.lastUpdated ?? at(spec.delivered ? 40 : 12),
  };
  if (spec.replacedBy) {
    record.replacedByPackageId = spec.replacedBy;
    record.dateReplaced = at(30);
  }
  return record;
}

/** now = T0 + hours. */
export function nowAt(hours: number): Date {
  return new Date(Date.parse(T0) + hours * 3_600_000);
}

/** The payload sent for `expected(id, [{ id: 'L1', productId: 'PRD-1001', quantity: 1 }])`: one unit at $10, tax $1.50, ordered at T0 (or `orderDate`). */
export function sentPayload(id: string, orderDate = T0): CreateOrderPayload {
  return buildOrderPayload(id, { orderDate, salesTax: 1.5, lines: [{ unitPrice: 10 }] });
}
