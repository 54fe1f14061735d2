import { describe, expect, it } from 'vitest';
import {
  AuthError,
  classifyTransportFailure,
  ForbiddenError,
  HttpError,
  isOutcomeUnknown,
  isRetryable,
  TransportError,
} from '../../src/api/errors.js';

const http = (status: number, extra: { retryAfterMs?: number; stage?: 'request' | 'token' } = {}) =>
  new HttpError(`status ${status}`, { method: 'POST', url: 'http://127.0.0.1/api/v0/orders', status, body: '', ...extra });
const transport = (code: string, isSent: boolean, stage: 'request' | 'token' = 'request') =>
  new TransportError(code, { method: 'POST', url: 'http://127.0.0.1/api/v0/orders', code, isSent, stage });

describe('classifyTransportFailure', () => {
  it('knows a refused connection or an unknown host never sent the request', () => {
    expect(classifyTransportFailure(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toEqual({ code: 'ECONNREFUSED', isSent: false });
    expect(classifyTransportFailure(Object.assign(new Error('getaddrinfo'), { code: 'ENOTFOUND' }))).toEqual({ code: 'ENOTFOUND', isSent: false });
    expect(classifyTransportFailure({ code: 'UND_ERR_CONNECT_TIMEOUT' })).toEqual({ code: 'connect_timeout', isSent: false });
  });

  it('reads the code inside an AggregateError of happy-eyeballs attempts', () => {
    const aggregate = new AggregateError([Object.assign(new Error('a'), { code: 'ECONNREFUSED' })], 'all failed');
    expect(classifyTransportFailure(aggregate)).toEqual({ code: 'ECONNREFUSED', isSent: false });
  });

  it('treats resets, dropped sockets and timeouts as possibly sent', () => {
    expect(classifyTransportFailure({ code: 'ECONNRESET' })).toEqual({ code: 'ECONNRESET', isSent: true });
    expect(classifyTransportFailure({ code: 'UND_ERR_SOCKET' })).toEqual({ code: 'socket', isSent: true });
    expect(classifyTransportFailure({ code: 'UND_ERR_HEADERS_TIMEOUT' })).toEqual({ code: 'timeout', isSent: true });
    expect(classifyTransportFailure({ code: 'UND_ERR_BODY_TIMEOUT' })).toEqual({ code: 'timeout', isSent: true });
  });

  it('assumes the worst for something it does not recognise', () => {
    expect(classifyTransportFailure(new Error('mystery'))).toEqual({ code: 'unknown', isSent: true });
  });
});

describe('isRetryable', () => {
  it('retries transport failures, 408, 429 and 5xx', () => {
    expect(isRetryable(transport('ECONNREFUSED', false))).toBe(true);
    expect(isRetryable(transport('timeout', true))).toBe(true);
    for (const status of [408, 429, 500, 502, 503, 504]) expect(isRetryable(http(status))).toBe(true);
  });

  it('never retries 400, 401, 403, 404, 409, 422, 501, a caller abort or an unknown exception', () => {
    for (const status of [400, 401, 403, 404, 409, 422, 501]) expect(isRetryable(http(status))).toBe(false);
    expect(isRetryable(new AuthError('no', { method: 'POST', url: 'u', status: 401, body: '', reason: 'credentials' }))).toBe(false);
    expect(isRetryable(new ForbiddenError('no', { method: 'POST', url: 'u', status: 403, body: '' }))).toBe(false);
    expect(isRetryable(transport('aborted', true))).toBe(false);
    expect(isRetryable(new TypeError('x is undefined'))).toBe(false);
  });

  it('does not retry a 2xx whose body could not be read', () => {
    expect(isRetryable(http(200))).toBe(false);
  });
});

describe('isOutcomeUnknown', () => {
  it('is unknown after a reset or timeout once the request may have been sent', () => {
    expect(isOutcomeUnknown(transport('ECONNRESET', true))).toBe(true);
    expect(isOutcomeUnknown(transport('timeout', true))).toBe(true);
  });

  it('is known when the connection was refused', () => {
    expect(isOutcomeUnknown(transport('ECONNREFUSED', false))).toBe(false);
  });

  it('is unknown after a 500, 502 or 504: the order may have been stored', () => {
    for (const status of [500, 502, 504]) expect(isOutcomeUnknown(http(status))).toBe(true);
  });

  it('is known after 429, 503 with Retry-After and any 4xx', () => {
    expect(isOutcomeUnknown(http(429, { retryAfterMs: 1000 }))).toBe(false);
    expect(isOutcomeUnknown(http(503, { retryAfterMs: 1000 }))).toBe(false);
    for (const status of [400, 401, 404, 409]) expect(isOutcomeUnknown(http(status))).toBe(false);
  });

  it('is unknown after a bare 503 (a gateway may say it after forwarding)', () => {
    expect(isOutcomeUnknown(http(503))).toBe(true);
  });

  it('is known whenever the token request failed: the request itself never left', () => {
    expect(isOutcomeUnknown(http(502, { stage: 'token' }))).toBe(false);
    expect(isOutcomeUnknown(transport('ECONNRESET', true, 'token'))).toBe(false);
  });

  it('is false for errors that are not API errors', () => {
    expect(isOutcomeUnknown(new Error('bug'))).toBe(false);
  });
});
