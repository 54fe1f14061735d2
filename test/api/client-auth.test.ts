import { inspect } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuthError, HttpError, isOutcomeUnknown, isRetryable, TransportError } from '../../src/api/errors.js';
import { inventoryItem, orderDetails } from './fixtures.js';
import { useApiClients } from './support.js';
import { buildOrderPayload } from '../support/order-payload.js';
import { recordingLogger } from '../support/recording-logger.js';
import { issueOAuthTokens, json, makeJwt, parseForm, startTestServer, text, type Reply, type TestServer } from '../support/test-server.js';

const T0 = Date.parse('2030-03-04T05:06:07Z');
const OAUTH = '/api/v0/oauth/token';
const GET_TOKEN = '/api/v0/auth/getToken';
const ITEMS = '/api/v0/inventory/items';

let server: TestServer;
let clock: number;
const makeClient = useApiClients(() => ({ baseUrl: server.url, clientId: 'client-7', clientSecret: 'very-secret-value', now: () => clock }));

beforeEach(async () => {
  clock = T0;
  server = await startTestServer();
  server.route('GET', ITEMS, json(200, { data: [inventoryItem()], requestId: 'r' }));
});

afterEach(async () => {
  await server.close();
});

const tokenRequests = (path = OAUTH) => server.requestsTo('POST', path).length;
const usedTokens = () => server.requestsTo('GET', ITEMS).map((r) => r.headers.authorization);

