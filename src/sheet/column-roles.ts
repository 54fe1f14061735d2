/**
 * Who a column is about, read from its header's words: the recipient (`Shipping Name`, `ship-city`),
 * the shipper (`Shipper Phone`, `Sender Name`), the buyer (`Billing *`), or nobody in particular.
 * A guess of which field a column feeds keeps to its role: a recipient's column is never offered for
 * the shipper's fields (shippingContactName, shippingContactPhoneNumber) nor the reverse, and a buyer's
 * never for the recipient's.
 */
import type { Field } from './columns.js';

export type ColumnRole = 'recipient' | 'shipper' | 'buyer' | 'neutral';

const SHIPPER = ['shipper', 'sender', 'from', 'return', 'origin', 'warehouse', 'merchant', 'seller', 'vendor'];
const BUYER = ['billing', 'bill', 'buyer', 'payer', 'purchaser', 'invoice'];
const RECIPIENT = ['ship', 'shipping', 'shipto', 'recipient', 'delivery', 'deliver', 'consignee', 'addressee', 'to'];

/** `Shipping Address1` -> ['shipping', 'address', '1']; `ship-postal-code` -> ['ship', 'postal', 'code']; `lineItemName` -> ['line', 'item', 'name']. */
export function tokensOf(header: string): string[] {
  return header
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/([A-Za-z])(\d)/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9#]+/)
    .filter((t) => t !== '');
}

export function roleOf(tokens: readonly string[]): ColumnRole {
  if (tokens.some((t) => SHIPPER.includes(t))) return 'shipper';
  if (tokens.some((t) => BUYER.includes(t))) return 'buyer';
  if (tokens.some((t) => RECIPIENT.includes(t))) return 'recipient';
  return 'neutral';
}

/**
 * The role of a header written as one word (`shippername`, `SHIPTOCITY`, `buyer_name` is two): the role word
 * it starts with, the shipper's and buyer's before the recipient's (`shipper` starts with `ship`).
 */
export function roleOfHeader(header: string): ColumnRole {
  const tokens = tokensOf(header);
  if (tokens.length !== 1) return roleOf(tokens);
  const word = tokens[0]!;
  const startsWithOne = (words: readonly string[]) => words.some((w) => w.length >= 4 && word.startsWith(w));
  if (startsWithOne(SHIPPER)) return 'shipper';
  if (startsWithOne(BUYER)) return 'buyer';
  if (startsWithOne(RECIPIENT)) return 'recipient';
  return 'neutral';
}

/** Fields about the recipient: never from a shipper's or a buyer's column. */
export const RECIPIENT_FIELDS: ReadonlySet<Field> = new Set(['fullName', 'addressLine1', 'addressLine2', 'addressLine3', 'city', 'provinceOrState', 'postalOrZipCode', 'countryCode', 'phone']);
/** Fields about the shipper: only from a column that says so. */
export const SHIPPER_FIELDS: ReadonlySet<Field> = new Set(['shippingContactName', 'shippingContactPhoneNumber']);

/** Whether a column of this role may be guessed for this field. */
export function isRoleAllowed(field: Field, role: ColumnRole): boolean {
  if (SHIPPER_FIELDS.has(field)) return role === 'shipper';
  if (RECIPIENT_FIELDS.has(field)) return role === 'recipient' || role === 'neutral';
  return role !== 'shipper';
}

/**
 * Looser, for a typo's suggestion (`custmer order id`, `shiper phone`): a column may not feed the other
 * side's fields, but one whose words say nothing may feed any.
 */
export function isRoleCompatible(field: Field, role: ColumnRole): boolean {
  if (SHIPPER_FIELDS.has(field)) return role === 'shipper' || role === 'neutral';
  if (RECIPIENT_FIELDS.has(field)) return role === 'recipient' || role === 'neutral';
  return true;
}
