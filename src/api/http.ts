/**
 * One HTTP exchange over a keep-alive undici Pool: send, read the whole body within the deadline,
 * hand back status, headers and text. Transport failures become TransportError; the status is not
 * judged here (the client decides what a 404 or a 401 means).
 */
import { reportExchange } from './exchange-observers.js';
import { performance } from 'node:perf_hooks';
import { Pool, type FormData } from 'undici';
import type { Logger } from 'pino';
import { classifyTransportFailure, TransportError, type ApiStage } from './errors.js';

export interface HttpRequest {
  method: 'GET' | 'POST';
  /** Path below the base URL, already encoded, e.g. /api/v0/orders/A%2F1. */
  path: string;
  query?: URLSearchParams;
  headers?: Record<string, string>;
  body?: string | FormData;
  signal?: AbortSignal;
  stage: ApiStage;
  /** An unpaged answer that grows with the data (list orders): allowed up to MAX_LARGE_RESPONSE_BYTES. */
  isLargeAnswer?: boolean;
}

export interface HttpReply {
  status: number;
  headers: Record<string, string | undefined>;
  text: string;
  /** Without secrets or userinfo: what errors and logs show. */
  url: string;
}

export interface HttpTransport {
  send(request: HttpRequest): Promise<HttpReply>;
  /**
   * send() for an answer too large to hold (list orders): a 2xx body is handed to `onChunk` as it
   * arrives, without a size cap (its text in the reply is then ''); any other status is read whole, as
   * send() reads it. The deadline covers the wait for the answer's headers; after them, each chunk
   * must come within the timeout, however long the whole body takes.
   */
  sendStreaming(request: HttpRequest, onChunk: (chunk: Uint8Array) => void): Promise<HttpReply>;
  /** The public URL of a path (no userinfo), for errors raised outside an exchange. */
  urlOf(path: string, query?: URLSearchParams): string;
  close(): Promise<void>;
}

export interface HttpTransportOptions {
  baseUrl: string;
  timeoutMs: number;
  connections: number;
  logger?: Logger;
}

/** A page of 100 packages is tens of kilobytes; anything near this is not our API talking. */
const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;
/**
 * The one unpaged answer that grows with the data: list orders, under 1 KB per order. A nightly
 * reconcile of a few hundred thousand orders must still fit (32 MB stopped near 50,000 orders).
 * undici caps per pool, so such requests go through a second pool of their own.
 */
export const MAX_LARGE_RESPONSE_BYTES = 512 * 1024 * 1024;
/** Connecting should be quick; a hung SYN is a connect_timeout (known not sent), not a request timeout. */
const CONNECT_TIMEOUT_MS = 10_000;

