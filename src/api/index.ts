/** The API client and its retry, error and failure-guard helpers. */
export { createApiClient, CLIENT_DEFAULTS } from './client.js';
export { ApiError, AuthError, ForbiddenError, HttpError, TransportError, isOutcomeUnknown, isRetryable, classifyTransportFailure } from './errors.js';
export type { ApiStage } from './errors.js';
export { backoffDelayMs, retrying, parseRetryAfterMs, DEFAULT_BACKOFF, DEFAULT_RETRY_AFTER_MAX_MS } from './retry.js';
export type { BackoffPolicy, RetryEvent, RetryingOptions } from './retry.js';
export { createFailureGuard, FAILURE_GUARD_DEFAULTS } from './breaker.js';
export type { AttemptOutcome, FailureGuard, FailureGuardOptions, FailureGuardState } from './breaker.js';
export { describeErrorBody } from './error-message.js';
export type * from './types.js';
