/** "The API cannot be used": decided in one place, for every command and the CLI's last catch. */
import { describe, expect, it } from 'vitest';
import { AuthError, ForbiddenError, HttpError, TransportError, UnusableAnswerError } from '../../src/api/errors.js';
import { apiUnusableOf, isUnusableForEveryRequest } from '../../src/api/unusable.js';
import { failureOf } from '../../src/cli/exit-codes.js';
import { ApiUnusableError, EXIT } from '../../src/errors.js';
import { LedgerError } from '../../src/ledger/errors.js';

const url = 'https://api.example.com/shop/api/v0/inventory/items';
const http = (status: number, message: string, retryAfterMs?: number) => new HttpError(message, { method: 'GET', url, status, body: { message }, retryAfterMs });

describe('whether the API can be used', () => {
  it.each([
    ['a refused client secret', new AuthError('The token endpoint refused the credentials', { method: 'POST', url, status: 401, body: '', stage: 'token', reason: 'credentials' }), 'auth', /^the API refused the credentials \(The token endpoint/],
    ['no token endpoint at the address', new AuthError('The token endpoint answered 404', { method: 'POST', url, status: 404, body: '', stage: 'token', reason: 'endpoint' }), 'auth', /^the API could not be used \(The token endpoint answered 404\)$/],
    ['a 403', new ForbiddenError('Forbidden', { method: 'GET', url, status: 403, body: '' }), 'forbidden', /^the API forbade the request \(Forbidden\)$/],
    ['a 404 to every request', http(404, 'Not Found'), 'no_endpoint', /has no endpoint for GET https:\/\/api\.example\.com\/shop\/api\/v0\/inventory\/items \(HTTP 404: Not Found\); check FULFILLMENT_BASE_URL/],
    ['a 405', http(405, 'Method Not Allowed'), 'no_endpoint', /does not take GET/],
    ['an HTML page with a 200', new UnusableAnswerError('the body is not JSON', { method: 'GET', url, status: 200, body: '<html>' }), 'no_endpoint', /got an answer that is not the API's/],
    ['503s outlasting the retries', http(503, 'Service Unavailable'), 'unavailable', /^the API answered with server errors \(HTTP 503: Service Unavailable\)$/],
    ['no connection', new TransportError('connect ECONNREFUSED', { method: 'GET', url, code: 'ECONNREFUSED', isSent: false }), 'unavailable', /^the API could not be reached/],
    ['a 400 to a read the run needs', http(400, 'Bad Request'), 'refused', /^the API answered HTTP 400: Bad Request$/],
    ['a failure already judged', new ApiUnusableError('the fulfillment API kept failing: most requests failed', { kind: 'unavailable' }), 'unavailable', /^the fulfillment API kept failing/],
  ])('%s: unusable (%s)', (_case, error, kind, message) => {
    const unusable = apiUnusableOf(error);
    expect(unusable?.kind).toBe(kind);
    expect(unusable?.message).toMatch(message);
  });

  it.each([
    ['a bug', new TypeError('x is undefined')],
    ['a ledger that cannot be opened', new LedgerError('/tmp/l.db', 'not a database')],
    ['a request this tool aborted', new TransportError('aborted', { method: 'GET', url, code: 'aborted', isSent: true })],
  ])('%s: no failure of the API', (_case, error) => {
    expect(apiUnusableOf(error)).toBeNull();
  });

  it('counts the credentials, the rights and a wholesale failure as stopping every request, not one missing page', () => {
    expect(isUnusableForEveryRequest(new ForbiddenError('Forbidden', { method: 'GET', url, status: 403, body: '' }))).toBe(true);
    expect(isUnusableForEveryRequest(new ApiUnusableError('kept failing', { kind: 'unavailable' }))).toBe(true);
    expect(isUnusableForEveryRequest(http(404, 'Not Found'))).toBe(false);
    expect(isUnusableForEveryRequest(http(503, 'Service Unavailable'))).toBe(false);
  });

  it('has the CLI exit 3 with that one line for any failure of the API that reaches it, never "internal error"', () => {
    for (const error of [http(400, 'Bad Request'), http(404, 'Not Found'), new ForbiddenError('Forbidden', { method: 'GET', url, status: 403, body: '' })]) {
      const failure = failureOf(error);
      expect(failure).toMatchObject({ exitCode: EXIT.apiUnusable, kind: 'api_unusable', message: apiUnusableOf(error)!.message });
      expect(failure.stderr).not.toContain('internal error');
    }
  });
});
