/**
 * Shopify's orders export (Orders > Export, "CSV for Excel" or "Plain CSV"): one row per line item, the
 * order's own columns filled on its first row only. `Name` is the order number (#1041), never the item's
 * name; the recipient is `Shipping *` (`Billing *` is the buyer); `Total` includes shipping and `Subtotal`
 * is after discounts, so the API's totals (subTotal before discounts, grandTotal = subTotal + tax) are
 * computed from the lines. `Lineitem discount` is the line's whole discount, so it is divided by the quantity.
 */
import type { Profile } from '../profile.js';

export const SHOPIFY_PROFILE: Profile = {
  name: 'shopify',
  label: 'Shopify orders export',
  description: "Shopify's Orders > Export CSV: one row per line item, the order's columns on its first row.",
  totals: 'computed',
  marketplace: 'shopify',
  identifiers: { orderId: { column: 'Name' }, sku: { column: 'Lineitem sku' } },
  fields: {
    customerOrderId: { column: 'Name' },
    marketplaceOrderId: { column: 'Name' },
    orderDate: { column: 'Created at' },
    sourceOfSale: { constant: 'OtherMarketplace' },
    salesTax: { column: 'Taxes' },
    fullName: { column: 'Shipping Name' },
    email: { column: 'Email' },
    addressLine1: { column: 'Shipping Address1' },
    addressLine2: { column: 'Shipping Address2' },
    city: { column: 'Shipping City' },
    provinceOrState: { column: 'Shipping Province' },
    postalOrZipCode: { column: 'Shipping Zip' },
    countryCode: { column: 'Shipping Country' },
    phone: { column: 'Shipping Phone' },
    carrierId: {
      column: 'Shipping Method',
      values: { Standard: 'CarrierXGround', 'Standard Shipping': 'CarrierXGround', Ground: 'CarrierXGround', Express: 'CarrierX2Day', 'Express Shipping': 'CarrierX2Day', '2-Day': 'CarrierX2Day', Overnight: 'CarrierXOvernight', 'Next Day': 'CarrierXOvernight' },
      optional: true,
    },
    productId: { column: 'Lineitem sku' },
    customerLineItemId: { generate: 'lineNumber' },
    name: { column: 'Lineitem name' },
    quantity: { column: 'Lineitem quantity' },
    unitPrice: { column: 'Lineitem price' },
    discount: { column: 'Lineitem discount', perUnit: true, optional: true },
  },
  ignore: [
    'Financial Status', 'Paid at', 'Fulfillment Status', 'Fulfilled at', 'Accepts Marketing', 'Currency', 'Subtotal', 'Shipping', 'Total',
    'Discount Code', 'Discount Amount', 'Lineitem compare at price', 'Lineitem requires shipping', 'Lineitem taxable', 'Lineitem fulfillment status',
    'Billing Name', 'Billing Street', 'Billing Address1', 'Billing Address2', 'Billing Company', 'Billing City', 'Billing Zip', 'Billing Province',
    'Billing Country', 'Billing Phone', 'Shipping Street', 'Shipping Company', 'Notes', 'Note Attributes', 'Cancelled at', 'Payment Method',
    'Payment Reference', 'Refunded Amount', 'Vendor', 'Outstanding Balance', 'Employee', 'Location', 'Device ID', 'Id', 'Tags', 'Risk Level', 'Source',
    'Tax 1 Name', 'Tax 1 Value', 'Tax 2 Name', 'Tax 2 Value', 'Tax 3 Name', 'Tax 3 Value', 'Tax 4 Name', 'Tax 4 Value', 'Tax 5 Name', 'Tax 5 Value',
    'Phone', 'Receipt Number', 'Duties', 'Billing Province Name', 'Shipping Province Name', 'Payment ID', 'Payment Terms Name', 'Next Payment Due At',
    'Payment References',
  ],
};
