/**
 * WooCommerce orders through the Customer/Order/Coupon Export plugin, format "Default - One Row per Item"
 * (WooCommerce's own export has no addresses): one row per item, the order's columns on every row.
 * `item_subtotal` is the line before discounts and `item_total` after, so the unit price is item_subtotal
 * over the quantity and the discount per unit their difference over the quantity. The recipient is
 * `shipping_*`; the export has no shipping phone, so the phone is a `shipping_phone` column when one was
 * added to the export, else the buyer's `billing_phone`, the only phone the order has.
 */
import type { Profile } from '../profile.js';

export const WOOCOMMERCE_PROFILE: Profile = {
  name: 'woocommerce',
  label: 'WooCommerce order export (Customer/Order/Coupon Export, one row per item)',
  description: 'The Customer/Order/Coupon Export plugin\'s "Default - One Row per Item" CSV.',
  totals: 'computed',
  marketplace: 'woocommerce',
  identifiers: { orderId: { column: 'order_id' }, itemId: { column: 'item_id' }, sku: { column: 'item_sku' } },
  fields: {
    customerOrderId: { column: 'order_number' },
    marketplaceOrderId: { column: 'order_number' },
    orderDate: { column: 'date' },
    sourceOfSale: { constant: 'OtherMarketplace' },
    salesTax: { column: 'tax_total' },
    fullName: { join: ['shipping_first_name', 'shipping_last_name'] },
    email: { column: 'billing_email' },
    addressLine1: { column: 'shipping_address_1' },
    addressLine2: { column: 'shipping_address_2' },
    city: { column: 'shipping_city' },
    provinceOrState: { column: 'shipping_state' },
    postalOrZipCode: { column: 'shipping_postcode' },
    countryCode: { column: 'shipping_country' },
    phone: { first: ['shipping_phone', 'billing_phone'] },
    productId: { column: 'item_sku' },
    customerLineItemId: { column: 'item_id' },
    name: { column: 'item_name' },
    quantity: { column: 'item_quantity' },
    unitPrice: { column: 'item_subtotal', perUnit: true },
    discount: { column: 'item_subtotal', minus: 'item_total', perUnit: true },
  },
  ignore: [
    'order_id', 'status', 'shipping_total', 'shipping_tax_total', 'fee_total', 'fee_tax_total', 'discount_total', 'order_total', 'refunded_total',
    'order_currency', 'payment_method', 'shipping_method', 'customer_id', 'billing_first_name', 'billing_last_name', 'billing_company',
    'billing_address_1', 'billing_address_2', 'billing_postcode', 'billing_city', 'billing_state', 'billing_country', 'shipping_company',
    'customer_note', 'item_product_id', 'item_price', 'item_subtotal_tax', 'item_total_tax', 'item_refunded', 'item_refunded_qty', 'item_meta',
    'shipping_items', 'fee_items', 'tax_items', 'coupon_items', 'order_notes', 'download_permissions_granted',
  ],
};
