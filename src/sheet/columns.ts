/**
 * The order sheet's columns (PRODUCT.md section 2): one definition each, read by header matching,
 * the checker, the template and the README, so they cannot disagree.
 */
import { LIMITS } from '../contract/limits.js';

export type Level = 'order' | 'line';
/** How a cell is read: text (trimmed), money (exact cents), integer, date/time, or one of a list. */
export type Kind = 'text' | 'money' | 'integer' | 'date' | 'enum';

export interface ColumnDef {
  field: Field;
  level: Level;
  kind: Kind;
  /** The column must be present in the sheet (a missing one is an error for the whole file). */
  requiredColumn: boolean;
  /** Every row (for line fields) or order (for order fields) needs a value. */
  requiredValue: boolean;
  maxLength?: number;
  /** Other header spellings accepted, compared after normalizeHeader. */
  aliases: readonly string[];
  /** For the template's Instructions sheet: what goes in the cell. */
  description: string;
  example: string;
  /** Format the template column as text so Excel keeps leading zeros and long digit strings. */
  isTextFormatted?: boolean;
}

export const FIELDS = [
  'customerOrderId',
  'marketplaceOrderId',
  'orderDate',
  'sourceOfSale',
  'requestedDeliveryDate',
  'subTotal',
  'salesTax',
  'discountTotal',
  'grandTotal',
  'fullName',
  'email',
  'addressLine1',
  'addressLine2',
  'addressLine3',
  'city',
  'provinceOrState',
  'postalOrZipCode',
  'countryCode',
  'phone',
  'carrierId',
  'shippingAccountNumber',
  'shipLabelNameDisplay',
  'shippingContactName',
  'shippingContactPhoneNumber',
  'productId',
  'customerLineItemId',
  'name',
  'quantity',
  'unitPrice',
  'discount',
] as const;
export type Field = (typeof FIELDS)[number];

const col = (def: Omit<ColumnDef, 'aliases' | 'requiredColumn' | 'requiredValue'> & Partial<Pick<ColumnDef, 'aliases' | 'requiredColumn' | 'requiredValue'>>): ColumnDef => ({
  aliases: [],
  requiredColumn: false,
  requiredValue: false,
  ...def,
});

