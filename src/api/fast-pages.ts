/**
 * A fast path for reading the big answers (tracking pages, packages, list orders): the same rules
 * as the zod envelopes in responses.ts (built on the contract's lenient read schemas), written out
 * by hand because schema parsing was a large share of reconcile's CPU per page. It only ever says
 * "valid, here is the value" or "not sure" (null): every rejection, and every message naming what
 * is wrong, still comes from the zod schemas. test/api/fast-pages.test.ts checks that the two agree.
 *
 * The value is the parsed JSON itself, adjusted in place where the schema would change it (a
 * missing trackingEvents becomes []): loose objects keep their unknown keys either way.
 */
import type { OrderRead, Pagination, PackageRecord } from '../contract/schemas.js';

type Json = Record<string, unknown>;

export interface FastPage<T> {
  data: T[];
  pagination?: Pagination;
  requestId?: string;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** z.string().optional() on a key: absent, or a string. */
function optString(o: Json, key: string): boolean {
  const v = o[key];
  return v === undefined || typeof v === 'string';
}

/** z.number().optional(): absent, or a finite number (JSON has no other). */
function optNumber(o: Json, key: string): boolean {
  const v = o[key];
  return v === undefined || typeof v === 'number';
}

function nullableOptString(o: Json, key: string): boolean {
  const v = o[key];
  return v === undefined || v === null || typeof v === 'string';
}

const TRACKING_STRINGS = ['trackingNumber', 'trackingUrl', 'shippingCarrier', 'serviceLevel', 'originFc', 'shipDate', 'estimatedDeliveryDate', 'lastUpdated'];

function isPackageRecord(p: unknown): boolean {
  if (!isObject(p)) return false;
  if (typeof p.packageId !== 'string' || typeof p.customerOrderId !== 'string') return false;
  if (!optString(p, 'lastUpdated') || !optString(p, 'dateReplaced') || !optString(p, 'replacedByPackageId')) return false;
  const contents = p.packageContents;
  if (!Array.isArray(contents)) return false;
  for (const c of contents) {
    if (!isObject(c) || typeof c.productId !== 'string' || typeof c.quantity !== 'number' || typeof c.customerLineItemId !== 'string') return false;
    if (!optString(c, 'sku') || !optString(c, 'upc') || !optString(c, 'lineItemProductId')) return false;
  }
  const t = p.trackingDetail;
  if (!isObject(t)) return false;
  for (const key of TRACKING_STRINGS) if (!optString(t, key)) return false;
  const events = t.trackingEvents;
  if (events !== undefined) {
    if (!Array.isArray(events)) return false;
    for (const e of events) if (!isObject(e) || typeof e.eventType !== 'string' || typeof e.eventTimestamp !== 'string') return false;
  }
  return true;
}

function isOrderRead(o: unknown): boolean {
  if (!isObject(o) || typeof o.customerOrderId !== 'string') return false;
  if (!optString(o, 'orderDate') || !optString(o, 'sourceOfSale') || !optString(o, 'disposition')) return false;
  for (const key of ['subTotal', 'salesTax', 'discountTotal', 'grandTotal']) if (!optNumber(o, key)) return false;
  const region = o.orderRegionInfo;
  if (region !== undefined) {
    if (!isObject(region)) return false;
    for (const key of ['city', 'state', 'country', 'portalCode']) if (!nullableOptString(region, key)) return false;
  }
  const lines = o.lineItems;
  if (!Array.isArray(lines)) return false;
  for (const l of lines) {
    if (!isObject(l) || typeof l.productId !== 'string' || typeof l.customerLineItemId !== 'string' || typeof l.quantity !== 'number') return false;
    if (!optString(l, 'name') || !optString(l, 'disposition') || !optString(l, 'status') || !optNumber(l, 'unitPrice') || !optNumber(l, 'discount')) return false;
  }
  return true;
}

/** orderReadSchema's answer for one order (the echo of a created order), or null when the schema must decide. */
export function fastOrderRead(value: unknown): OrderRead | null {
  return isOrderRead(value) ? (value as OrderRead) : null;
}

/** The envelope's pagination (nullish: absent) and requestId, or null when either is off. */
function readEnvelope(body: Json): { pagination?: Pagination; requestId?: string } | null {
  const out: { pagination?: Pagination; requestId?: string } = {};
  const pagination = body.pagination;
  if (pagination !== undefined && pagination !== null) {
    if (!isObject(pagination) || typeof pagination.page !== 'number' || typeof pagination.totalPages !== 'number') return null;
    out.pagination = pagination as Pagination;
  }
  if (!optString(body, 'requestId')) return null;
  if (body.requestId !== undefined) out.requestId = body.requestId as string;
  return out;
}

/** packagesPageSchema's answer for `json`, or null when the schema must decide. */
export function fastPackagesPage(json: unknown): FastPage<PackageRecord> | null {
  if (!isObject(json) || !Array.isArray(json.data)) return null;
  const envelope = readEnvelope(json);
  if (!envelope) return null;
  const data = json.data as Json[];
  for (const p of data) if (!isPackageRecord(p)) return null;
  // Only now that every record passed: the schema's default for a missing trackingEvents.
  for (const p of data) {
    const t = p.trackingDetail as Json;
    if (t.trackingEvents === undefined) t.trackingEvents = [];
  }
  return { data: data as unknown as PackageRecord[], ...envelope };
}

/** ordersPageSchema's answer for `json` (the orderDetails of each item), or null when the schema must decide. */
export function fastOrdersPage(json: unknown): FastPage<OrderRead> | null {
  if (!isObject(json) || !Array.isArray(json.data)) return null;
  const envelope = readEnvelope(json);
  if (!envelope) return null;
  const items = json.data as unknown[];
  const data: OrderRead[] = new Array<OrderRead>(items.length);
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (!isObject(item) || !isOrderRead(item.orderDetails)) return null;
    data[i] = item.orderDetails as OrderRead;
  }
  return { data, ...envelope };
}
