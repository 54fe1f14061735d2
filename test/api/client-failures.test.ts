import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ForbiddenError, HttpError, isOutcomeUnknown, isRetryable, TransportError } from '../../src/api/errors.js';
import { retrying } from '../../src/api/retry.js';
import { orderDetails } from './fixtures.js';
import { useApiClients } from './support.js';
import { buildOrderPayload } from '../support/order-payload.js';
import { holdQuietAddress } from '../support/quiet-address.js';
import { hang, issueOAuthTokens, json, reset, startTestServer, text, type TestServer } from '../support/test-server.js';

const T0 = Date.parse('2030-06-07T08:09:10Z');
const ORDERS = '/api/v0/orders';

let server: TestServer;
const makeClient = useApiClients(() => ({ baseUrl: server.url, clientId: 'id', clientSecret: 'secret', now: () => T0 }));

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error,
  );
}

beforeEach(async () => {
  server = await startTestServer();
  issueOAuthTokens(server);
});

afterEach(async () => {
  await server.close();
});

describe('HTTP failures', () => {
  it('reads Retry-After seconds from a 429: retryable, known not processed', async () => {
    server.route('POST', ORDERS, json(429, { message: 'Slow down', requestId: 'rl-1' }, { 'retry-after': '2' }));
    const error = await failureOf(makeClient().createOrder(buildOrderPayload('A-1')));
    expect(error).toBeInstanceOf(HttpError);
    expect(error).toMatchObject({ status: 429, retryAfterMs: 2000, message: 'Slow down', requestId: 'rl-1' });
    expect(isRetryable(error)).toBe(true);
    expect(isOutcomeUnknown(error)).toBe(false);
  });

  it('reads a Retry-After HTTP date against the injected clock', async () => {
    server.route('POST', ORDERS, text(503, '', 'text/plain', { 'retry-after': new Date(T0 + 30_000).toUTCString() }));
    const error = await failureOf(makeClient().createOrder(buildOrderPayload('A-1')));
    expect(error).toMatchObject({ status: 503, retryAfterMs: 30_000, message: 'Service Unavailable', body: '' });
    expect(isOutcomeUnknown(error)).toBe(false);
  });

  it('gets an order in after "429 with Retry-After: 2, then 201", waiting what the server asked', async () => {
    server.route('POST', ORDERS, json(429, { message: 'busy' }, { 'retry-after': '2' }), json(201, { data: { orderDetails: orderDetails('A-1') }, requestId: 'ok' }));
    const client = makeClient();
    const sleeps: number[] = [];
    const result = await retrying(() => client.createOrder(buildOrderPayload('A-1')), {
      maxAttempts: 3,
      policy: { baseMs: 500, maxMs: 30_000 },
      shouldRetry: (error) => isRetryable(error) && !isOutcomeUnknown(error),
      random: () => 0.5,
      sleep: async (ms) => void sleeps.push(ms),
    });
    expect(result).toMatchObject({ status: 201, requestId: 'ok' });
    expect(sleeps).toEqual([2000]);
    expect(server.requestsTo('POST', ORDERS)).toHaveLength(2);
  });

  it('keeps a text/plain error body and uses it as the message', async () => {
    server.route('POST', ORDERS, text(400, '0 Shippable Quantity'));
    const error = await failureOf(makeClient().createOrder(buildOrderPayload('A-1')));
    expect(error).toMatchObject({ status: 400, message: '0 Shippable Quantity', body: '0 Shippable Quantity' });
    expect(isRetryable(error)).toBe(false);
  });

  it('turns an HTML 502 page into its title; the outcome of a create is then unknown', async () => {
    const html = '<html><head><title>502 Bad Gateway</title></head><body><center>nginx</center></body></html>';
    server.route('POST', ORDERS, text(502, html, 'text/html'));
    const error = await failureOf(makeClient().createOrder(buildOrderPayload('A-1')));
    expect(error).toMatchObject({ status: 502, message: '502 Bad Gateway', body: html });
    expect(isRetryable(error)).toBe(true);
    expect(isOutcomeUnknown(error)).toBe(true);
  });

  it('uses the status text for an empty error body', async () => {
    server.route('GET', '/api/v0/orders/A-1/packages', text(500, ''));
    await expect(makeClient().getPackages('A-1')).rejects.toMatchObject({ status: 500, message: 'Internal Server Error' });
  });

  it('reads field errors of the documented body shape into the message', async () => {
    server.route('POST', ORDERS, json(400, { message: 'Invalid order', errors: [{ field: 'orderDetails.subTotal', message: 'must equal 20.00' }], requestId: 'v-1' }));
    await expect(makeClient().createOrder(buildOrderPayload('A-1'))).rejects.toMatchObject({ message: 'Invalid order (orderDetails.subTotal: must equal 20.00)', requestId: 'v-1' });
  });

  it('raises ForbiddenError on 403, which is not retried', async () => {
    server.route('POST', ORDERS, json(403, { message: 'Forbidden' }));
    const error = await failureOf(makeClient().createOrder(buildOrderPayload('A-1')));
    expect(error).toBeInstanceOf(ForbiddenError);
    expect(error).toMatchObject({ status: 403, message: 'Forbidden' });
    expect(isRetryable(error)).toBe(false);
  });

  it('reports a 404 from a list endpoint as an HttpError, not as an empty list', async () => {
    server.route('GET', '/api/v0/inventory/items', json(404, { message: 'No such route' }));
    await expect(makeClient().listInventory()).rejects.toMatchObject({ name: 'HttpError', status: 404 });
  });

  it('never shows userinfo of the base URL in an error', async () => {
    server.route('POST', ORDERS, json(400, { message: 'no' }));
    const withUserinfo = server.url.replace('http://', 'http://user:hunter2@');
    const error = (await failureOf(makeClient({ baseUrl: withUserinfo }).createOrder(buildOrderPayload('A-1')))) as HttpError;
    expect(error.url).toBe(`${server.url}${ORDERS}`);
  });
});

