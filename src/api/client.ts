/**
 * The fulfillment API client: every endpoint of api-spec.md section 4 (with PRODUCT.md section 6),
 * over one keep-alive pool, with cached bearer tokens. One call is one exchange, plus at most one
 * token refresh on 401; retrying is the caller's business (retry.ts, breaker.ts).
 */
import type { z } from 'zod';
import { orderReadSchema, type OrderRead, type PackageRecord } from '../contract/schemas.js';
import { describeErrorBody, describeStatus, findRequestId, parseJsonLenient } from './error-message.js';
import { AuthError, ForbiddenError, HttpError, TransportError, UnusableAnswerError } from './errors.js';
import { createHttpTransport, parseHttpDate, type HttpReply, type HttpRequest, type HttpTransport } from './http.js';
import { buildInventoryQuery, buildListOrdersQuery, buildTrackingQuery, orderPath } from './queries.js';
import { JsonArrayItems, JsonShapeError } from './json-array-items.js';
import { describeSchemaProblems, inventoryPageSchema, listedOrderSchema, orderEnvelopeSchema, ordersPageSchema, packagesPageSchema } from './responses.js';
import { parseRetryAfterMs } from './retry.js';
import { createTokenCache, requestToken, TOKEN_PATHS } from './token.js';
import type { ApiClient, ApiClientOptions, CreateOrderResult, PageResult, TrackingQuery, UnparsedPage } from './types.js';

export const CLIENT_DEFAULTS = { auth: 'oauth', timeoutMs: 30_000, refreshMarginMs: 60_000, connections: 16 } as const;

type Call = Omit<HttpRequest, 'stage'>;

