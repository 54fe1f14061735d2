/**
 * Each marketplace's bulk tracking upload, as its documentation (or its most used tool's) gives it:
 * the file name, the header and one row per shipped item. Pure: the writer (write-files.ts) streams
 * the rows. Where each format comes from is in docs/confirmations.md.
 */
import { carrierFor } from './carriers.js';
import type { Marketplace } from '../../mapping/marketplace-identifiers.js';
import { shipDay, type ShippedItem } from './shipped-items.js';

export interface ConfirmationFormat {
  marketplace: Marketplace;
  fileName: string;
  /** Tab for Amazon's flat file; comma (RFC 4180 quoting) otherwise. */
  delimiter: '\t' | ',';
  header: readonly string[];
  rowOf(item: ShippedItem): string[];
}

const ids = (item: ShippedItem) => item.line?.identifiers ?? {};

/** The order as the marketplace knows it: its own ID from the export, else the one the order was sent with, else ours. */
const orderIdOf = (item: ShippedItem): string => ids(item).orderId ?? item.marketplaceOrderId ?? item.customerOrderId;

const quantityText = (item: ShippedItem): string => (item.quantity === null ? '' : String(item.quantity));

/** Seller Central "Shipping Confirmation" flat file (help page 641 / 201576520). */
export const AMAZON_FORMAT: ConfirmationFormat = {
  marketplace: 'amazon',
  fileName: 'amazon-shipping-confirmation.txt',
  delimiter: '\t',
  header: ['order-id', 'order-item-id', 'quantity', 'ship-date', 'carrier-code', 'carrier-name', 'tracking-number', 'ship-method'],
  rowOf(item) {
    const carrier = carrierFor('amazon', item.carrier);
    return [
      orderIdOf(item),
      ids(item).orderItemId ?? item.customerLineItemId,
      quantityText(item),
      shipDay(item.shipDate),
      carrier.code,
      carrier.isKnown ? '' : carrier.name,
      item.trackingNumber,
      item.serviceLevel ?? '',
    ];
  },
};

/**
 * eBay File Exchange, shipping status upload (File Exchange Basic Template Instructions, "Shipping
 * Status"): Action Status, the line as ItemID + TransactionID (OrderID beside them), ShippingStatus 1.
 * One row per line per package: eBay keeps each package's tracking number on the line.
 */
export const EBAY_FORMAT: ConfirmationFormat = {
  marketplace: 'ebay',
  fileName: 'ebay-tracking-upload.csv',
  delimiter: ',',
  header: ['Action(SiteID=US|Country=US|Currency=USD|Version=1193|CC=UTF-8)', 'OrderID', 'ItemID', 'TransactionID', 'ShippingStatus', 'ShippingCarrierUsed', 'ShipmentTrackingNumber'],
  rowOf(item) {
    return [
      'Status',
      orderIdOf(item),
      ids(item).itemId ?? '',
      ids(item).transactionId ?? item.customerLineItemId,
      '1',
      carrierFor('ebay', item.carrier).code,
      item.trackingNumber,
    ];
  },
};

/**
 * Shopify has no CSV upload of tracking of its own; Matrixify (the most used import/export app) imports
 * fulfillments as Orders rows: Command UPDATE, Line: Type "Fulfillment Line", the line by Line: ID (or
 * Line: SKU when the export gave no line ID), Fulfillment: Status success.
 */
export const SHOPIFY_FORMAT: ConfirmationFormat = {
  marketplace: 'shopify',
  fileName: 'shopify-matrixify-fulfillments.csv',
  delimiter: ',',
  header: ['Name', 'Command', 'Line: Type', 'Line: ID', 'Line: SKU', 'Line: Quantity', 'Fulfillment: Status', 'Fulfillment: Processed At', 'Fulfillment: Tracking Company', 'Fulfillment: Tracking Number', 'Fulfillment: Tracking URL', 'Fulfillment: Send Receipt'],
  rowOf(item) {
    return [
      orderIdOf(item),
      'UPDATE',
      'Fulfillment Line',
      ids(item).lineItemId ?? '',
      ids(item).sku ?? item.productId,
      quantityText(item),
      'success',
      item.shipDate ?? '',
      carrierFor('shopify', item.carrier).code,
      item.trackingNumber,
      item.trackingUrl ?? '',
      'TRUE',
    ];
  },
};

/**
 * WooCommerce has no tracking upload of its own; the Advanced Shipment Tracking plugin's CSV import
 * (docs.zorem.com, "CSV Import", tracking per item): order_id, tracking_provider, tracking_number,
 * date_shipped (DD-MM-YYYY, chosen at upload), status_shipped (1 shipped, 2 partially), sku, qty.
 */
export const WOOCOMMERCE_FORMAT: ConfirmationFormat = {
  marketplace: 'woocommerce',
  fileName: 'woocommerce-shipment-tracking.csv',
  delimiter: ',',
  header: ['order_id', 'tracking_provider', 'tracking_number', 'date_shipped', 'status_shipped', 'sku', 'qty'],
  rowOf(item) {
    const day = shipDay(item.shipDate);
    const ddmmyyyy = day ? `${day.slice(8, 10)}-${day.slice(5, 7)}-${day.slice(0, 4)}` : '';
    return [
      orderIdOf(item),
      carrierFor('woocommerce', item.carrier).code,
      item.trackingNumber,
      ddmmyyyy,
      '1',
      ids(item).sku ?? item.productId,
      quantityText(item),
    ];
  },
};

/** The formats by marketplace; Etsy has no file upload of tracking (its orders go to confirmations.csv). */
export const CONFIRMATION_FORMATS: Partial<Record<Marketplace, ConfirmationFormat>> = {
  amazon: AMAZON_FORMAT,
  ebay: EBAY_FORMAT,
  shopify: SHOPIFY_FORMAT,
  woocommerce: WOOCOMMERCE_FORMAT,
};

/** Why a marketplace has no file of its own, for the run's output. */
export const NO_UPLOAD_NOTE: Partial<Record<Marketplace, string>> = {
  etsy: 'Etsy has no file upload of tracking (only one order at a time in Shop Manager, or its API): its packages are in confirmations.csv.',
};

/** One line of the file: tab-delimited text has no quoting, so a tab or line break in a value becomes a space. */
export function formatLine(format: Pick<ConfirmationFormat, 'delimiter'>, cells: readonly string[]): string {
  const line = cells.join(format.delimiter);
  // Most rows need no quoting or cleaning: one look at the whole line instead of one per value.
  if (!NEEDS_CARE[format.delimiter].test(line) && count(line, format.delimiter) === cells.length - 1) return line;
  if (format.delimiter === '\t') return cells.map((c) => c.replace(/[\t\r\n]+/g, ' ')).join('\t');
  return cells.map(quoteCsv).join(',');
}

const NEEDS_CARE = { '\t': /[\r\n]/, ',': /["\r\n]/ } as const;

function count(text: string, char: string): number {
  let n = 0;
  for (let at = text.indexOf(char); at >= 0; at = text.indexOf(char, at + 1)) n++;
  return n;
}

function quoteCsv(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}
