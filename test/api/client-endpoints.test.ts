import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { HttpError } from '../../src/api/errors.js';
import type { ApiClient } from '../../src/api/types.js';
import { inventoryItem, orderDetails, packageRecord } from './fixtures.js';
import { buildOrderPayload } from '../support/order-payload.js';
import { issueOAuthTokens, json, startTestServer, text, type TestServer } from '../support/test-server.js';

let server: TestServer;
let client: ApiClient;

beforeEach(async () => {
  server = await startTestServer();
  issueOAuthTokens(server);
  client = createApiClient({ baseUrl: server.url, clientId: 'id-1', clientSecret: 'secret-1', now: () => Date.parse('2030-01-01T00:00:00Z') });
});

afterEach(async () => {
  await client.close();
  await server.close();
});

const last = () => server.requests[server.requests.length - 1]!;

describe('createOrder', () => {
  it('POSTs the payload as JSON to /api/v0/orders with the bearer token', async () => {
    server.route('POST', '/api/v0/orders', json(201, { data: { orderDetails: orderDetails('A-1') }, requestId: 'req-1' }));
    const result = await client.createOrder(buildOrderPayload('A-1'));
    expect(result).toEqual({ status: 201, requestId: 'req-1', order: expect.objectContaining({ customerOrderId: 'A-1' }) });
    const request = last();
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/api/v0/orders');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers.accept).toBe('application/json');
    expect(request.headers.authorization).toBe('Bearer token-1');
    expect(JSON.parse(request.text)).toEqual(buildOrderPayload('A-1'));
  });

  it('sends the JSON text it is given for the payload as it is', async () => {
    server.route('POST', '/api/v0/orders', json(201, { data: { orderDetails: orderDetails('A-2') }, requestId: 'req-2' }));
    const json2 = JSON.stringify(buildOrderPayload('A-2'), null, 1);
    expect((await client.createOrder(buildOrderPayload('A-2'), { json: json2 })).status).toBe(201);
    expect(last().text).toBe(json2);
  });

  it('still reports an accepted order whose answer cannot be read', async () => {
    server.route('POST', '/api/v0/orders', text(201, 'Created', 'text/plain', { 'x-request-id': 'hdr-9' }));
    expect(await client.createOrder(buildOrderPayload('A-1'))).toEqual({ status: 201, requestId: 'hdr-9' });
  });

  it('throws an HttpError with the status and the message of a rejection', async () => {
    server.route('POST', '/api/v0/orders', json(409, { message: "Order 'A-1' already exists.", requestId: 'req-409' }));
    const error = await client.createOrder(buildOrderPayload('A-1')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpError);
    expect(error).toMatchObject({ status: 409, message: "Order 'A-1' already exists.", requestId: 'req-409', method: 'POST', url: `${server.url}/api/v0/orders` });
  });
});

