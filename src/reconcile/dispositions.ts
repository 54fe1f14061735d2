/** What a line item disposition means (api-spec.md 2.3), for exception details a reader can act on. */

const MEANINGS: Record<string, string> = {
  api_order: 'standard order submitted through the API',
  out_of_stock: 'the product was unavailable when the order was processed',
  out_of_stock_in_location: 'the product was unavailable when the order was picked',
  wrong_item_shipped: 'the original line was mis-shipped',
  wrong_quantity_shipped: 'the shipment contained the wrong quantity',
  confirmed_misdelivery: 'the carrier delivered the original line incorrectly',
  damaged_shipment: 'the original line was damaged in transit by the carrier',
  lost_label: 'a shipment label was lost or damaged in the fulfillment center',
  lost_post_delivery_driver_follow_up: 'the carrier delivered but the customer did not receive the package',
  lost_pre_delivery_in_transit: 'the carrier lost the line before delivery',
};

/** "out_of_stock_in_location (the product was unavailable when the order was picked)", or the bare value. */
export function describeDisposition(disposition: string): string {
  const meaning = MEANINGS[disposition];
  return meaning ? `${disposition} (${meaning})` : disposition;
}
