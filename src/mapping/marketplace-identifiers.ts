/**
 * The marketplaces whose orders can be confirmed back in their own upload format, and which identifiers
 * of an order line each one needs (the names a profile's `identifiers` use).
 */
export const MARKETPLACES = ['amazon', 'ebay', 'shopify', 'woocommerce', 'etsy'] as const;
export type Marketplace = (typeof MARKETPLACES)[number];

export function isMarketplace(value: string): value is Marketplace {
  return (MARKETPLACES as readonly string[]).includes(value);
}

/**
 * The identifiers a profile keeps per line (never sent to the API), by the name the confirmation formats
 * read them under: orderId (every marketplace), orderItemId (Amazon), itemId and transactionId (eBay;
 * Etsy's transactionId), lineItemId and sku (Shopify), itemId (WooCommerce).
 */
export const IDENTIFIER_NAMES = ['orderId', 'orderItemId', 'itemId', 'transactionId', 'lineItemId', 'sku'] as const;
export type IdentifierName = (typeof IDENTIFIER_NAMES)[number];
export type LineIdentifiers = Partial<Record<IdentifierName, string>>;
