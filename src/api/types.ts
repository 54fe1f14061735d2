/**
 * The API client's interface, fixed here so the submission engine, reconcile and the web app can be
 * written against it (and against fakes in unit tests) while the client itself is built.
 */
import type { CreateOrderPayload, InventoryItem, OrderRead, PackageRecord, Pagination } from '../contract/schemas.js';
import type { SearchBy } from '../contract/enums.js';

export type AuthFlow = 'oauth' | 'getToken';

export interface ApiClientOptions {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** Which token endpoint to use (FULFILLMENT_AUTH); default oauth. */
  auth?: AuthFlow;
  /** Per-request timeout in ms (headers and body); default 30,000. */
  timeoutMs?: number;
  /** Refresh the token this long before it expires; default 60,000 ms. */
  refreshMarginMs?: number;
  /** Milliseconds since the epoch; injected for tests. Default Date.now. */
  now?: () => number;
  /** Max sockets to the API; default 16. */
  connections?: number;
  logger?: import('pino').Logger;
}

export interface CreateOrderResult {
  status: number;
  requestId?: string;
  order?: OrderRead;
}

export interface PageResult<T> {
  data: T[];
  pagination?: Pagination;
  requestId?: string;
}

/**
 * A 2xx answer read but not yet parsed. `parse()` gives the page, or throws the HttpError that says
 * what is wrong with the body. Reconcile asks for its next page before it parses the one in hand.
 */
export interface UnparsedPage<T> {
  parse(): PageResult<T>;
}

export type TrackingQuery =
  | { hours: number; pageNumber?: number; itemsPerPage?: number }
  | { searchBy?: SearchBy; startDate: string; endDate: string; pageNumber?: number; itemsPerPage?: number };

export interface ListOrdersQuery {
  lastDays?: number;
  orderDisposition?: readonly string[];
  orderLineItemDisposition?: readonly string[];
}

export interface InventoryQuery {
  pageNumber?: number;
  itemsPerPage?: number;
  productId?: string;
}

/**
 * One call = one HTTP exchange (plus at most one token refresh on 401). Retrying is the caller's
 * decision (see retry.ts): a create whose reply was lost must be looked up, not re-sent.
 * Non-2xx answers throw HttpError; transport failures throw TransportError.
 */
export interface ApiClient {
  /** `json`: the payload's JSON.stringify text when the caller has it already (sent as it is). */
  createOrder(payload: CreateOrderPayload, options?: { signal?: AbortSignal; json?: string }): Promise<CreateOrderResult>;
  /** null when the API answers 404. */
  getOrder(customerOrderId: string, options?: { signal?: AbortSignal }): Promise<{ order: OrderRead; requestId?: string } | null>;
  listOrders(query?: ListOrdersQuery, options?: { signal?: AbortSignal }): Promise<PageResult<OrderRead>>;
  /**
   * listOrders without holding the answer: each order goes to `onOrder` as its part of the answer
   * arrives (read and checked one by one), so a list of a million orders costs the memory of one.
   * Resolves with how many there were once the answer is complete.
   */
  eachListedOrder(query: ListOrdersQuery, onOrder: (order: OrderRead) => void, options?: { signal?: AbortSignal }): Promise<{ orders: number }>;
  getPackages(customerOrderId: string, options?: { signal?: AbortSignal }): Promise<PageResult<PackageRecord>>;
  getTrackingUpdates(query: TrackingQuery, options?: { signal?: AbortSignal }): Promise<PageResult<PackageRecord>>;
  /** getTrackingUpdates in two steps: the exchange now (errors as there), the parse when the caller is ready. */
  fetchTrackingUpdates(query: TrackingQuery, options?: { signal?: AbortSignal }): Promise<UnparsedPage<PackageRecord>>;
  listInventory(query?: InventoryQuery, options?: { signal?: AbortSignal }): Promise<PageResult<InventoryItem>>;
  /**
   * The API's clock now: the Date header of its latest answer, moved on by the local time since.
   * Before any answer, a token exchange is made to hear one (its token is kept). null when the API
   * sends no readable Date header (a caller then goes by its own clock).
   */
  serverNow(options?: { signal?: AbortSignal }): Promise<Date | null>;
  close(): Promise<void>;
}