describe('getOrder', () => {
  it('GETs /api/v0/orders/<id> with the id URL-encoded', async () => {
    server.route('GET', '/api/v0/orders/A%2F1%20%23x%3F', json(200, { data: { orderDetails: orderDetails('A/1 #x?') }, requestId: 'req-2' }));
    const result = await client.getOrder('A/1 #x?');
    expect(result?.order.customerOrderId).toBe('A/1 #x?');
    expect(result?.requestId).toBe('req-2');
    expect(last().method).toBe('GET');
  });

  it('encodes the dot-segment ids "." and ".." so no one resolves them away', async () => {
    server.route('GET', '/api/v0/orders/%2E%2E', json(200, { data: { orderDetails: orderDetails('..') } }));
    expect((await client.getOrder('..'))?.order.customerOrderId).toBe('..');
  });

  it('answers null for a 404', async () => {
    server.route('GET', '/api/v0/orders/NOPE', json(404, { message: 'not found' }));
    expect(await client.getOrder('NOPE')).toBeNull();
  });

  it('keeps fields the contract does not know (lenient reading)', async () => {
    server.route('GET', '/api/v0/orders/A-1', json(200, { data: { orderDetails: { ...orderDetails(), brandNew: 42 } } }));
    expect((await client.getOrder('A-1'))?.order).toMatchObject({ brandNew: 42 });
  });

  it('throws an HttpError naming the problem when a 200 body is malformed JSON', async () => {
    server.route('GET', '/api/v0/orders/A-1', text(200, '{"data": {', 'application/json'));
    const error = await client.getOrder('A-1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpError);
    expect(error).toMatchObject({ status: 200, message: 'The API answered 200 OK but the body is not JSON', body: '{"data": {' });
  });

  it('throws an HttpError naming the missing field when a 200 body has the wrong shape', async () => {
    server.route('GET', '/api/v0/orders/A-1', json(200, { data: { orderDetails: { customerOrderId: 'A-1' } } }));
    const error = (await client.getOrder('A-1').catch((e: unknown) => e)) as HttpError;
    expect(error).toBeInstanceOf(HttpError);
    expect(error.message).toMatch(/^The API answered 200 OK but the body is not the expected shape: data\.orderDetails\.lineItems: /);
  });

  it('throws an HttpError for an empty 200 body', async () => {
    server.route('GET', '/api/v0/orders/A-1', text(200, ''));
    await expect(client.getOrder('A-1')).rejects.toThrow('The API answered 200 OK but with an empty body');
  });
});

describe('listOrders', () => {
  it('sends lastDays and repeats each disposition parameter', async () => {
    server.route('GET', '/api/v0/orders', json(200, { data: [{ orderDetails: orderDetails('A-1') }, { orderDetails: orderDetails('A-2') }], requestId: 'req-3' }));
    const page = await client.listOrders({ lastDays: 90, orderDisposition: ['api', 'replacement'], orderLineItemDisposition: ['out_of_stock', 'fraud'] });
    expect(page.data.map((o) => o.customerOrderId)).toEqual(['A-1', 'A-2']);
    expect(page.requestId).toBe('req-3');
    expect(page.pagination).toBeUndefined();
    const { query } = last();
    expect(query.get('lastDays')).toBe('90');
    expect(query.getAll('orderDisposition')).toEqual(['api', 'replacement']);
    expect(query.getAll('orderLineItemDisposition')).toEqual(['out_of_stock', 'fraud']);
  });

  it('sends no query at all when given none', async () => {
    server.route('GET', '/api/v0/orders', json(200, { data: [], pagination: null }));
    expect(await client.listOrders()).toEqual({ data: [] });
    expect([...last().query.keys()]).toEqual([]);
  });
});

describe('eachListedOrder', () => {
  it('hands over each order as the answer arrives, in slices that cut orders apart', async () => {
    const body = JSON.stringify({ requestId: 'req-5', data: Array.from({ length: 50 }, (_, i) => ({ orderDetails: orderDetails(`S-${i}`) })) });
    server.route('GET', '/api/v0/orders', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const bytes = Buffer.from(body);
      // Slices of 777 bytes, each on its own turn: no order arrives whole in one chunk.
      let at = 0;
      const next = () => {
        if (at >= bytes.length) return void res.end();
        res.write(bytes.subarray(at, (at += 777)));
        setImmediate(next);
      };
      next();
    });
    const seen: string[] = [];
    const listed = await client.eachListedOrder({ lastDays: 5, orderDisposition: ['all'] }, (order) => seen.push(order.customerOrderId));
    expect(listed).toEqual({ orders: 50 });
    expect(seen).toEqual(Array.from({ length: 50 }, (_, i) => `S-${i}`));
    expect(last().query.get('lastDays')).toBe('5');
  });

  it('says which order is not the expected shape, and that an answer cut short is unusable', async () => {
    server.route('GET', '/api/v0/orders', json(200, { data: [{ orderDetails: orderDetails('A-1') }, { orderDetails: { orderDate: 'x' } }] }));
    await expect(client.eachListedOrder({}, () => undefined)).rejects.toThrow(/answered 200 OK but data\[1\] is not the expected shape: orderDetails\.customerOrderId/);
    server.route('GET', '/api/v0/orders', text(200, '{"data":[{"orderDetails":', 'application/json'));
    await expect(client.eachListedOrder({}, () => undefined)).rejects.toThrow('the answer ends before its JSON does');
  });

  it('throws the HttpError of a refusal, as listOrders does', async () => {
    server.route('GET', '/api/v0/orders', json(400, { message: 'lastDays must be at most 365' }));
    await expect(client.eachListedOrder({ lastDays: 400 }, () => undefined)).rejects.toMatchObject({ status: 400, message: 'lastDays must be at most 365' });
  });
});

describe('getPackages', () => {
  it('GETs /api/v0/orders/<id>/packages and reads package records', async () => {
    server.route('GET', '/api/v0/orders/A%201/packages', json(200, { data: [packageRecord('A 1')], requestId: 'req-4' }));
    const page = await client.getPackages('A 1');
    expect(page.data[0]).toMatchObject({ packageId: 'PKG-1', customerOrderId: 'A 1', trackingDetail: { trackingNumber: '1Z999' } });
  });

  it('defaults missing tracking events to an empty list', async () => {
    const record = packageRecord();
    const { trackingEvents: _dropped, ...detail } = record.trackingDetail;
    server.route('GET', '/api/v0/orders/A-1/packages', json(200, { data: [{ ...record, trackingDetail: detail }] }));
    expect((await client.getPackages('A-1')).data[0]?.trackingDetail.trackingEvents).toEqual([]);
  });
});

