/**
 * The fulfillment API client: every endpoint of api-spec.md section 4 (with PRODUCT.md section 6),
 * over one keep-alive pool, with cached bearer tokens. One call is one exchange, plus at most one
 * token refresh on 401; retrying is the caller's business (retry.ts, breaker.ts).
 */
import { orderReadSchema, type CreateOrderPayload, type OrderRead, type PackageRecord } from '../contract/schemas.js';
import { describeStatus, findRequestId, parseJsonLenient } from './error-message.js';
import { UnusableAnswerError } from './errors.js';
import { buildInventoryQuery, buildListOrdersQuery, buildTrackingQuery, orderPath } from './queries.js';
import { JsonArrayItems, JsonShapeError } from './json-array-items.js';
import { describeSchemaProblems, inventoryPageSchema, listedOrderSchema, orderEnvelopeSchema, ordersPageSchema, packagesPageSchema } from './responses.js';
import { errorOf, isSuccess, openSecuredExchange, optional, parseSuccess, sendSecured, serverNowOf, tokenFor, type Call, type SecuredExchange } from './secured-exchange.js';
import { TOKEN_PATHS } from './token.js';
import type { ApiClient, ApiClientOptions, CreateOrderResult, ListOrdersQuery, PageResult, TrackingQuery, UnparsedPage } from './types.js';

export { CLIENT_DEFAULTS } from './secured-exchange.js';

export function createApiClient(options: ApiClientOptions): ApiClient {
  const exchange = openSecuredExchange(options);
  return {
    createOrder: (payload, callOptions) => createOrder(exchange, options, payload, callOptions),

    async getOrder(customerOrderId, callOptions) {
      const call: Call = { method: 'GET', path: orderPath(customerOrderId), ...optional('signal', callOptions?.signal) };
      const reply = await sendSecured(exchange, call);
      if (reply.status === 404) return null;
      const envelope = parseSuccess(exchange, call.method, reply, orderEnvelopeSchema);
      return { order: envelope.data.orderDetails, ...optional('requestId', envelope.requestId) };
    },

    async listOrders(query, callOptions) {
      const call: Call = {
        method: 'GET',
        path: '/api/v0/orders',
        query: buildListOrdersQuery(query),
        // Unpaged: every order in the window in one answer.
        isLargeAnswer: true,
        ...optional('signal', callOptions?.signal),
      };
      const page = parseSuccess(exchange, call.method, await sendSecured(exchange, call), ordersPageSchema);
      return pageOf(
        page.data.map((item) => item.orderDetails),
        page,
      );
    },

    eachListedOrder: (query, onOrder, callOptions) => streamListedOrders(exchange, query, onOrder, callOptions?.signal),

    async getPackages(customerOrderId, callOptions) {
      const call: Call = { method: 'GET', path: orderPath(customerOrderId, '/packages'), ...optional('signal', callOptions?.signal) };
      return (await fetchPackagesPage(exchange, call)).parse();
    },

    async getTrackingUpdates(query, callOptions) {
      return (await fetchPackagesPage(exchange, trackingCall(query, callOptions?.signal))).parse();
    },

    fetchTrackingUpdates: (query, callOptions) => fetchPackagesPage(exchange, trackingCall(query, callOptions?.signal)),

    async listInventory(query, callOptions) {
      const call: Call = { method: 'GET', path: '/api/v0/inventory/items', query: buildInventoryQuery(query), ...optional('signal', callOptions?.signal) };
      const page = parseSuccess(exchange, call.method, await sendSecured(exchange, call), inventoryPageSchema);
      return pageOf(page.data, page);
    },

    async serverNow(callOptions) {
      // Nothing heard yet: the token exchange is an answer too (and its token serves the calls that follow).
      if (!exchange.serverClock) await tokenFor(exchange, { method: 'POST', path: TOKEN_PATHS[exchange.flow], ...optional('signal', callOptions?.signal) });
      return serverNowOf(exchange);
    },

    close: () => exchange.transport.close(),
  };
}

