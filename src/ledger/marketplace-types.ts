/**
 * What the ledger keeps for confirming shipments back to marketplaces (docs/confirmations.md): per order
 * line read with a marketplace profile, the identifiers the marketplace knows the line by (never sent to
 * the API); and which package's confirmation went into which file, so each is confirmed once.
 */

export interface StoredMarketplaceLine {
  customerOrderId: string;
  customerLineItemId: string;
  /** amazon, ebay, shopify, woocommerce or etsy. */
  marketplace: string;
  /** The profile the sheet was read with. */
  profile: string;
  /** Identifier name -> the export's value (orderId, orderItemId, itemId, transactionId, lineItemId, sku). */
  identifiers: Record<string, string>;
}

/** One package confirmed in one file (by the file's name, e.g. amazon-shipping-confirmation.txt). */
export interface WrittenConfirmation {
  file: string;
  packageId: string;
  trackingNumber: string;
  /** ISO 8601; set by the store when recorded. */
  writtenAt?: string;
}

export interface MarketplaceStore {
  /** Inserts the lines, replacing those of the same order and line (a sheet imported again). */
  recordLines(lines: readonly StoredMarketplaceLine[]): Promise<void>;
  /** The kept lines of these orders. */
  linesOf(customerOrderIds: readonly string[]): Promise<StoredMarketplaceLine[]>;
  /** Which of these packages were confirmed already: keys writtenKey(file, packageId, trackingNumber). */
  writtenOf(packageIds: readonly string[]): Promise<Set<string>>;
  recordWritten(entries: readonly WrittenConfirmation[]): Promise<void>;
  /**
   * The same for whole packages, as JSON text: an array of `[packageId, trackingNumber, file, ...]` (the
   * confirmation writer's journal, handed over unparsed: the ledger reads it in one statement).
   */
  recordWrittenPackages(json: string): Promise<void>;
  /** Every line, then every written confirmation, in batches (for `ledger copy`). */
  allLines(batchSize: number): AsyncGenerator<StoredMarketplaceLine[]>;
  allWritten(batchSize: number): AsyncGenerator<WrittenConfirmation[]>;
}

export function writtenKey(file: string, packageId: string, trackingNumber: string): string {
  return `${file}\u0000${packageId}\u0000${trackingNumber}`;
}
