/**
 * A token endpoint that answers something a retry will not change (a 404 at a wrong base URL, a proxy's
 * HTML login page, JSON without a token) means the API cannot be used: an AuthError the commands stop
 * on (exit 3), whose message names the URL, the status and what to check. 5xx, 429 and 408 stay retryable.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuthError, HttpError, isOutcomeUnknown, isRetryable } from '../../src/api/errors.js';
import { inventoryItem } from './fixtures.js';
import { useApiClients } from './support.js';
import { json, startTestServer, text, type Reply, type TestServer } from '../support/test-server.js';

const OAUTH = '/api/v0/oauth/token';
const GET_TOKEN = '/api/v0/auth/getToken';
const ITEMS = '/api/v0/inventory/items';
const SECRET = 'very-secret-value';

let server: TestServer;
const makeClient = useApiClients(() => ({ baseUrl: server.url, clientId: 'client-7', clientSecret: SECRET }));

beforeEach(async () => {
  server = await startTestServer();
  server.route('GET', ITEMS, json(200, { data: [inventoryItem()], requestId: 'r' }));
});

afterEach(async () => {
  await server.close();
});

function html(status: number, page: string): Reply {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
    res.end(page);
  };
}

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error,
  );
}

describe('a token endpoint that cannot give a token', () => {
  const cases: [string, string, Reply, RegExp][] = [
    ['a 404 (a base URL with a wrong path)', OAUTH, json(404, { message: 'No such endpoint' }), /answered 404 Not Found \("No such endpoint"\)/],
    ['a 404 HTML page', OAUTH, html(404, '<html><head><title>Page not found</title></head></html>'), /answered 404 Not Found \("Page not found"\)/],
    ['a 200 HTML login page (a wrong host or a proxy)', OAUTH, html(200, '<!doctype html><html><head><title>Sign in</title></head><body>login</body></html>'), /answered 200 with an HTML page/],
    ['a 200 JSON answer without accessToken', OAUTH, json(200, { ok: true }), /answered 200 without a usable accessToken/],
    ['a 200 text answer that is not JSON', OAUTH, text(200, 'hello'), /answered 200 with text that is not JSON/],
    ['a 405 (the other flow only)', OAUTH, json(405, { message: 'Method Not Allowed' }), /answered 405 Method Not Allowed/],
    ['a 501', OAUTH, text(501, ''), /answered 501 Not Implemented/],
  ];
  for (const [name, path, reply, answered] of cases) {
    it(`is an AuthError (endpoint) naming the URL, the status and what to check: ${name}`, async () => {
      server.route('POST', path, reply);
      const error = await failureOf(makeClient().listInventory());
      expect(error).toBeInstanceOf(AuthError);
      expect(error).toMatchObject({ reason: 'endpoint', stage: 'token', url: `${server.url}${OAUTH}` });
      const { message } = error as AuthError;
      expect(message).toContain(`The token endpoint ${server.url}${OAUTH} `);
      expect(message).toMatch(answered);
      expect(message).toContain('FULFILLMENT_BASE_URL');
      expect(message).toContain('FULFILLMENT_AUTH (this run used oauth; the other flow is getToken)');
      expect(isRetryable(error)).toBe(false);
      expect(isOutcomeUnknown(error)).toBe(false);
      expect(message).not.toContain(SECRET);
      // Asked once: a retry would get the same answer.
      expect(server.requestsTo('POST', OAUTH)).toHaveLength(1);
      expect(server.requestsTo('GET', ITEMS)).toHaveLength(0);
    });
  }

  it('names the getToken flow and its field when that is the one used', async () => {
    server.route('POST', GET_TOKEN, json(200, { accessToken: 'abc.def' }));
    const error = await failureOf(makeClient({ auth: 'getToken' }).listInventory());
    expect(error).toMatchObject({ name: 'AuthError', reason: 'endpoint', status: 200 });
    expect((error as Error).message).toContain('answered 200 without a usable token');
    expect((error as Error).message).toContain('this run used getToken; the other flow is oauth');
  });

  it('says where a redirect leads, without following it', async () => {
    server.route('POST', OAUTH, (_req, res) => {
      res.writeHead(301, { location: 'https://api.example.com/api/v0/oauth/token' });
      res.end();
    });
    const error = await failureOf(makeClient().listInventory());
    expect(error).toMatchObject({ name: 'AuthError', reason: 'endpoint', status: 301 });
    expect((error as Error).message).toContain('answered 301 Moved Permanently, redirecting to https://api.example.com/api/v0/oauth/token');
  });

  it('keeps refused credentials (401) apart', async () => {
    server.route('POST', OAUTH, json(401, { message: 'Unauthorized' }));
    await expect(makeClient().listInventory()).rejects.toMatchObject({ name: 'AuthError', reason: 'credentials' });
  });
});

describe('a token endpoint in transient trouble', () => {
  for (const status of [500, 502, 503, 429, 408]) {
    it(`stays a retryable HttpError on ${status}`, async () => {
      server.route('POST', OAUTH, text(status, 'busy'));
      const error = await failureOf(makeClient().listInventory());
      expect(error).toBeInstanceOf(HttpError);
      expect(error).not.toBeInstanceOf(AuthError);
      expect(error).toMatchObject({ status, stage: 'token', message: 'Token request failed: busy' });
      expect(isRetryable(error)).toBe(true);
    });
  }
});
