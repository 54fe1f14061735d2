/**
 * Whether a failure means the fulfillment API cannot be used as configured (PRODUCT.md section 1,
 * exit 3), and why. The one place that decides it: import (before and while sending), reconcile,
 * validate --online and the CLI's top-level catch all ask here.
 */
import { ApiUnusableError, type ApiUnusableKind } from '../errors.js';
import { describeApiTrouble } from './error-message.js';
import { ApiError, AuthError, ForbiddenError, HttpError, isRetryable, isUnusableAnswer, TransportError } from './errors.js';

export interface ApiUnusable {
  kind: ApiUnusableKind;
  /** A clause that completes "the run stopped early: ..." (no capital, no full stop). */
  message: string;
}

/**
 * Why `error`, ending an exchange with the API once its retries are spent, means the API cannot be
 * used; null when it is no failure of the API (a bug, a file, a ledger). An answer the sending path
 * reads per order (a 400 or 409 to a POST) never reaches this: it is that order's refusal.
 */
export function apiUnusableOf(error: unknown): ApiUnusable | null {
  if (error instanceof ApiUnusableError) return { kind: error.kind, message: error.message };
  if (error instanceof AuthError) {
    // 'endpoint': no token endpoint where it was looked for (a wrong address), not refused credentials.
    return { kind: 'auth', message: error.reason === 'endpoint' ? `the API could not be used (${error.message})` : `the API refused the credentials (${error.message})` };
  }
  if (error instanceof ForbiddenError) return { kind: 'forbidden', message: `the API forbade the request (${error.message})` };
  if (isRetryable(error)) return { kind: 'unavailable', message: describeApiTrouble(error) };
  // A wrong base URL (or a proxy's path) answers 404/405 to every request: nothing can be done there.
  if (error instanceof HttpError && isMissingEndpoint(error)) return { kind: 'no_endpoint', message: missingEndpointMessage(error) };
  // A 2xx that is not the API's answer (an HTML page, truncated JSON): something else answers at that address.
  if (isUnusableAnswer(error)) return { kind: 'no_endpoint', message: unusableAnswerMessage(error) };
  // A request this tool aborted itself (the run was interrupted) says nothing of the API.
  if (error instanceof TransportError && error.code === 'aborted') return null;
  // Any other refusal of a request the tool needs (a 400 to a read): the API cannot serve this run.
  if (error instanceof ApiError) return { kind: 'refused', message: describeApiTrouble(error) };
  return null;
}

/** The API fails nearly every request, for long enough that the run stops rather than hammer it. */
export function failingWholesale(lastTrouble: string | undefined): ApiUnusable {
  return { kind: 'unavailable', message: `the fulfillment API kept failing: ${lastTrouble ?? 'most requests failed'}` };
}

/** No request can get past it: the credentials, the client's rights, or an API failing wholesale. */
export function isUnusableForEveryRequest(error: unknown): boolean {
  const kind = apiUnusableOf(error)?.kind;
  return kind === 'auth' || kind === 'forbidden' || (error instanceof ApiUnusableError && kind === 'unavailable');
}

/** No order endpoint at the address used (404 Not Found, 405 Method Not Allowed): the API cannot be used as configured. */
export function isMissingEndpoint(err: HttpError): boolean {
  return err.status === 404 || err.status === 405;
}

/** What a 404/405 from the API means to whoever configured it: the address to check. */
export function missingEndpointMessage(err: HttpError): string {
  const what = err.status === 405 ? 'does not take' : 'has no endpoint for';
  return `the fulfillment API ${what} ${err.method} ${urlPath(err.url)} (HTTP ${err.status}: ${err.message}); check FULFILLMENT_BASE_URL (its path, or a proxy in front of the API)`;
}

/**
 * What a 2xx that is not the API's answer (isUnusableAnswer) means to whoever configured the API:
 * something else answers in its place, most often a web page or a proxy at FULFILLMENT_BASE_URL.
 */
export function unusableAnswerMessage(err: HttpError): string {
  return `the fulfillment API could not be used: ${err.method} ${urlPath(err.url)} got an answer that is not the API's (${err.message}); check FULFILLMENT_BASE_URL (a web page or a proxy may be answering in the API's place)`;
}

function urlPath(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return url;
  }
}
