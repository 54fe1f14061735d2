/**
 * Amazon Seller Central's order report (Orders > Order Reports, tab-delimited): one row per order item,
 * every column on every row. `item-price` and `item-promotion-discount` are for the whole line (quantity
 * included), so they are divided by `quantity-purchased`; `item-tax` is per line, so the order's salesTax
 * is their sum. The recipient is `recipient-name` and `ship-*`, never `buyer-*` or `bill-*`.
 */
import type { Profile } from '../profile.js';

export const AMAZON_PROFILE: Profile = {
  name: 'amazon',
  label: 'Amazon order report',
  description: "Amazon Seller Central's tab-delimited order report: one row per order item.",
  totals: 'computed',
  marketplace: 'amazon',
  identifiers: { orderId: { column: 'order-id' }, orderItemId: { column: 'order-item-id' } },
  fields: {
    customerOrderId: { column: 'order-id' },
    marketplaceOrderId: { column: 'order-id' },
    orderDate: { column: 'purchase-date' },
    sourceOfSale: { constant: 'OtherMarketplace' },
    salesTax: { column: 'item-tax', sum: true },
    fullName: { column: 'recipient-name' },
    email: { column: 'buyer-email', optional: true },
    addressLine1: { column: 'ship-address-1' },
    addressLine2: { column: 'ship-address-2' },
    addressLine3: { column: 'ship-address-3', optional: true },
    city: { column: 'ship-city' },
    provinceOrState: { column: 'ship-state' },
    postalOrZipCode: { column: 'ship-postal-code' },
    countryCode: { column: 'ship-country' },
    phone: { column: 'ship-phone-number' },
    carrierId: {
      column: 'ship-service-level',
      values: { Standard: 'CarrierXGround', FreeEconomy: 'CarrierXGround', Expedited: 'CarrierX2Day', SecondDay: 'CarrierX2Day', NextDay: 'CarrierXOvernight', Priority: 'CarrierXOvernight' },
    },
    productId: { column: 'sku' },
    customerLineItemId: { column: 'order-item-id' },
    name: { column: 'product-name' },
    quantity: { column: 'quantity-purchased' },
    unitPrice: { column: 'item-price', perUnit: true },
    discount: { column: 'item-promotion-discount', perUnit: true, optional: true },
  },
  ignore: [
    'payments-date', 'buyer-name', 'buyer-phone-number', 'currency', 'shipping-price', 'shipping-tax', 'bill-address-1', 'bill-address-2',
    'bill-address-3', 'bill-city', 'bill-state', 'bill-postal-code', 'bill-country', 'item-promotion-id', 'ship-promotion-discount',
    'ship-promotion-id', 'delivery-start-date', 'delivery-end-date', 'delivery-time-zone', 'delivery-Instructions', 'sales-channel',
    'is-business-order', 'purchase-order-number', 'price-designation', 'is-prime', 'is-iba', 'is-transparency', 'signature-confirmation-recommended',
  ],
};