export function createHttpTransport(options: HttpTransportOptions): HttpTransport {
  const base = new URL(options.baseUrl);
  const basePath = base.pathname.replace(/\/+$/, '');
  const { timeoutMs, logger } = options;
  const poolOf = (connections: number, maxResponseSize: number) =>
    new Pool(base.origin, {
      connections,
      connect: { timeout: Math.min(timeoutMs, CONNECT_TIMEOUT_MS) },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      maxResponseSize,
    });
  const pool = poolOf(options.connections, MAX_RESPONSE_BYTES);
  // Opened on the first large request: one list-orders call per run at most.
  let largePool: Pool | undefined;
  let streamingPool: Pool | undefined;

  const pathOf = (path: string, query?: URLSearchParams): string => {
    const search = query?.toString() ?? '';
    return `${basePath}${path}${search === '' ? '' : `?${search}`}`;
  };
  const urlOf = (path: string, query?: URLSearchParams): string => `${base.origin}${pathOf(path, query)}`;

  const send = (request: HttpRequest): Promise<HttpReply> => exchange(request);
  const sendStreaming = (request: HttpRequest, onChunk: (chunk: Uint8Array) => void): Promise<HttpReply> => exchange(request, onChunk);

  async function exchange(request: HttpRequest, onChunk?: (chunk: Uint8Array) => void): Promise<HttpReply> {
    const url = urlOf(request.path, request.query);
    const fail = (cause: unknown, classified = classifyTransportFailure(cause)): TransportError =>
      new TransportError(`${request.method} ${url} ${describeFailure(classified.code)}`, {
        method: request.method,
        url,
        stage: request.stage,
        code: classified.code,
        isSent: classified.isSent,
        cause,
      });
    if (request.signal?.aborted) throw fail(request.signal.reason, { code: 'aborted', isSent: false });

    // One deadline for the whole exchange (headers and body), on top of undici's per-phase timers.
    // The caller's signal is linked by hand and unlinked after: AbortSignal.any() on a run-long
    // signal leaks one dependant per request (nodejs/node#55351).
    const controller = new AbortController();
    // Made only when the deadline passes: an Error captures a stack, too dear to build per request.
    let timeoutReason: DeadlineExceeded | undefined;
    const timer = setTimeout(() => controller.abort((timeoutReason = new DeadlineExceeded())), timeoutMs);
    const callerSignal = request.signal;
    const onCallerAbort = () => controller.abort(callerSignal?.reason);
    callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
    const { signal } = controller;
    const started = performance.now();
    let consumerError: { error: unknown } | undefined;
    try {
      // A streamed body has no cap: it is never held (maxResponseSize -1 is undici's "no limit").
      const via = onChunk ? (streamingPool ??= poolOf(1, -1)) : request.isLargeAnswer ? (largePool ??= poolOf(1, MAX_LARGE_RESPONSE_BYTES)) : pool;
      const response = await via.request({
        method: request.method,
        path: pathOf(request.path, request.query),
        headers: { accept: 'application/json', 'user-agent': 'order-batch', ...request.headers },
        body: request.body ?? null,
        signal,
      });
      let text = '';
      if (onChunk && response.statusCode >= 200 && response.statusCode <= 299) {
        clearTimeout(timer);
        for await (const chunk of response.body) {
          try {
            onChunk(chunk as Uint8Array);
          } catch (error) {
            // The consumer's own failure (an answer it cannot read), not the transport's.
            consumerError = { error };
            response.body.destroy();
            throw error;
          }
        }
      } else text = await response.body.text();
      const headers = flattenHeaders(response.headers);
      logger?.debug(
        { method: request.method, path: request.path, status: response.statusCode, ms: Math.round(performance.now() - started) },
        'api exchange',
      );
      reportExchange({ status: response.statusCode, seconds: (performance.now() - started) / 1000 });
      return { status: response.statusCode, headers, text, url };
    } catch (error) {
      if (consumerError) throw consumerError.error;
      const transportError =
        timeoutReason !== undefined && error === timeoutReason
          ? fail(error, { code: 'timeout', isSent: true })
          : callerSignal?.aborted && error === callerSignal.reason
            ? fail(error, { code: 'aborted', isSent: true })
            : fail(error);
      logger?.debug({ method: request.method, path: request.path, code: transportError.code, isSent: transportError.isSent }, 'api exchange failed');
      reportExchange({ status: null, seconds: (performance.now() - started) / 1000 });
      throw transportError;
    } finally {
      clearTimeout(timer);
      callerSignal?.removeEventListener('abort', onCallerAbort);
    }
  }

  return { send, sendStreaming, urlOf, close: async () => void (await Promise.all([pool.close(), largePool?.close(), streamingPool?.close()])) };
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const IMF_FIXDATE = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d{2}) ([A-Z][a-z]{2}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;

/**
 * The instant of an HTTP `Date` header in IMF-fixdate form ("Sun, 06 Nov 1994 08:49:37 GMT", the
 * only form RFC 9110 lets a server send), in ms since the epoch; null when absent or anything else
 * (garbage, a date that does not exist). Date.parse is not used: it reads "1" as a date.
 */
export function parseHttpDate(value: string | undefined): number | null {
  const match = value === undefined ? null : IMF_FIXDATE.exec(value.trim());
  if (!match) return null;
  const [, day, monthName, year, hours, minutes, seconds] = match;
  const month = MONTHS.indexOf(monthName!);
  if (month < 0) return null;
  const ms = Date.UTC(Number(year), month, Number(day), Number(hours), Number(minutes), Number(seconds));
  const back = new Date(ms);
  // Date.UTC rolls 31 Feb over to March and 24:00 to the next day: such a header is not a date.
  const isExact = back.getUTCDate() === Number(day) && back.getUTCMonth() === month && back.getUTCHours() === Number(hours) && back.getUTCMinutes() === Number(minutes) && back.getUTCSeconds() === Number(seconds);
  return isExact ? ms : null;
}

class DeadlineExceeded extends Error {
  override readonly name = 'DeadlineExceeded';
  constructor() {
    super('request deadline exceeded');
  }
}

function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string | undefined> {
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(raw)) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  return headers;
}

function describeFailure(code: string): string {
  switch (code) {
    case 'ECONNREFUSED':
      return 'failed: connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'failed: host not found';
    case 'connect_timeout':
      return 'failed: could not connect in time';
    case 'timeout':
      return 'timed out waiting for the answer';
    case 'ECONNRESET':
    case 'EPIPE':
    case 'socket':
      return 'failed: the connection was dropped';
    case 'aborted':
      return 'was aborted';
    default:
      return `failed (${code})`;
  }
}