export function createApiClient(options: ApiClientOptions): ApiClient {
  const now = options.now ?? Date.now;
  const flow = options.auth ?? CLIENT_DEFAULTS.auth;
  const exchanges = createHttpTransport({
    baseUrl: options.baseUrl,
    timeoutMs: options.timeoutMs ?? CLIENT_DEFAULTS.timeoutMs,
    connections: options.connections ?? CLIENT_DEFAULTS.connections,
    ...(options.logger ? { logger: options.logger } : {}),
  });
  // The API's clock as its answers tell it: the Date header of the latest answer (any status, a token
  // exchange included) and the local instant it came in. Its clock can differ from ours (reconcile).
  let serverClock: { serverMs: number; localMs: number } | undefined;
  // A server sends one Date text per second: it is parsed once, not for every answer.
  let lastDate: { text: string | undefined; ms: number | null } = { text: undefined, ms: null };
  const heard = (reply: HttpReply): HttpReply => {
    const text = reply.headers.date;
    if (text !== lastDate.text) lastDate = { text, ms: parseHttpDate(text) };
    if (lastDate.ms !== null) serverClock = { serverMs: lastDate.ms, localMs: now() };
    return reply;
  };
  const transport: HttpTransport = {
    ...exchanges,
    send: async (request) => heard(await exchanges.send(request)),
    sendStreaming: async (request, onChunk) => heard(await exchanges.sendStreaming(request, onChunk)),
  };
  // Credentials stay in this closure: never on an object that could be logged or thrown.
  const { clientId, clientSecret } = options;
  const tokens = createTokenCache({
    fetchToken: () => requestToken(transport, flow, { clientId, clientSecret }, now),
    now,
    refreshMarginMs: options.refreshMarginMs ?? CLIENT_DEFAULTS.refreshMarginMs,
  });

  async function tokenFor(call: Call): Promise<string> {
    const { signal } = call;
    if (!signal) return tokens.getToken();
    const aborted = () =>
      new TransportError(`${call.method} ${transport.urlOf(call.path, call.query)} was aborted while waiting for a token`, {
        method: call.method,
        url: transport.urlOf(TOKEN_PATHS[flow]),
        stage: 'token',
        code: 'aborted',
        isSent: false,
        cause: signal.reason,
      });
    if (signal.aborted) throw aborted();
    const pending = tokens.getToken();
    // The token request is shared: one caller giving up must not cancel it for the others.
    return new Promise<string>((resolve, reject) => {
      const onAbort = () => reject(aborted());
      signal.addEventListener('abort', onAbort, { once: true });
      pending.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  /**
   * A secured exchange: bearer token, one refresh and one repeat on 401, 403 as ForbiddenError. With
   * `onChunk`, a 2xx body goes to it as it arrives (HttpTransport.sendStreaming).
   */
  async function send(call: Call, onChunk?: (chunk: Uint8Array) => void): Promise<HttpReply> {
    const attempt = async (token: string) => {
      const request = { ...call, headers: { ...call.headers, authorization: `Bearer ${token}` }, stage: 'request' as const };
      return onChunk ? transport.sendStreaming(request, onChunk) : transport.send(request);
    };
    const token = await tokenFor(call);
    let reply = await attempt(token);
    if (reply.status === 401) {
      tokens.invalidate(token);
      reply = await attempt(await tokenFor(call));
      if (reply.status === 401) throw errorOf(call.method, reply, 'token');
    }
    if (reply.status === 403) throw errorOf(call.method, reply);
    return reply;
  }

  function errorOf(method: string, reply: HttpReply, refused?: 'token'): HttpError {
    const { body, message } = describeErrorBody(reply.text, reply.headers['content-type'], reply.status);
    const retryAfterMs = parseRetryAfterMs(reply.headers['retry-after'], now());
    const init = {
      method,
      url: reply.url,
      status: reply.status,
      body,
      ...optional('requestId', findRequestId(body, reply.headers['x-request-id'])),
      ...optional('retryAfterMs', retryAfterMs),
    };
    if (refused) return new AuthError(`The API refused a freshly issued token: ${message}`, { ...init, reason: 'token' });
    if (reply.status === 403) return new ForbiddenError(message, init);
    return new HttpError(message, init);
  }

  /** The body of a 2xx, checked against `schema`; anything else is an HttpError naming what was wrong. */
  function parseSuccess<S extends z.ZodType>(method: string, reply: HttpReply, schema: S): z.output<S> {
    if (reply.status < 200 || reply.status > 299) throw errorOf(method, reply);
    const json = parseJsonLenient(reply.text);
    const problem = (what: string, body: unknown) =>
      new UnusableAnswerError(`The API answered ${reply.status} ${describeStatus(reply.status)} but ${what}`, {
        method,
        url: reply.url,
        status: reply.status,
        body,
        ...optional('requestId', findRequestId(body, reply.headers['x-request-id'])),
      });
    if (!json) throw problem(reply.text.trim() === '' ? 'with an empty body' : 'the body is not JSON', reply.text);
    const result = schema.safeParse(json.value);
    if (!result.success) throw problem(`the body is not the expected shape: ${describeSchemaProblems(result.error)}`, json.value);
    return result.data;
  }

  async function getPage<S extends z.ZodType>(call: Call, schema: S): Promise<z.output<S>> {
    return parseSuccess(call.method, await send(call), schema);
  }

  /** A page of packages, read with the contract's schema. */
  async function getPackagesPage(call: Call): Promise<PageResult<PackageRecord>> {
    return (await fetchPackagesPage(call)).parse();
  }

  /** The exchange now (a non-2xx throws here, as from any call), the parse when asked for. */
  async function fetchPackagesPage(call: Call): Promise<UnparsedPage<PackageRecord>> {
    const reply = await send(call);
    if (!isSuccess(reply)) throw errorOf(call.method, reply);
    return {
      parse() {
        const page = parseSuccess(call.method, reply, packagesPageSchema);
        return pageOf(page.data, page);
      },
    };
  }

  return {
    async createOrder(payload, callOptions): Promise<CreateOrderResult> {
      const call: Call = {
        method: 'POST',
        path: '/api/v0/orders',
        headers: { 'content-type': 'application/json' },
        body: callOptions?.json ?? JSON.stringify(payload),
        ...optional('signal', callOptions?.signal),
      };
      const reply = await send(call);
      if (reply.status < 200 || reply.status > 299) throw errorOf(call.method, reply);
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
    },

    async getOrder(customerOrderId, callOptions) {
      const call: Call = { method: 'GET', path: orderPath(customerOrderId), ...optional('signal', callOptions?.signal) };
      const reply = await send(call);
      if (reply.status === 404) return null;
      const envelope = parseSuccess(call.method, reply, orderEnvelopeSchema);
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
      const page = parseSuccess(call.method, await send(call), ordersPageSchema);
      return pageOf(
        page.data.map((item) => item.orderDetails),
        page,
      );
    },

    async eachListedOrder(query, onOrder, callOptions) {
      const call: Call = { method: 'GET', path: '/api/v0/orders', query: buildListOrdersQuery(query), ...optional('signal', callOptions?.signal) };
      const items = new JsonArrayItems('data', (item, index) => {
        const parsed = listedOrderSchema.safeParse(item);
        if (!parsed.success) throw unusable(`data[${index}] is not the expected shape: ${describeSchemaProblems(parsed.error)}`);
        onOrder(parsed.data.orderDetails);
      });
      const unusable = (what: string) => new UnusableAnswerError(`The API answered 200 ${describeStatus(200)} but ${what}`, { method: call.method, url: transport.urlOf(call.path, call.query), status: 200, body: '' });
      const reply = await send(call, (chunk) => {
        try {
          items.write(chunk);
        } catch (error) {
          throw error instanceof JsonShapeError || error instanceof SyntaxError ? unusable(error instanceof SyntaxError ? `an order in its list is not JSON (${error.message})` : error.message) : error;
        }
      });
      if (!isSuccess(reply)) throw errorOf(call.method, reply);
      try {
        items.end();
      } catch (error) {
        throw error instanceof JsonShapeError ? unusable(error.message) : error;
      }
      return { orders: items.items };
    },

    async getPackages(customerOrderId, callOptions) {
      const call: Call = { method: 'GET', path: orderPath(customerOrderId, '/packages'), ...optional('signal', callOptions?.signal) };
      return getPackagesPage(call);
    },

    async getTrackingUpdates(query, callOptions) {
      return (await fetchPackagesPage(trackingCall(query, callOptions?.signal))).parse();
    },

    fetchTrackingUpdates: (query, callOptions) => fetchPackagesPage(trackingCall(query, callOptions?.signal)),

    async listInventory(query, callOptions) {
      const call: Call = { method: 'GET', path: '/api/v0/inventory/items', query: buildInventoryQuery(query), ...optional('signal', callOptions?.signal) };
      const page = await getPage(call, inventoryPageSchema);
      return pageOf(page.data, page);
    },

    async serverNow(callOptions) {
      // Nothing heard yet: the token exchange is an answer too (and its token serves the calls that follow).
      if (!serverClock) await tokenFor({ method: 'POST', path: TOKEN_PATHS[flow], ...optional('signal', callOptions?.signal) });
      return serverClock ? new Date(serverClock.serverMs + (now() - serverClock.localMs)) : null;
    },

    close: () => transport.close(),
  };
}

function trackingCall(query: TrackingQuery, signal: AbortSignal | undefined): Call {
  return { method: 'GET', path: '/api/v0/shipments/tracking-updates', query: buildTrackingQuery(query), ...optional('signal', signal) };
}

function readEcho(echo: unknown): OrderRead | null {
  const parsed = orderReadSchema.safeParse(echo);
  return parsed.success ? parsed.data : null;
}

function isSuccess(reply: HttpReply): boolean {
  return reply.status >= 200 && reply.status <= 299;
}

function pageOf<T>(data: T[], page: { pagination?: PageResult<T>['pagination'] | undefined; requestId?: string | undefined }): PageResult<T> {
  return { data, ...optional('pagination', page.pagination), ...optional('requestId', page.requestId) };
}

/** `{ [key]: value }` when value is defined, `{}` otherwise: keeps absent fields absent. */
function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
