/**
 * Etsy's "Sold Order Items" CSV (Shop Manager > Settings > Options > Download Data): one row per item,
 * the order's columns repeated on each. The recipient is `Ship *` (`Buyer` is the buyer's user name);
 * `Price` is one unit's price and `Discount Amount` the line's whole discount, divided by the quantity;
 * `Order Sales Tax` is given per item, so the order's salesTax is the sum of its lines'. `Sale Date` is
 * month first (`11/18/26`). The export has no phone number: a `Ship Phone` column added to it is read,
 * and without one each order is refused for its phone (a copy of this profile may set a constant).
 */
import type { Profile } from '../profile.js';

export const ETSY_PROFILE: Profile = {
  name: 'etsy',
  label: 'Etsy sold order items export',
  description: "Etsy's Sold Order Items CSV: one row per item, the order's columns on each.",
  dateOrder: 'mdy',
  totals: 'computed',
  marketplace: 'etsy',
  identifiers: { orderId: { column: 'Order ID' }, transactionId: { column: 'Transaction ID' } },
  fields: {
    customerOrderId: { column: 'Order ID' },
    marketplaceOrderId: { column: 'Order ID' },
    orderDate: { column: 'Sale Date' },
    sourceOfSale: { constant: 'OtherMarketplace' },
    salesTax: { column: 'Order Sales Tax', sum: true },
    fullName: { column: 'Ship Name' },
    addressLine1: { column: 'Ship Address1' },
    addressLine2: { column: 'Ship Address2' },
    city: { column: 'Ship City' },
    provinceOrState: { column: 'Ship State' },
    postalOrZipCode: { column: 'Ship Zipcode' },
    countryCode: { column: 'Ship Country' },
    phone: { column: 'Ship Phone', optional: true },
    productId: { column: 'SKU' },
    customerLineItemId: { column: 'Transaction ID' },
    name: { column: 'Item Name' },
    quantity: { column: 'Quantity' },
    unitPrice: { column: 'Price' },
    discount: { column: 'Discount Amount', perUnit: true, optional: true },
  },
  ignore: [
    'Buyer', 'Coupon Code', 'Coupon Details', 'Shipping Discount', 'Order Shipping', 'Item Total', 'Currency', 'Listing ID', 'Date Paid',
    'Date Shipped', 'Variations', 'Order Type', 'Listings Type', 'Payment Type', 'InPerson Discount', 'InPerson Location', 'VAT Paid by Buyer',
  ],
};
