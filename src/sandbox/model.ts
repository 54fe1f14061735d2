/** The sandbox's own data: what it stores per order, and the fulfillment plan derived from it. */
import type { CreateOrderPayload } from '../contract/schemas.js';
import type { LineItemStatus } from '../contract/enums.js';

/** Shares of simulated trouble, each in [0, 1]. */
export interface FulfillmentRates {
  /** Share of fulfillment-center shipments split into 2..3 packages. Default 0.2. */
  split: number;
  /** Share of packages lost or damaged in transit and replaced by a new package. Default 0.05. */
  replace: number;
  /** Share of lines canceled at pick (out_of_stock_in_location). Default 0.05. */
  cancel: number;
}

export const DEFAULT_RATES: FulfillmentRates = { split: 0.2, replace: 0.05, cancel: 0.05 };

export interface CenterUnits {
  center: string;
  /** Units of the ordered productId (bundles: bundles, not components). */
  quantity: number;
}

/** Where a line's units were reserved when the order was accepted. */
export interface LineAllocation {
  centers: CenterUnits[];
  /** Units no center could supply: shown as an out_of_stock line, never shipped. */
  shortfall: number;
}

export interface StoredOrder {
  payload: CreateOrderPayload;
  /** Sandbox-clock instant the order was accepted (the "creation day" of redaction). */
  createdAtMs: number;
  /** Parallel to payload.orderDetails.lineItems. */
  allocations: LineAllocation[];
}

/** The statuses the sandbox plans are exactly the contract's (api-spec.md section 3). */
export type PlannedStatus = LineItemStatus;

export interface PlannedLine {
  customerLineItemId: string;
  productId: string;
  name: string;
  quantity: number;
  /** Read-side unit price (created unitPrice - discount), in cents. */
  unitPriceCents: number;
  discountCents: number;
  disposition: string;
  appearsAtMs: number;
  /** Ascending; the first entry is at appearsAtMs. */
  statuses: { atMs: number; status: PlannedStatus }[];
}

export interface PlannedContent {
  productId: string;
  sku: string;
  upc: string;
  quantity: number;
  customerLineItemId: string;
  lineItemProductId: string;
}

export type TrackingEventType = 'label_generated' | 'tendered_to_carrier' | 'delivered';

export interface PlannedPackage {
  packageId: string;
  customerOrderId: string;
  contents: PlannedContent[];
  trackingNumber: string;
  trackingUrl: string;
  shippingCarrier: string;
  serviceLevel: string;
  originFc: string;
  /** label_generated: the package exists from this instant. */
  createdAtMs: number;
  shipDateMs: number;
  estimatedDeliveryMs: number;
  /** Ascending by atMs. */
  events: { type: TrackingEventType; atMs: number }[];
  replacedAtMs?: number;
  replacedByPackageId?: string;
}

export interface FulfillmentPlan {
  customerOrderId: string;
  createdAtMs: number;
  lines: PlannedLine[];
  packages: PlannedPackage[];
}