describe('transport failures', () => {
  it('classifies a refused connection as never sent', async () => {
    const quiet = await holdQuietAddress();
    const error = await failureOf(makeClient({ baseUrl: `http://${quiet.host}:${quiet.port}` }).createOrder(buildOrderPayload('A-1')));
    await quiet.release();
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({ code: 'ECONNREFUSED', isSent: false, stage: 'token' });
    expect(isRetryable(error)).toBe(true);
    expect(isOutcomeUnknown(error)).toBe(false);
  });

  it('classifies a connection reset after the request as possibly processed', async () => {
    server.route('POST', ORDERS, reset());
    const error = await failureOf(makeClient().createOrder(buildOrderPayload('A-1')));
    expect(error).toBeInstanceOf(TransportError);
    expect((error as TransportError).code).toMatch(/^(ECONNRESET|socket)$/);
    expect(error).toMatchObject({ isSent: true, stage: 'request', method: 'POST', url: `${server.url}${ORDERS}` });
    expect(isRetryable(error)).toBe(true);
    expect(isOutcomeUnknown(error)).toBe(true);
  });

  it('times out a request that hangs past timeoutMs, outcome unknown', async () => {
    server.route('POST', ORDERS, hang());
    const client = makeClient({ timeoutMs: 80 });
    await client.listInventory().catch(() => undefined); // fetch the token first, outside the hang
    const error = await failureOf(client.createOrder(buildOrderPayload('A-1')));
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({ code: 'timeout', isSent: true });
    expect(isRetryable(error)).toBe(true);
    expect(isOutcomeUnknown(error)).toBe(true);
  });

  it('times out a body that stops half way', async () => {
    server.route('GET', '/api/v0/orders/A-1', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"data":');
    });
    await expect(makeClient({ timeoutMs: 80 }).getOrder('A-1')).rejects.toMatchObject({ name: 'TransportError', code: 'timeout' });
  });

  it('reports a caller abort mid-flight as aborted: not retryable, outcome unknown', async () => {
    server.route('POST', ORDERS, hang());
    const client = makeClient();
    await client.listInventory().catch(() => undefined);
    const controller = new AbortController();
    const pending = failureOf(client.createOrder(buildOrderPayload('A-1'), { signal: controller.signal }));
    setTimeout(() => controller.abort(), 20);
    const error = await pending;
    expect(error).toMatchObject({ name: 'TransportError', code: 'aborted', isSent: true });
    expect(isRetryable(error)).toBe(false);
    expect(isOutcomeUnknown(error)).toBe(true);
  });

  it('leaves no listener behind on a run-long signal', async () => {
    server.route('GET', '/api/v0/inventory/items', json(200, { data: [] }));
    const client = makeClient();
    const runSignal = new AbortController().signal;
    for (let i = 0; i < 5; i++) await client.listInventory(undefined, { signal: runSignal });
    expect(getEventListeners(runSignal, 'abort')).toHaveLength(0);
  });

  it('does not send anything when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await failureOf(makeClient().createOrder(buildOrderPayload('A-1'), { signal: controller.signal }));
    expect(error).toMatchObject({ name: 'TransportError', code: 'aborted', isSent: false });
    expect(server.requests).toHaveLength(0);
  });
});
