/**
 * Typed failures of the API client, modelled on ky's HTTPError: each carries the method, the URL
 * (never a secret: credentials travel in bodies and headers, and userinfo is stripped) and `cause`.
 * Tokens and secrets are never stored on these objects.
 *
 * `stage` says which exchange failed: the caller's own request, or the token request made on its
 * behalf. A failed token request means the caller's request was never sent, so its outcome is known.
 */

export type ApiStage = 'request' | 'token';

export interface ApiErrorInit {
  method: string;
  url: string;
  stage?: ApiStage;
  cause?: unknown;
}

export abstract class ApiError extends Error {
  readonly method: string;
  readonly url: string;
  readonly stage: ApiStage;

  constructor(message: string, init: ApiErrorInit) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.method = init.method;
    this.url = init.url;
    this.stage = init.stage ?? 'request';
  }
}

export interface HttpErrorInit extends ApiErrorInit {
  status: number;
  /** The parsed JSON body, or its text when it is not JSON ('' when empty). */
  body: unknown;
  requestId?: string;
  retryAfterMs?: number;
}

/** The API answered, but not with what was asked for: a non-2xx status, or a 2xx whose body does not parse. */
export class HttpError extends ApiError {
  override readonly name: string = 'HttpError';
  readonly status: number;
  readonly body: unknown;
  readonly requestId?: string;
  /** From Retry-After (seconds or an HTTP date), relative to the client's clock. */
  readonly retryAfterMs?: number;

  constructor(message: string, init: HttpErrorInit) {
    super(message, init);
    this.status = init.status;
    this.body = init.body;
    if (init.requestId !== undefined) this.requestId = init.requestId;
    if (init.retryAfterMs !== undefined) this.retryAfterMs = init.retryAfterMs;
  }
}

/**
 * A 2xx whose body is not what the spec says: an HTML page (a proxy, a login wall, a web server at
 * the base URL), truncated JSON, or JSON of another shape. The API as configured cannot be used
 * (exit 3), and the same server answers the same way again: never retried as if transient.
 */
export class UnusableAnswerError extends HttpError {
  override readonly name = 'UnusableAnswerError';
}

/**
 * An UnusableAnswerError, or an HttpError with a 2xx status: an HttpError is only ever thrown for a
 * 2xx when its body could not be used (a non-2xx is the status's error). Token failures are
 * AuthErrors of their own (a 2xx without a token is `endpoint`), never this.
 */
export function isUnusableAnswer(error: unknown): error is HttpError {
  if (error instanceof UnusableAnswerError) return true;
  return error instanceof HttpError && !(error instanceof AuthError) && error.status >= 200 && error.status <= 299;
}

/**
 * Why no usable token could be had:
 * - `credentials`: the token endpoint answered 401;
 * - `token`: a secured endpoint refused a freshly issued token too;
 * - `endpoint`: the token endpoint answered something a retry will not change (404, an HTML page,
 *   a 2xx without a token): most often a wrong FULFILLMENT_BASE_URL or FULFILLMENT_AUTH.
 */
export type AuthFailure = 'credentials' | 'token' | 'endpoint';

/** No usable token (see AuthFailure): either way the run cannot go on. */
export class AuthError extends HttpError {
  override readonly name = 'AuthError';
  readonly reason: AuthFailure;

  constructor(message: string, init: HttpErrorInit & { reason: AuthFailure }) {
    super(message, init);
    this.reason = init.reason;
  }
}

/** 403: the token is valid but its client may not do this (PRODUCT.md section 6). Stops the run. */
export class ForbiddenError extends HttpError {
  override readonly name = 'ForbiddenError';
}

/**
 * No HTTP answer: refused, reset, timed out, aborted. `isSent` is false only when the request
 * certainly never reached the server (connection refused, DNS failure, connect timeout, aborted
 * before dispatch); otherwise the server may have processed it and the outcome is unknown.
 */
export class TransportError extends ApiError {
  override readonly name = 'TransportError';
  /** ECONNREFUSED, ENOTFOUND, ECONNRESET, EPIPE, socket, connect_timeout, timeout, aborted, response_too_large, ... */
  readonly code: string;
  readonly isSent: boolean;

  constructor(message: string, init: ApiErrorInit & { code: string; isSent: boolean }) {
    super(message, init);
    this.code = init.code;
    this.isSent = init.isSent;
  }
}

/** Codes of failures that happen before a single byte of the request can have left this machine. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'connect_timeout']);

/** undici's codes mapped to the names callers and logs use. */
const CODE_NAMES: Record<string, string> = {
  UND_ERR_CONNECT_TIMEOUT: 'connect_timeout',
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
  UND_ERR_SOCKET: 'socket',
  UND_ERR_CLOSED: 'closed',
  UND_ERR_DESTROYED: 'closed',
  UND_ERR_ABORTED: 'aborted',
  UND_ERR_RES_EXCEEDED_MAX_SIZE: 'response_too_large',
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: 'socket',
};

/**
 * Names a low-level failure (an undici or Node error) and says whether the request may have been
 * sent. Pure, so the classification is tested without sockets.
 */
export function classifyTransportFailure(error: unknown): { code: string; isSent: boolean } {
  const raw = codeOf(error) ?? 'unknown';
  const code = CODE_NAMES[raw] ?? raw;
  // A client closed before dispatch never sent anything; anything else unrecognised may have.
  return { code, isSent: !NOT_SENT_CODES.has(code) && code !== 'closed' };
}

function codeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code } = error as { code?: unknown };
  if (typeof code === 'string') return code;
  // Happy-eyeballs connection attempts fail as an AggregateError whose members carry the code.
  const { errors } = error as { errors?: unknown };
  if (Array.isArray(errors) && errors.length > 0) return codeOf(errors[0]);
  const { cause } = error as { cause?: unknown };
  return cause === undefined ? undefined : codeOf(cause);
}

/**
 * Worth trying again later: transport failures (not a caller's abort), 408, 429 and 5xx other
 * than 501/505 (which will not change). Never 400, 401, 403, 404, 409, 422, never an unparseable 2xx,
 * never an error of another class: an unknown exception is a bug, not a retry.
 */
export function isRetryable(error: unknown): boolean {
  if (error instanceof TransportError) return error.code !== 'aborted';
  if (error instanceof AuthError || error instanceof ForbiddenError || isUnusableAnswer(error)) return false;
  if (error instanceof HttpError) return isTransientStatus(error.status);
  return false;
}

/** A status that may be different on the next try: 408, 429, and 5xx other than 501/505. */
export function isTransientStatus(status: number): boolean {
  if (status === 408 || status === 429) return true;
  return status >= 500 && status <= 599 && status !== 501 && status !== 505;
}

/**
 * The request may have been processed although no success was seen, so a create must be looked up
 * (GET) before it is sent again:
 * - a transport failure after the request may have left (reset, timeout, abort mid-flight);
 * - a 5xx: a gateway's 502/504 or a 500 can come after the order was stored.
 * Known NOT processed: 429 (rate limited before any work), 503 with Retry-After (the server is
 * shedding load and says when to come back), every 4xx, and any failure of the token request
 * (the caller's request was never sent).
 */
export function isOutcomeUnknown(error: unknown): boolean {
  if (!(error instanceof ApiError) || error.stage === 'token') return false;
  if (error instanceof TransportError) return error.isSent;
  if (error instanceof HttpError) {
    if (error.status < 500 || error.status > 599) return false;
    return !(error.status === 503 && error.retryAfterMs !== undefined);
  }
  return false;
}
