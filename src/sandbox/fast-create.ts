/**
 * A fast path for the common case, a valid order: the same rules as the contract's
 * createOrderSchema (same constants, same trimming, same stripped unknown keys), written out by
 * hand because schema parsing was the largest share of a creation's cost. It only ever says
 * "valid, here is the parsed payload" or "not sure": every rejection, and every error message,
 * still comes from the contract schema. test/sandbox/fast-create.test.ts proves the two agree,
 * case by case, on valid payloads and on a mutation of every rule.
 */
import { CARRIER_IDS, COUNTRY_CODES } from '../contract/enums.js';
import { parseApiInstant } from '../contract/instant.js';
import { LIMITS } from '../contract/limits.js';
import { countDigits, EMAIL_PATTERN, US_ZIP_PATTERN, type CreateOrderPayload } from '../contract/schemas.js';

type Json = Record<string, unknown>;

/** Thrown inside the fast path to give up; caught at its top. Not an error the caller sees. */
const GIVE_UP = Symbol('give up');
const COUNTRIES = new Set(COUNTRY_CODES);
const CARRIERS = new Set<string>(CARRIER_IDS);

function obj(value: unknown): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw GIVE_UP;
  return value as Json;
}

/** z.string().trim().min(1).max(max) */
function nonBlank(value: unknown, max: number): string {
  if (typeof value !== 'string') throw GIVE_UP;
  const trimmed = value.trim();
  if (trimmed.length === 0 || trimmed.length > max) throw GIVE_UP;
  return trimmed;
}

function str(value: unknown, max = Number.POSITIVE_INFINITY): string {
  if (typeof value !== 'string' || value.length > max) throw GIVE_UP;
  return value;
}

/** z.number(): finite numbers only. */
function num(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw GIVE_UP;
  return value;
}

function isoDateTime(value: unknown): string {
  if (typeof value !== 'string' || parseApiInstant(value) === null) throw GIVE_UP;
  return value;
}

/** Sets `key` only when the input has it, as zod does for optional fields. */
function optional<T>(out: Json, key: string, source: Json, read: (v: unknown) => T): void {
  const value = source[key];
  if (value !== undefined) out[key] = read(value);
}

function parseAddress(input: unknown): Json {
  const a = obj(input);
  const out: Json = { fullName: nonBlank(a.fullName, LIMITS.fullName) };
  optional(out, 'email', a, (v) => {
    const email = str(v, LIMITS.email);
    if (!EMAIL_PATTERN.test(email)) throw GIVE_UP;
    return email;
  });
  const lines = a.addressLines;
  if (!Array.isArray(lines) || lines.length < LIMITS.addressLinesMin || lines.length > LIMITS.addressLinesMax) throw GIVE_UP;
  out.addressLines = lines.map((l) => nonBlank(l, LIMITS.addressLineMax));
  out.city = nonBlank(a.city, LIMITS.city);
  out.provinceOrState = nonBlank(a.provinceOrState, Number.POSITIVE_INFINITY);
  out.postalOrZipCode = nonBlank(a.postalOrZipCode, Number.POSITIVE_INFINITY);
  const country = str(a.countryCode);
  if (!COUNTRIES.has(country)) throw GIVE_UP;
  out.countryCode = country;
  const phone = str(a.phone, LIMITS.phoneMaxLength);
  if (countDigits(phone) < LIMITS.phoneMinDigits) throw GIVE_UP;
  out.phone = phone;
  if (country === 'US' && !US_ZIP_PATTERN.test(out.postalOrZipCode as string)) throw GIVE_UP;
  return out;
}

function parseLine(input: unknown): Json {
  const l = obj(input);
  const out: Json = {
    productId: nonBlank(l.productId, LIMITS.productId),
    customerLineItemId: nonBlank(l.customerLineItemId, LIMITS.customerLineItemId),
    name: nonBlank(l.name, LIMITS.lineItemName),
  };
  const quantity = num(l.quantity);
  if (!Number.isSafeInteger(quantity) || quantity <= 0) throw GIVE_UP;
  out.quantity = quantity;
  const unitPrice = num(l.unitPrice);
  if (unitPrice < 0) throw GIVE_UP;
  out.unitPrice = unitPrice;
  optional(out, 'discount', l, num);
  return out;
}

function parseShipping(input: unknown): Json {
  const s = obj(input);
  const carrierId = str(s.carrierId);
  if (!CARRIERS.has(carrierId)) throw GIVE_UP;
  const out: Json = { carrierId };
  for (const key of ['shippingAccountNumber', 'shipLabelNameDisplay', 'shippingContactName', 'shippingContactPhoneNumber']) {
    optional(out, key, s, (v) => str(v));
  }
  return out;
}

/** The payload createOrderSchema(sourcesOfSale) would give for `body`, or null to let the schema decide. */
export function fastParseCreateOrder(body: unknown, sourcesOfSale: readonly string[]): CreateOrderPayload | null {
  try {
    const root = obj(body);
    const customer = obj(root.customerDetails);
    const d = obj(root.orderDetails);
    const details: Json = { customerOrderId: nonBlank(d.customerOrderId, LIMITS.customerOrderId) };
    optional(details, 'marketplaceOrderId', d, (v) => str(v, LIMITS.marketplaceOrderId));
    details.orderDate = isoDateTime(d.orderDate);
    const source = str(d.sourceOfSale, LIMITS.sourceOfSale);
    if (!sourcesOfSale.includes(source)) throw GIVE_UP;
    details.sourceOfSale = source;
    const lines = d.lineItems;
    if (!Array.isArray(lines) || lines.length < 1) throw GIVE_UP;
    details.lineItems = lines.map(parseLine);
    optional(details, 'discountTotal', d, num);
    const subTotal = num(d.subTotal);
    if (subTotal < 0) throw GIVE_UP;
    details.subTotal = subTotal;
    details.salesTax = num(d.salesTax);
    details.grandTotal = num(d.grandTotal);
    optional(details, 'requestedDeliveryDate', d, isoDateTime);
    const payload: Json = { customerDetails: { shippingAddress: parseAddress(customer.shippingAddress) }, orderDetails: details };
    optional(payload, 'orderShippingDetails', root, parseShipping);
    return payload as unknown as CreateOrderPayload;
  } catch (error) {
    if (error === GIVE_UP) return null;
    throw error;
  }
}