describe('getTrackingUpdates', () => {
  it('asks for the last hours', async () => {
    server.route('GET', '/api/v0/shipments/tracking-updates', json(200, { data: [packageRecord()], requestId: 'req-5' }));
    await client.getTrackingUpdates({ hours: 48 });
    expect(Object.fromEntries(last().query)).toEqual({ hours: '48' });
  });

  it('asks for a period with searchBy and pagination, and returns the pagination', async () => {
    server.route('GET', '/api/v0/shipments/tracking-updates', json(200, { data: [packageRecord()], pagination: { page: 2, totalPages: 5 }, requestId: 'r' }));
    const page = await client.getTrackingUpdates({
      searchBy: 'replaced',
      startDate: '2030-01-01T00:00:00+01:00',
      endDate: '2030-01-02T00:00:00+01:00',
      pageNumber: 2,
      itemsPerPage: 100,
    });
    expect(page.pagination).toEqual({ page: 2, totalPages: 5 });
    expect(Object.fromEntries(last().query)).toEqual({
      searchBy: 'replaced',
      startDate: '2030-01-01T00:00:00+01:00',
      endDate: '2030-01-02T00:00:00+01:00',
      pageNumber: '2',
      itemsPerPage: '100',
    });
  });

  it('leaves searchBy out when not given (the server defaults to updated)', async () => {
    server.route('GET', '/api/v0/shipments/tracking-updates', json(200, { data: [] }));
    await client.getTrackingUpdates({ startDate: '2030-01-01T00:00:00Z', endDate: '2030-01-02T00:00:00Z' });
    expect(last().query.has('searchBy')).toBe(false);
  });
});

describe('fetchTrackingUpdates', () => {
  it('gives the same page as getTrackingUpdates once parsed', async () => {
    server.route('GET', '/api/v0/shipments/tracking-updates', json(200, { data: [packageRecord()], pagination: { page: 1, totalPages: 3 }, requestId: 'r' }));
    const unparsed = await client.fetchTrackingUpdates({ hours: 48 });
    expect(unparsed.parse()).toEqual(await client.getTrackingUpdates({ hours: 48 }));
  });

  it('throws an error status at once, and a bad body only when parsed', async () => {
    server.route('GET', '/api/v0/shipments/tracking-updates', json(503, { message: 'busy' }));
    const failed = await client.fetchTrackingUpdates({ hours: 48 }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(HttpError);
    expect((failed as HttpError).status).toBe(503);

    server.route('GET', '/api/v0/shipments/tracking-updates', json(200, { data: [{ packageId: 7 }] }));
    const unparsed = await client.fetchTrackingUpdates({ hours: 48 });
    expect(() => unparsed.parse()).toThrow(/not the expected shape/);
  });
});

describe('listInventory', () => {
  it('GETs /api/v0/inventory/items with paging and a product filter', async () => {
    server.route('GET', '/api/v0/inventory/items', json(200, { data: [inventoryItem('P-1')], pagination: { page: 1, totalPages: 1 }, requestId: 'r' }));
    const page = await client.listInventory({ pageNumber: 1, itemsPerPage: 50, productId: 'P-1' });
    expect(page.data).toEqual([inventoryItem('P-1')]);
    expect(Object.fromEntries(last().query)).toEqual({ pageNumber: '1', itemsPerPage: '50', productId: 'P-1' });
  });
});

describe('base URL', () => {
  it('keeps a path prefix of the base URL in front of every path', async () => {
    const prefixed = createApiClient({ baseUrl: `${server.url}/gateway/`, clientId: 'id', clientSecret: 'secret' });
    server.route('POST', '/gateway/api/v0/oauth/token', json(200, { accessToken: 'gw-token', tokenType: 'bearer', expiresIn: 3600 }));
    server.route('GET', '/gateway/api/v0/inventory/items', json(200, { data: [] }));
    try {
      await prefixed.listInventory();
      expect(last().path).toBe('/gateway/api/v0/inventory/items');
      expect(last().headers.authorization).toBe('Bearer gw-token');
    } finally {
      await prefixed.close();
    }
  });
});