describe('oauth token flow', () => {
  it('posts GrantType, ClientId and ClientSecret as a real multipart form', async () => {
    issueOAuthTokens(server);
    await makeClient().listInventory();
    const [tokenRequest] = server.requestsTo('POST', OAUTH);
    expect(tokenRequest!.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(tokenRequest!.headers.authorization).toBeUndefined();
    expect(await parseForm(tokenRequest!)).toEqual({ GrantType: 'client_credentials', ClientId: 'client-7', ClientSecret: 'very-secret-value' });
    expect(usedTokens()).toEqual(['Bearer token-1']);
  });

  it('reuses the cached token until refreshMarginMs before expiresIn runs out', async () => {
    issueOAuthTokens(server, 3600);
    const client = makeClient({ refreshMarginMs: 60_000 });
    await client.listInventory();
    clock = T0 + 3_539_999;
    await client.listInventory();
    expect(tokenRequests()).toBe(1);
    clock = T0 + 3_540_000;
    await client.listInventory();
    expect(tokenRequests()).toBe(2);
    expect(usedTokens()).toEqual(['Bearer token-1', 'Bearer token-1', 'Bearer token-2']);
  });

  it('refreshes a short-lived token at half its life rather than on every call', async () => {
    issueOAuthTokens(server, 30);
    const client = makeClient({ refreshMarginMs: 60_000 });
    await client.listInventory();
    clock = T0 + 14_000;
    await client.listInventory();
    expect(tokenRequests()).toBe(1);
    clock = T0 + 15_000;
    await client.listInventory();
    expect(tokenRequests()).toBe(2);
  });

  it('shares one in-flight token request among concurrent calls', async () => {
    let issued = 0;
    server.route('POST', OAUTH, (req, res) => {
      issued++;
      setTimeout(() => json(200, { accessToken: `token-${issued}`, tokenType: 'bearer', expiresIn: 3600 })(req, res), 30);
    });
    const client = makeClient();
    await Promise.all(Array.from({ length: 12 }, () => client.listInventory()));
    expect(tokenRequests()).toBe(1);
    expect(new Set(usedTokens())).toEqual(new Set(['Bearer token-1']));
  });

  it('raises AuthError (credentials refused) when the token endpoint answers 401', async () => {
    server.route('POST', OAUTH, json(401, { message: 'Unauthorized' }));
    const error = await makeClient().listInventory().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect(error).toMatchObject({ reason: 'credentials', status: 401, stage: 'token', url: `${server.url}${OAUTH}` });
    expect(isRetryable(error)).toBe(false);
    expect(server.requestsTo('GET', ITEMS)).toHaveLength(0);
  });

  it('reports a failing token endpoint as a token-stage HttpError: retryable, outcome known', async () => {
    server.route('POST', OAUTH, text(503, 'down for maintenance'));
    const error = await makeClient().createOrder(buildOrderPayload('A-1')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpError);
    expect(error).toMatchObject({ status: 503, stage: 'token', message: 'Token request failed: down for maintenance' });
    expect(isRetryable(error)).toBe(true);
    expect(isOutcomeUnknown(error)).toBe(false);
    expect(server.requestsTo('POST', '/api/v0/orders')).toHaveLength(0);
  });
});

describe('getToken flow', () => {
  it('posts { clientId, secret } as JSON and reads the lifetime from the JWT (exp - iat)', async () => {
    const iat = Math.floor(T0 / 1000);
    const tokens = [await makeJwt({ iat, exp: iat + 600 }), await makeJwt({ iat: iat + 600, exp: iat + 1200, sub: 'second' })];
    server.route('POST', GET_TOKEN, json(200, { token: tokens[0] }), json(200, { token: tokens[1] }));
    const client = makeClient({ auth: 'getToken', refreshMarginMs: 60_000 });
    await client.listInventory();
    const [tokenRequest] = server.requestsTo('POST', GET_TOKEN);
    expect(tokenRequest!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(tokenRequest!.text)).toEqual({ clientId: 'client-7', secret: 'very-secret-value' });
    clock = T0 + 539_000;
    await client.listInventory();
    expect(tokenRequests(GET_TOKEN)).toBe(1);
    clock = T0 + 540_000;
    await client.listInventory();
    expect(tokenRequests(GET_TOKEN)).toBe(2);
    expect(usedTokens()).toEqual([`Bearer ${tokens[0]}`, `Bearer ${tokens[0]}`, `Bearer ${tokens[1]}`]);
  });

  it('falls back to 3600 s for a token without exp, or one that is not a JWT', async () => {
    server.route('POST', GET_TOKEN, json(200, { token: await makeJwt({}) }), json(200, { token: 'opaque-token' }), json(200, { token: 'opaque-2' }));
    const client = makeClient({ auth: 'getToken', refreshMarginMs: 60_000 });
    await client.listInventory();
    clock = T0 + 3_539_000;
    await client.listInventory();
    expect(tokenRequests(GET_TOKEN)).toBe(1);
    clock = T0 + 3_540_000;
    await client.listInventory(); // opaque-token, issued now: 3600 s from here
    clock = T0 + 3_540_000 + 3_539_000;
    await client.listInventory();
    expect(tokenRequests(GET_TOKEN)).toBe(2);
    expect(usedTokens().slice(2)).toEqual(['Bearer opaque-token', 'Bearer opaque-token']);
  });

  it('raises AuthError when getToken answers 401', async () => {
    server.route('POST', GET_TOKEN, text(401, ''));
    await expect(makeClient({ auth: 'getToken' }).listInventory()).rejects.toMatchObject({ name: 'AuthError', reason: 'credentials', message: 'The API refused the client credentials: Unauthorized' });
  });
});

describe('401 from a secured endpoint', () => {
  it('refreshes the token once and repeats the call', async () => {
    issueOAuthTokens(server);
    server.route('GET', '/api/v0/orders/A-1', json(401, { message: 'Unauthorized' }), json(200, { data: { orderDetails: orderDetails('A-1') } }));
    const result = await makeClient().getOrder('A-1');
    expect(result?.order.customerOrderId).toBe('A-1');
    expect(tokenRequests()).toBe(2);
    expect(server.requestsTo('GET', '/api/v0/orders/A-1').map((r) => r.headers.authorization)).toEqual(['Bearer token-1', 'Bearer token-2']);
  });

  it('gives up with AuthError (token refused) on a second 401', async () => {
    issueOAuthTokens(server);
    server.route('POST', '/api/v0/orders', json(401, { message: 'Unauthorized' }));
    const error = await makeClient().createOrder(buildOrderPayload('A-1')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect(error).toMatchObject({ reason: 'token', status: 401, stage: 'request' });
    expect(server.requestsTo('POST', '/api/v0/orders')).toHaveLength(2);
    expect(tokenRequests()).toBe(2);
  });

  it('refreshes only once when many concurrent calls meet the same expired token', async () => {
    issueOAuthTokens(server);
    const onlyFresh: Reply = (req, res) =>
      req.headers.authorization === 'Bearer token-1' ? json(401, { message: 'expired' })(req, res) : json(200, { data: [] })(req, res);
    server.route('GET', ITEMS, onlyFresh);
    const client = makeClient();
    await Promise.all(Array.from({ length: 8 }, () => client.listInventory()));
    expect(tokenRequests()).toBe(2);
  });
});

describe('abort while waiting for a token', () => {
  it('rejects that caller with an unsent TransportError and leaves the shared request to the others', async () => {
    let issued = 0;
    server.route('POST', OAUTH, (req, res) => {
      issued++;
      setTimeout(() => json(200, { accessToken: `token-${issued}`, expiresIn: 3600 })(req, res), 40);
    });
    const client = makeClient();
    const controller = new AbortController();
    const aborted = client.listInventory(undefined, { signal: controller.signal }).catch((e: unknown) => e);
    const patient = client.listInventory();
    controller.abort();
    const error = await aborted;
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({ code: 'aborted', isSent: false, stage: 'token' });
    expect((await patient).data).toHaveLength(1);
    expect(tokenRequests()).toBe(1);
  });
});

describe('secrets', () => {
  function expectNoSecret(value: unknown, ...secrets: string[]) {
    const rendered = [inspect(value, { depth: 8, showHidden: true }), JSON.stringify(value), String(value)].join('\n');
    for (const secret of secrets) expect(rendered).not.toContain(secret);
  }

  it('keeps the secret out of a credentials-refused error, even when the server echoes it', async () => {
    server.route('POST', OAUTH, json(401, { message: 'Bad secret very-secret-value for client-7', clientSecret: 'very-secret-value' }));
    const error = await makeClient().listInventory().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthError);
    expectNoSecret(error, 'very-secret-value');
  });

  it('keeps a token out of the error when a token reply is unusable', async () => {
    const jwt = await makeJwt({ exp: Math.floor(T0 / 1000) + 60 });
    server.route('POST', OAUTH, json(200, { access_token: jwt, note: `issued ${jwt}` }));
    const error = await makeClient().listInventory().catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 200, stage: 'token', reason: 'endpoint' });
    expect((error as Error).message).toContain('answered 200 without a usable accessToken, so the API cannot be used');
    expectNoSecret(error, jwt);
  });

  it('keeps a bare-text token reply out of the error', async () => {
    server.route('POST', GET_TOKEN, text(200, 'raw-token-text-abc'));
    const error = await makeClient({ auth: 'getToken' }).listInventory().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpError);
    expectNoSecret(error, 'raw-token-text-abc');
  });

  it('logs exchanges without tokens or secrets', async () => {
    issueOAuthTokens(server);
    server.route('GET', '/api/v0/orders/A-1', json(401, {}), json(200, { data: { orderDetails: orderDetails('A-1') } }));
    const log = recordingLogger('trace');
    const client = makeClient({ logger: log.logger });
    await client.getOrder('A-1');
    await client.createOrder(buildOrderPayload('A-1')).catch(() => undefined);
    expect(log.lines.length).toBeGreaterThan(3);
    expectNoSecret(log.text(), 'very-secret-value', 'token-1', 'token-2');
  });
});
