/**
 * Query strings of the read endpoints (api-spec.md 4.2, 4.4; PRODUCT.md section 6 for inventory).
 * Pure: parameters are passed through as given, the server judges their limits (400).
 */
import type { InventoryQuery, ListOrdersQuery, TrackingQuery } from './types.js';

export function buildListOrdersQuery(query: ListOrdersQuery = {}): URLSearchParams {
  const params = new URLSearchParams();
  setNumber(params, 'lastDays', query.lastDays);
  // Repeatable: ?orderDisposition=api&orderDisposition=replacement
  for (const value of query.orderDisposition ?? []) params.append('orderDisposition', value);
  for (const value of query.orderLineItemDisposition ?? []) params.append('orderLineItemDisposition', value);
  return params;
}

export function buildTrackingQuery(query: TrackingQuery): URLSearchParams {
  const params = new URLSearchParams();
  if ('hours' in query) {
    setNumber(params, 'hours', query.hours);
  } else {
    if (query.searchBy !== undefined) params.set('searchBy', query.searchBy);
    params.set('startDate', query.startDate);
    params.set('endDate', query.endDate);
  }
  setNumber(params, 'pageNumber', query.pageNumber);
  setNumber(params, 'itemsPerPage', query.itemsPerPage);
  return params;
}

export function buildInventoryQuery(query: InventoryQuery = {}): URLSearchParams {
  const params = new URLSearchParams();
  setNumber(params, 'pageNumber', query.pageNumber);
  setNumber(params, 'itemsPerPage', query.itemsPerPage);
  if (query.productId !== undefined) params.set('productId', query.productId);
  return params;
}

/** /api/v0/orders/<id>: the id is the seller's own text and may hold '/', '#', '?' or spaces. */
export function orderPath(customerOrderId: string, suffix = ''): string {
  // "." and ".." survive encodeURIComponent but are dot-segments a server or proxy may resolve away.
  const encoded = customerOrderId === '.' || customerOrderId === '..' ? customerOrderId.replaceAll('.', '%2E') : encodeURIComponent(customerOrderId);
  return `/api/v0/orders/${encoded}${suffix}`;
}

function setNumber(params: URLSearchParams, name: string, value: number | undefined): void {
  if (value !== undefined) params.set(name, String(value));
}