export const COLUMNS: readonly ColumnDef[] = [
  col({ field: 'customerOrderId', level: 'order', kind: 'text', requiredColumn: true, requiredValue: true, maxLength: LIMITS.customerOrderId, isTextFormatted: true,
    aliases: ['orderid', 'ordernumber', 'orderno', 'customerorder', 'customerordernumber'],
    description: 'Your unique order ID. Every row of an order repeats it; rows with the same ID form one order.', example: 'SO-10001' }),
  col({ field: 'marketplaceOrderId', level: 'order', kind: 'text', maxLength: LIMITS.marketplaceOrderId, isTextFormatted: true,
    aliases: ['marketplaceorder', 'marketplaceordernumber', 'channelorderid'],
    description: 'The order number in the marketplace the order came from (optional).', example: '113-4567890-1234567' }),
  col({ field: 'orderDate', level: 'order', kind: 'date', requiredColumn: true, requiredValue: true,
    aliases: ['date', 'orderedat', 'orderdatetime', 'purchasedate'],
    description: 'When the order was placed: less than 30 days ago and not in the future. A date, or date and time (e.g. 2026-11-20 14:30); without an offset it is read in --timezone (default UTC).', example: '2026-11-20 14:30' }),
  col({ field: 'sourceOfSale', level: 'order', kind: 'enum', requiredColumn: true, requiredValue: true, maxLength: LIMITS.sourceOfSale,
    aliases: ['source', 'salessource', 'marketplace', 'channel', 'saleschannel'],
    description: 'Where the order was sold: one of the configured values (OtherMarketplace by default). Case sensitive.', example: 'OtherMarketplace' }),
  col({ field: 'requestedDeliveryDate', level: 'order', kind: 'date',
    aliases: ['deliverydate', 'requesteddelivery', 'deliverby'],
    description: 'Preferred delivery date and time requested by the marketplace (optional).', example: '2026-11-28' }),
  col({ field: 'subTotal', level: 'order', kind: 'money',
    aliases: ['subtotalamount', 'ordersubtotal', 'merchandisetotal'],
    description: 'Sum of unitPrice x quantity over the order\'s lines, before discounts and tax. Leave blank to have it computed.', example: '59.98' }),
  col({ field: 'salesTax', level: 'order', kind: 'money', requiredColumn: true, requiredValue: true,
    aliases: ['tax', 'taxamount', 'totaltax', 'salestaxamount'],
    description: 'Sales tax for the whole order; 0 when there is none.', example: '4.95' }),
  col({ field: 'discountTotal', level: 'order', kind: 'money',
    aliases: ['totaldiscount', 'discounttotalamount', 'orderdiscount'],
    description: 'Sum of discount x quantity over the order\'s lines. Leave blank to have it computed.', example: '5.00' }),
  col({ field: 'grandTotal', level: 'order', kind: 'money',
    aliases: ['total', 'ordertotal', 'grandtotalamount', 'totalamount'],
    description: 'subTotal plus salesTax. Leave blank to have it computed.', example: '64.93' }),
  col({ field: 'fullName', level: 'order', kind: 'text', requiredColumn: true, requiredValue: true, maxLength: LIMITS.fullName,
    aliases: ['recipient', 'recipientname', 'shiptoname', 'customername', 'shipname'],
    description: 'Recipient\'s name, at most 100 characters.', example: 'Maria Lopez' }),
  col({ field: 'email', level: 'order', kind: 'text', maxLength: LIMITS.email,
    aliases: ['emailaddress', 'customeremail'],
    description: 'Recipient\'s email for delivery issues (optional).', example: 'maria@example.com' }),
  col({ field: 'addressLine1', level: 'order', kind: 'text', requiredColumn: true, requiredValue: true, maxLength: LIMITS.addressLineMax,
    aliases: ['address', 'address1', 'addressline', 'street', 'street1', 'shipaddress1', 'shiptoaddress1'],
    description: 'First line of the shipping address, at most 255 characters.', example: '123 Main St' }),
  col({ field: 'addressLine2', level: 'order', kind: 'text', maxLength: LIMITS.addressLineMax,
    aliases: ['address2', 'street2', 'shipaddress2', 'shiptoaddress2'],
    description: 'Second address line (optional).', example: 'Apt 4B' }),
  col({ field: 'addressLine3', level: 'order', kind: 'text', maxLength: LIMITS.addressLineMax,
    aliases: ['address3', 'street3', 'shipaddress3', 'shiptoaddress3'],
    description: 'Third address line (optional).', example: '' }),
  col({ field: 'city', level: 'order', kind: 'text', requiredColumn: true, requiredValue: true, maxLength: LIMITS.city,
    aliases: ['town', 'shipcity', 'shiptocity'],
    description: 'City, at most 50 characters.', example: 'Springfield' }),
  col({ field: 'provinceOrState', level: 'order', kind: 'text', requiredColumn: true, requiredValue: true,
    aliases: ['state', 'province', 'region', 'stateorprovince', 'shipstate', 'shiptostate'],
    description: 'State or province, full name or abbreviation.', example: 'IL' }),
  col({ field: 'postalOrZipCode', level: 'order', kind: 'text', requiredColumn: true, requiredValue: true, isTextFormatted: true,
    aliases: ['zip', 'zipcode', 'postalcode', 'postcode', 'postal', 'shipzip', 'shiptozip', 'shippostalcode'],
    description: 'Postal code; for US addresses 5 digits or ZIP+4 (12345-6789). Format the column as text to keep leading zeros.', example: '02134' }),
  col({ field: 'countryCode', level: 'order', kind: 'enum', requiredColumn: true, requiredValue: true,
    aliases: ['country', 'countryiso', 'shipcountry', 'shiptocountry'],
    description: 'Two-letter ISO 3166-1 country code.', example: 'US' }),
  col({ field: 'phone', level: 'order', kind: 'text', requiredColumn: true, requiredValue: true, maxLength: LIMITS.phoneMaxLength, isTextFormatted: true,
    aliases: ['phonenumber', 'telephone', 'tel', 'shipphone', 'shiptophone', 'recipientphone'],
    description: 'Recipient\'s phone: at least 10 digits, at most 35 characters. Format the column as text.', example: '(217) 555-0134' }),
  col({ field: 'carrierId', level: 'order', kind: 'enum',
    aliases: ['carrier', 'shippingcarrier', 'shipmethod', 'shippingmethod'],
    description: 'Carrier and service (optional): CarrierXGround, CarrierX2Day or CarrierXOvernight. Case sensitive.', example: 'CarrierXGround' }),
  col({ field: 'shippingAccountNumber', level: 'order', kind: 'text', isTextFormatted: true,
    aliases: ['shippingaccount', 'carrieraccount', 'carrieraccountnumber'],
    description: 'Shipping account number of the source of sale (optional).', example: '' }),
  col({ field: 'shipLabelNameDisplay', level: 'order', kind: 'text',
    aliases: ['labelname', 'shiplabelname'],
    description: 'Name the brand wants on the shipping label (optional).', example: '' }),
  col({ field: 'shippingContactName', level: 'order', kind: 'text',
    aliases: ['shippercompany', 'shippername'],
    description: 'Shipper\'s company name (optional).', example: '' }),
  col({ field: 'shippingContactPhoneNumber', level: 'order', kind: 'text', isTextFormatted: true,
    aliases: ['shipperphone'],
    description: 'Shipper\'s phone number (optional).', example: '' }),
  col({ field: 'productId', level: 'line', kind: 'text', requiredColumn: true, requiredValue: true, maxLength: LIMITS.productId, isTextFormatted: true,
    aliases: ['product', 'productcode', 'itemid', 'serviceproductid'],
    description: 'The fulfillment network\'s product ID (from its inventory), at most 50 characters.', example: 'PRD-1001' }),
  col({ field: 'customerLineItemId', level: 'line', kind: 'text', requiredColumn: true, requiredValue: true, maxLength: LIMITS.customerLineItemId, isTextFormatted: true,
    aliases: ['lineitemid', 'lineid', 'line', 'linenumber', 'lineno', 'orderlineid'],
    description: 'Your ID for this line, unique within the order (1, 2, 3... is fine), at most 40 characters.', example: '1' }),
  col({ field: 'name', level: 'line', kind: 'text', requiredColumn: true, requiredValue: true, maxLength: LIMITS.lineItemName,
    aliases: ['itemname', 'productname', 'title', 'itemtitle', 'description', 'item'],
    description: 'Item name, at most 100 characters.', example: 'Ceramic mug, blue' }),
  col({ field: 'quantity', level: 'line', kind: 'integer', requiredColumn: true, requiredValue: true,
    aliases: ['qty', 'units', 'quantityordered', 'qtyordered'],
    description: 'How many, a whole number greater than 0.', example: '2' }),
  col({ field: 'unitPrice', level: 'line', kind: 'money', requiredColumn: true, requiredValue: true,
    aliases: ['price', 'itemprice', 'unitcost', 'priceperunit'],
    description: 'Sale price of one unit before discounts, 0 or more (e.g. 29.99; $1,234.50 is read too).', example: '29.99' }),
  col({ field: 'discount', level: 'line', kind: 'money',
    aliases: ['unitdiscount', 'discountperunit', 'itemdiscount'],
    description: 'Discount on one unit (optional).', example: '2.50' }),
];

/** Lowercase, without spaces, `_`, `-` and `.`: `Customer Order ID` and `customer_order_id` both become `customerorderid`. */
export function normalizeHeader(header: string): string {
  return header.replace(/[\s_\-.\u00a0\ufeff]+/g, '').toLowerCase();
}

export const COLUMN_BY_FIELD: ReadonlyMap<Field, ColumnDef> = new Map(COLUMNS.map((c) => [c.field, c]));

/** Normalized header or alias -> field. Built once; aliases never collide with another field's name. */
export const FIELD_BY_HEADER: ReadonlyMap<string, Field> = (() => {
  const map = new Map<string, Field>();
  for (const c of COLUMNS) {
    for (const name of [c.field, ...c.aliases]) {
      const key = normalizeHeader(name);
      const existing = map.get(key);
      if (existing && existing !== c.field) throw new Error(`header alias ${key} names both ${existing} and ${c.field}`);
      map.set(key, c.field);
    }
  }
  return map;
})();
