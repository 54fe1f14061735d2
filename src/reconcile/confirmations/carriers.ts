/**
 * The fulfillment API's carrier names (packages' shippingCarrier, whose values api-spec.md leaves open)
 * mapped to what each marketplace's upload accepts. One table, so a carrier is added once for every
 * marketplace (docs/confirmations.md shows it). A carrier not in it is never dropped: each marketplace
 * gets its own "other" form (Amazon: carrier-code Other with the name in carrier-name; the others take
 * the name as it is, which their uploads accept as a carrier they do not know).
 */
import type { Marketplace } from '../../mapping/marketplace-identifiers.js';

/** Per marketplace, the code or name its upload knows the carrier by. */
export type CarrierCodes = Record<Marketplace, string>;

/**
 * Keys are the API's names compared without case, spaces, `-` and `_`. Amazon: its carrier-code list
 * (Seller Central help, Shipping Confirmation template). eBay: the carrier names eBay lists for
 * ShippingCarrierUsed. Shopify: the tracking company names Shopify lists (exact case). WooCommerce: the
 * provider names of the Advanced Shipment Tracking plugin's list.
 */
export const CARRIER_TABLE: ReadonlyMap<string, CarrierCodes> = new Map([
  ['ups', { amazon: 'UPS', ebay: 'UPS', shopify: 'UPS', woocommerce: 'UPS', etsy: 'UPS' }],
  ['upsmailinnovations', { amazon: 'UPS Mail Innovations', ebay: 'UPS-MI', shopify: 'UPS', woocommerce: 'UPS Mail Innovations', etsy: 'UPS Mail Innovations' }],
  ['usps', { amazon: 'USPS', ebay: 'USPS', shopify: 'USPS', woocommerce: 'USPS', etsy: 'USPS' }],
  ['fedex', { amazon: 'FedEx', ebay: 'FedEx', shopify: 'FedEx', woocommerce: 'FedEx', etsy: 'FedEx' }],
  ['fedexsmartpost', { amazon: 'FedEx SmartPost', ebay: 'FedEx', shopify: 'FedEx', woocommerce: 'FedEx', etsy: 'FedEx' }],
  ['dhl', { amazon: 'DHL', ebay: 'DHL', shopify: 'DHL Express', woocommerce: 'DHL', etsy: 'DHL' }],
  ['dhlexpress', { amazon: 'DHL', ebay: 'DHL', shopify: 'DHL Express', woocommerce: 'DHL Express', etsy: 'DHL' }],
  ['dhlecommerce', { amazon: 'DHL eCommerce', ebay: 'DHLGlobalMail', shopify: 'DHL eCommerce', woocommerce: 'DHL eCommerce', etsy: 'DHL eCommerce' }],
  ['ontrac', { amazon: 'OnTrac', ebay: 'OnTrac', shopify: 'OnTrac', woocommerce: 'OnTrac', etsy: 'OnTrac' }],
  ['lasership', { amazon: 'Lasership', ebay: 'LaserShip', shopify: 'LaserShip', woocommerce: 'LaserShip', etsy: 'LaserShip' }],
  ['canadapost', { amazon: 'Canada Post', ebay: 'CanadaPost', shopify: 'Canada Post', woocommerce: 'Canada Post', etsy: 'Canada Post' }],
  ['royalmail', { amazon: 'Royal Mail', ebay: 'RoyalMail', shopify: 'Royal Mail', woocommerce: 'Royal Mail', etsy: 'Royal Mail' }],
  ['parcelforce', { amazon: 'Parcelforce', ebay: 'Parcelforce', shopify: 'Parcelforce', woocommerce: 'Parcelforce', etsy: 'Parcelforce' }],
  ['gls', { amazon: 'GLS', ebay: 'GLS', shopify: 'GLS', woocommerce: 'GLS', etsy: 'GLS' }],
  ['tnt', { amazon: 'TNT', ebay: 'TNT', shopify: 'TNT', woocommerce: 'TNT', etsy: 'TNT' }],
  ['aramex', { amazon: 'Aramex', ebay: 'Aramex', shopify: 'Aramex', woocommerce: 'Aramex', etsy: 'Aramex' }],
]);

/** Amazon's carrier-code for a carrier not on its list. */
export const AMAZON_OTHER_CARRIER = 'Other';

/** How the carrier is written for one marketplace; `isKnown` false is the marketplace's "other" form. */
export interface CarrierForm {
  code: string;
  /** The API's name, for a form that needs it beside the code (Amazon's carrier-name with Other). */
  name: string;
  isKnown: boolean;
}

export function carrierKey(name: string): string {
  return name.toLowerCase().replace(/[\s_-]+/g, '');
}

/** Forms already worked out, per marketplace and API name: a run has few carriers and many packages. */
const FORMS = new Map<string, CarrierForm>();
/** Past this many names the API is inventing them: stop remembering rather than grow. */
const MAX_FORMS = 1000;

export function carrierFor(marketplace: Marketplace, apiCarrier: string | null): CarrierForm {
  const key = `${marketplace}\u0000${apiCarrier ?? ''}`;
  const known = FORMS.get(key);
  if (known) return known;
  const form = formOf(marketplace, apiCarrier);
  if (FORMS.size < MAX_FORMS) FORMS.set(key, form);
  return form;
}

function formOf(marketplace: Marketplace, apiCarrier: string | null): CarrierForm {
  const name = (apiCarrier ?? '').trim();
  const known = name === '' ? undefined : CARRIER_TABLE.get(carrierKey(name));
  if (known) return { code: known[marketplace], name, isKnown: true };
  const other = marketplace === 'amazon' ? AMAZON_OTHER_CARRIER : name;
  return { code: other, name, isKnown: false };
}
