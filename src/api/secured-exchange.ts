/**
 * One secured exchange with the API: the bearer token (cached, refreshed once on 401), the API's
 * clock as its answers tell it, and the typed error or checked body an answer turns into. The
 * endpoints in client.ts are built on it.
 */
import type { z } from 'zod';
import { describeErrorBody, describeStatus, findRequestId, parseJsonLenient } from './error-message.js';
import { AuthError, ForbiddenError, HttpError, TransportError, UnusableAnswerError } from './errors.js';
import { createHttpTransport, parseHttpDate, type HttpReply, type HttpRequest, type HttpTransport } from './http.js';
import { describeSchemaProblems } from './responses.js';
import { parseRetryAfterMs } from './retry.js';
import { createTokenCache, requestToken, TOKEN_PATHS, type TokenCache } from './token.js';
import type { ApiClientOptions, AuthFlow } from './types.js';

export const CLIENT_DEFAULTS = { auth: 'oauth', timeoutMs: 30_000, refreshMarginMs: 60_000, connections: 16 } as const;

export type Call = Omit<HttpRequest, 'stage'>;

/** What every exchange of one client shares. Holds no credentials: they stay in the token cache's closure. */
export interface SecuredExchange {
  transport: HttpTransport;
  tokens: TokenCache;
  flow: AuthFlow;
  now: () => number;
  /** The API's clock: the Date header of the latest answer (any status, a token exchange included) and the local instant it came in. */
  serverClock?: { serverMs: number; localMs: number };
}

export function openSecuredExchange(options: ApiClientOptions): SecuredExchange {
  const now = options.now ?? Date.now;
  const flow = options.auth ?? CLIENT_DEFAULTS.auth;
  const exchanges = createHttpTransport({
    baseUrl: options.baseUrl,
    timeoutMs: options.timeoutMs ?? CLIENT_DEFAULTS.timeoutMs,
    connections: options.connections ?? CLIENT_DEFAULTS.connections,
    ...(options.logger ? { logger: options.logger } : {}),
  });
  // A server sends one Date text per second: it is parsed once, not for every answer.
  let lastDate: { text: string | undefined; ms: number | null } = { text: undefined, ms: null };
  const heard = (reply: HttpReply): HttpReply => {
    const text = reply.headers.date;
    if (text !== lastDate.text) lastDate = { text, ms: parseHttpDate(text) };
    if (lastDate.ms !== null) exchange.serverClock = { serverMs: lastDate.ms, localMs: now() };
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
  const exchange: SecuredExchange = { transport, tokens, flow, now };
  return exchange;
}

/** The API's clock now, from what its latest answer said; null when no answer told it. */
export function serverNowOf(exchange: SecuredExchange): Date | null {
  const clock = exchange.serverClock;
  return clock ? new Date(clock.serverMs + (exchange.now() - clock.localMs)) : null;
}

/** A token for `call`, given up (not cancelled: others share the request) when its signal aborts. */
export async function tokenFor(exchange: SecuredExchange, call: Call): Promise<string> {
  const { transport, tokens, flow } = exchange;
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
export async function sendSecured(exchange: SecuredExchange, call: Call, onChunk?: (chunk: Uint8Array) => void): Promise<HttpReply> {
  const { transport, tokens } = exchange;
  const attempt = async (token: string) => {
    const request = { ...call, headers: { ...call.headers, authorization: `Bearer ${token}` }, stage: 'request' as const };
    return onChunk ? transport.sendStreaming(request, onChunk) : transport.send(request);
  };
  const token = await tokenFor(exchange, call);
  let reply = await attempt(token);
  if (reply.status === 401) {
    tokens.invalidate(token);
    reply = await attempt(await tokenFor(exchange, call));
    if (reply.status === 401) throw errorOf(exchange, call.method, reply, 'token');
  }
  if (reply.status === 403) throw errorOf(exchange, call.method, reply);
  return reply;
}

export function errorOf(exchange: SecuredExchange, method: string, reply: HttpReply, refused?: 'token'): HttpError {
  const { body, message } = describeErrorBody(reply.text, reply.headers['content-type'], reply.status);
  const retryAfterMs = parseRetryAfterMs(reply.headers['retry-after'], exchange.now());
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
export function parseSuccess<S extends z.ZodType>(exchange: SecuredExchange, method: string, reply: HttpReply, schema: S): z.output<S> {
  if (!isSuccess(reply)) throw errorOf(exchange, method, reply);
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

export function isSuccess(reply: HttpReply): boolean {
  return reply.status >= 200 && reply.status <= 299;
}

/** `{ [key]: value }` when value is defined, `{}` otherwise: keeps absent fields absent. */
export function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