async function createOrder(exchange: SecuredExchange, options: ApiClientOptions, payload: CreateOrderPayload, callOptions?: { signal?: AbortSignal; json?: string }): Promise<CreateOrderResult> {
  const call: Call = {
    method: 'POST',
    path: '/api/v0/orders',
    headers: { 'content-type': 'application/json' },
    body: callOptions?.json ?? JSON.stringify(payload),
    ...optional('signal', callOptions?.signal),
  };
  const reply = await sendSecured(exchange, call);
  if (!isSuccess(reply)) throw errorOf(exchange, call.method, reply);
  // The status is the fact: a 201 means stored. A body we cannot read must not turn an accepted
  // order into a failure (which a re-run would send again), so it is read leniently.
  const json = parseJsonLenient(reply.text)?.value;
  const echo = isRecord(json) && isRecord(json.data) ? json.data.orderDetails : undefined;
  const order = readEcho(echo);
  if (!order) options.logger?.warn({ status: reply.status, path: call.path }, 'order accepted but its echo could not be read');
  return {
    status: reply.status,
    ...optional('requestId', findRequestId(json, reply.headers['x-request-id'])),
    ...optional('order', order ?? undefined),
  };
}

/** The listed orders read one by one as the answer streams in, each checked against the contract. */
async function streamListedOrders(exchange: SecuredExchange, query: ListOrdersQuery, onOrder: (order: OrderRead) => void, signal: AbortSignal | undefined): Promise<{ orders: number }> {
  const call: Call = { method: 'GET', path: '/api/v0/orders', query: buildListOrdersQuery(query), ...optional('signal', signal) };
  const items = new JsonArrayItems('data', (item, index) => {
    const parsed = listedOrderSchema.safeParse(item);
    if (!parsed.success) throw unusable(`data[${index}] is not the expected shape: ${describeSchemaProblems(parsed.error)}`);
    onOrder(parsed.data.orderDetails);
  });
  const unusable = (what: string) => new UnusableAnswerError(`The API answered 200 ${describeStatus(200)} but ${what}`, { method: call.method, url: exchange.transport.urlOf(call.path, call.query), status: 200, body: '' });
  const reply = await sendSecured(exchange, call, (chunk) => {
    try {
      items.write(chunk);
    } catch (error) {
      throw error instanceof JsonShapeError || error instanceof SyntaxError ? unusable(error instanceof SyntaxError ? `an order in its list is not JSON (${error.message})` : error.message) : error;
    }
  });
  if (!isSuccess(reply)) throw errorOf(exchange, call.method, reply);
  try {
    items.end();
  } catch (error) {
    throw error instanceof JsonShapeError ? unusable(error.message) : error;
  }
  return { orders: items.items };
}

/** A page of packages: the exchange now (a non-2xx throws here, as from any call), the parse when asked for. */
async function fetchPackagesPage(exchange: SecuredExchange, call: Call): Promise<UnparsedPage<PackageRecord>> {
  const reply = await sendSecured(exchange, call);
  if (!isSuccess(reply)) throw errorOf(exchange, call.method, reply);
  return {
    parse() {
      const page = parseSuccess(exchange, call.method, reply, packagesPageSchema);
      return pageOf(page.data, page);
    },
  };
}

function trackingCall(query: TrackingQuery, signal: AbortSignal | undefined): Call {
  return { method: 'GET', path: '/api/v0/shipments/tracking-updates', query: buildTrackingQuery(query), ...optional('signal', signal) };
}

function readEcho(echo: unknown): OrderRead | null {
  const parsed = orderReadSchema.safeParse(echo);
  return parsed.success ? parsed.data : null;
}

function pageOf<T>(data: T[], page: { pagination?: PageResult<T>['pagination'] | undefined; requestId?: string | undefined }): PageResult<T> {
  return { data, ...optional('pagination', page.pagination), ...optional('requestId', page.requestId) };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
