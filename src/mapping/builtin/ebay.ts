/**
 * eBay's orders report (Seller Hub > Orders > Download report, "Orders report" CSV): one row per line item,
 * the order's columns repeated on each. The recipient is `Ship To *`, never `Buyer *` (the buyer's own
 * address and name); `Sale Date` is written `Nov-18-26`; `Sold For` is one unit's price; `Total Price`
 * includes shipping, so the API's totals are computed from the lines. Tax that eBay collects is per line,
 * so the order's salesTax is their sum. `Custom Label` is the seller's SKU, the network's product ID.
 */
import type { Profile } from '../profile.js';

export const EBAY_PROFILE: Profile = {
  name: 'ebay',
  label: 'eBay orders report',
  description: "eBay Seller Hub's Orders report CSV: one row per line item, the order's columns on each.",
  dateFormat: 'MMM-DD-YY',
  totals: 'computed',
  marketplace: 'ebay',
  identifiers: { orderId: { column: 'Order Number' }, itemId: { column: 'Item Number' }, transactionId: { column: 'Transaction ID' } },
  fields: {
    customerOrderId: { column: 'Order Number' },
    marketplaceOrderId: { column: 'Order Number' },
    orderDate: { column: 'Sale Date' },
    sourceOfSale: { constant: 'OtherMarketplace' },
    salesTax: { column: 'eBay Collected Tax', sum: true },
    fullName: { column: 'Ship To Name' },
    email: { column: 'Buyer Email', optional: true },
    addressLine1: { column: 'Ship To Address 1' },
    addressLine2: { column: 'Ship To Address 2' },
    city: { column: 'Ship To City' },
    provinceOrState: { column: 'Ship To State' },
    postalOrZipCode: { column: 'Ship To Zip' },
    countryCode: { column: 'Ship To Country' },
    phone: { column: 'Ship To Phone' },
    carrierId: {
      column: 'Shipping Service',
      values: { 'Standard Shipping': 'CarrierXGround', 'Economy Shipping': 'CarrierXGround', 'Expedited Shipping': 'CarrierX2Day', 'One-day Shipping': 'CarrierXOvernight' },
      // eBay names many carriers' services; one not listed leaves the carrier to the network's default.
      otherwise: 'blank',
      optional: true,
    },
    productId: { column: 'Custom Label' },
    customerLineItemId: { column: 'Transaction ID' },
    name: { column: 'Item Title' },
    quantity: { column: 'Quantity' },
    unitPrice: { column: 'Sold For' },
  },
  ignore: [
    'Sales Record Number', 'Buyer Username', 'Buyer Name', 'Buyer Note', 'Buyer Address 1', 'Buyer Address 2', 'Buyer City', 'Buyer State',
    'Buyer Zip', 'Buyer Country', 'Buyer Tax Identifier Name', 'Buyer Tax Identifier Value', 'Item Number', 'Sold Via Promoted Listings',
    'Shipping And Handling', 'Item Location', 'Item Zip Code', 'Item Country', 'eBay Collect And Remit Tax Rate', 'eBay Collect And Remit Tax Type',
    'eBay Reference Name', 'eBay Reference Value', 'Tax Status', 'Seller Collected Tax', 'Electronic Waste Recycling Fee', 'Mattress Recycling Fee',
    'Battery Recycling Fee', 'White Goods Disposal Tax', 'Tire Recycling Fee', 'Additional Fee', 'Lumber Fee', 'Prepaid Wireless Fee',
    'Road Improvement And Food Delivery Fee', 'eBay Collected Charges', 'Total Price', 'eBay Collected Tax and Fees Included in Total', 'Payment Method',
    'Paid On Date', 'Ship By Date', 'Minimum Estimated Delivery Date', 'Maximum Estimated Delivery Date', 'Shipped On Date', 'Feedback Left',
    'Feedback Received', 'My Item Note', 'PayPal Transaction ID', 'Tracking Number', 'Variation Details', 'Global Shipping Program',
    'Global Shipping Reference ID', 'Click And Collect', 'Click And Collect Reference Number', 'eBay Plus', 'Authenticity Verification Program',
    'Authenticity Verification Status', 'Authenticity Verification Outcome Reason', 'PSA Vault Program', 'Vault Fulfillment Type',
    'eBay Fulfillment Program', 'Tax City', 'Tax State', 'Tax Zip', 'Tax Country', 'eBay International Shipping',
  ],
};
