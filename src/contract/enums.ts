/**
 * Enumerations of the fulfillment API (api-spec.md sections 2.3 to 2.5, 3 and 4.2, with the
 * decisions of PRODUCT.md section 6). The client, the sheet checker and the sandbox all read
 * these, so the tool and its imitation cannot drift apart.
 */

export const CARRIER_IDS = ['CarrierXGround', 'CarrierX2Day', 'CarrierXOvernight'] as const;
export type CarrierId = (typeof CARRIER_IDS)[number];

/** The spec omits the 35 marketplace-named values; the allowed list is configuration. */
export const DEFAULT_SOURCES_OF_SALE: readonly string[] = ['OtherMarketplace'];

export const ORDER_DISPOSITIONS = ['api', 'marketplace', 'replacement', 'reshipment', 'other'] as const;
export type OrderDisposition = (typeof ORDER_DISPOSITIONS)[number];

export const LINE_ITEM_DISPOSITIONS = [
  'api_order',
  'wrong_item_shipped',
  'undeliverable',
  'listing_error',
  'product_doesnt_meet_standards_expectations',
  'not_working_troubleshooting_support',
  'accidental_order_or_buyers_remorse',
  'out_of_stock',
  'buyer_cancelled',
  'price_match',
  'could_not_ship',
  'duplicate_payment',
  'fraud',
  'feedback_revision',
  'parts_service_center',
  'forgot_coupon_code',
  'store_credit_adjustment',
  'damaged_shipment',
  'shipping_issue',
  'lost_pre_delivery_in_transit',
  'lost_post_delivery_driver_follow_up',
  'lost_label',
  'wrong_quantity_shipped',
  'accidental_shipment',
  'address_correction',
  'confirmed_misdelivery',
  'out_of_stock_in_location',
  'needs_split',
  'charge_back_discount',
  'external_refund',
  'service_delivery_fulfillment_issue',
  'other',
] as const;
export type LineItemDisposition = (typeof LINE_ITEM_DISPOSITIONS)[number];

/** Line item statuses named by the spec; others may appear and must be tolerated by readers. */
export const LINE_ITEM_STATUSES = ['Waiting to Clear', 'Shipped', 'Order Canceled'] as const;
export type LineItemStatus = (typeof LINE_ITEM_STATUSES)[number];

/** Tracking event types seen in the spec; the complete list is not shown, so readers accept any string. */
export const TRACKING_EVENT_TYPES = ['label_generated', 'tendered_to_carrier', 'delivered'] as const;

/** PRODUCT.md section 6: searchBy values, `updated` being the default. */
export const SEARCH_BY = ['created', 'updated', 'replaced'] as const;
export type SearchBy = (typeof SEARCH_BY)[number];
export const DEFAULT_SEARCH_BY: SearchBy = 'updated';

/** ISO 3166-1 alpha-2 codes (officially assigned), for countryCode. */
export const COUNTRY_CODES: readonly string[] = (
  'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ ' +
  'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR ' +
  'GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO ' +
  'JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR ' +
  'MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO ' +
  'RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV ' +
  'TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW'
).split(' ');
