/**
 * The vocabulary of reconciliation (PRODUCT.md section 4): what we expected (the ledger's payload),
 * what the API says (order read, packages), and what the two make together.
 */

import type { LineItemStatus } from '../contract/enums.js';

/** Order roll-up statuses, in the contract's order. */
export const ROLL_UP_STATUSES = ['waiting', 'partially_shipped', 'shipped', 'delivered', 'canceled', 'exception', 'not_found'] as const;
export type RollUpStatus = (typeof ROLL_UP_STATUSES)[number];

export const EXCEPTION_TYPES = [
  'late_shipment',
  'canceled_line',
  'partial_shipment',
  'over_shipment',
  'replaced_package',
  'unexpected_disposition',
  'unknown_order',
  'missing_order',
  'amount_mismatch',
] as const;
export type ExceptionType = (typeof EXCEPTION_TYPES)[number];

/** The line statuses the API gives a canceled and a shipped line (api-spec.md section 3). */
export const CANCELED_LINE_STATUS: LineItemStatus = 'Order Canceled';
export const SHIPPED_LINE_STATUS: LineItemStatus = 'Shipped';
/** The disposition of a line we created (api-spec.md 2.3) and of an order we created (2.2). */
export const API_LINE_DISPOSITION = 'api_order';
export const API_ORDER_DISPOSITION = 'api';

/** A line as we sent it; money in cents (null when the payload held no whole number of cents). */
export interface ExpectedLine {
  customerLineItemId: string;
  productId: string;
  name: string | null;
  quantity: number;
  unitPriceCents: number | null;
  discountCents: number | null;
}

/**
 * An order as we sent it: from the ledger's payload, or, for an order the ledger does not hold, from
 * the rows of the --orders result file that lists it as accepted.
 */
export interface ExpectedOrder {
  customerOrderId: string;
  marketplaceOrderId: string | null;
  sourceOfSale: string | null;
  /** ISO 8601, as sent. */
  orderDate: string | null;
  /** When the API accepted it (ledger), ISO 8601. */
  submittedAt: string | null;
  lines: ExpectedLine[];
  subTotalCents: number | null;
  salesTaxCents: number | null;
  discountTotalCents: number | null;
  grandTotalCents: number | null;
  /** Where this comes from (default the ledger). */
  source?: 'ledger' | 'orders-file';
  /**
   * False when the orders file cannot say which lines were sent (no line columns, or a line's cells
   * unreadable): `lines` is empty then, and the API's lines are taken as they are. Default true.
   */
  hasLines?: boolean;
}

export interface ReconcileException {
  type: ExceptionType;
  /** A sentence a reader can act on. */
  detail: string;
  customerLineItemId?: string;
  packageId?: string;
}

export interface ComponentUnits {
  productId: string;
  quantity: number;
}

/**
 * One line of the order: the API's line when it has one, merged with the line we sent.
 * Quantities are units of the ordered productId; see match.ts for how bundles are counted.
 */
export interface ReconciledLine {
  customerLineItemId: string;
  productId: string;
  name: string | null;
  /** What we sent (or, for a line only the API has, its quantity). */
  ordered: number;
  shipped: number;
  delivered: number;
  /** The API's line status, null when the API does not show the line. */
  status: string | null;
  disposition: string | null;
  /** True when the line's packages carry components of it (productId differs from lineItemProductId). */
  isBundle: boolean;
  /** Component units in live packages, per component productId (bundles only). */
  components: ComponentUnits[];
  /** True for a line the API holds but we never sent (the network added it). */
  isAddedByNetwork: boolean;
  /** For a line the network added: the line of the same product it accounts for (a cancellation, a replacement). */
  relatedLineId: string | null;
  /** Units of this line canceled: all of a canceled line; of a live line, those a canceled added line accounts for. */
  canceledUnits: number;
  /** True for a line we sent that the API's order does not show. */
  isMissingFromApi: boolean;
}

export interface PackageItem {
  productId: string;
  quantity: number;
  customerLineItemId: string;
  lineItemProductId: string | null;
  sku: string | null;
}

/** One package as the Packages sheet shows it. */
export interface ReconciledPackage {
  packageId: string;
  customerOrderId: string;
  trackingNumber: string | null;
  trackingUrl: string | null;
  carrier: string | null;
  serviceLevel: string | null;
  originFc: string | null;
  shipDate: string | null;
  estimatedDeliveryDate: string | null;
  /** Timestamp of the delivered event, when there is one. */
  deliveredAt: string | null;
  /** The newest tracking event's type. */
  lastEvent: string | null;
  lastUpdated: string | null;
  /** Not replaced: its tracking is the one to follow and confirm. */
  isLive: boolean;
  dateReplaced: string | null;
  replacedByPackageId: string | null;
  /** This package, then each replacement in turn (only for packages in a chain; else just itself). */
  chain: string[];
  /** The live package at the end of the chain; null when the chain loops or its end is not visible yet. */
  livePackageId: string | null;
  /** How following replacedByPackageId ends: at a live package, at one not visible (yet), or in a loop. */
  chainEnd: 'live' | 'missing' | 'loop';
  items: PackageItem[];
}

export interface ReconciledOrder {
  customerOrderId: string;
  marketplaceOrderId: string | null;
  sourceOfSale: string | null;
  orderDate: string | null;
  /** The API's order disposition (api, marketplace, ...), null when unknown. */
  orderDisposition: string | null;
  /** True when the ledger holds the order (we sent it); false for an order only an --orders file says was sent. */
  isInLedger: boolean;
  status: RollUpStatus;
  /** Tracking numbers of live packages only, in package order, without repeats. */
  trackingNumbers: string[];
  lines: ReconciledLine[];
  packages: ReconciledPackage[];
  exceptions: ReconcileException[];
}
