/** A marketplace line's and a written confirmation's rows as both backends read them, and the records they become. */
import type { StoredMarketplaceLine } from './marketplace-types.js';

export interface LineRow {
  customer_order_id: string;
  customer_line_item_id: string;
  marketplace: string;
  profile: string;
  identifiers: string;
}

export interface WrittenRow {
  file: string;
  package_id: string;
  tracking_number: string;
  written_at: string;
}

export const toLine = (r: LineRow): StoredMarketplaceLine => ({
  customerOrderId: r.customer_order_id,
  customerLineItemId: r.customer_line_item_id,
  marketplace: r.marketplace,
  profile: r.profile,
  identifiers: JSON.parse(r.identifiers) as Record<string, string>,
});
