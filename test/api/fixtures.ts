/** Small builders of API answers for the client tests (orders to send: test/support/order-payload.ts). */
export function orderDetails(customerOrderId = 'A-1') {
  return {
    customerOrderId,
    orderDate: '2030-01-01T00:00:00Z',
    orderRegionInfo: { city: 'Springfield', state: 'IL', country: 'US', portalCode: '62701' },
    sourceOfSale: 'OtherMarketplace',
    lineItems: [
      { productId: 'P-1', name: 'Widget', customerLineItemId: 'L1', quantity: 2, unitPrice: 9.5, discount: 0.5, disposition: 'api_order', status: 'Waiting to Clear' },
    ],
    subTotal: 19,
    salesTax: 1.5,
    grandTotal: 20.5,
    disposition: 'api',
  };
}

export function packageRecord(customerOrderId = 'A-1', packageId = 'PKG-1') {
  return {
    packageId,
    customerOrderId,
    packageContents: [{ productId: 'P-1', sku: 'SKU-1', upc: '0001', quantity: 2, customerLineItemId: 'L1', lineItemProductId: 'P-1' }],
    trackingDetail: {
      trackingNumber: '1Z999',
      trackingUrl: 'https://track.example/1Z999',
      shippingCarrier: 'CarrierX',
      serviceLevel: 'Ground',
      originFc: 'FC1',
      shipDate: '2030-01-02T10:00:00-05:00',
      trackingEvents: [{ eventType: 'label_generated', eventTimestamp: '2030-01-02T09:00:00Z' }],
    },
    lastUpdated: '2030-01-02T10:00:00Z',
  };
}

export function inventoryItem(productId = 'P-1') {
  return { productId, sku: 'SKU-1', upc: '0001', name: 'Widget', availableQuantity: 7, fulfillmentCenters: [{ id: 'FC1', availableQuantity: 7 }] };
}
