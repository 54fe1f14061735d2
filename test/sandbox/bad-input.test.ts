import { FormData, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from './helpers.js';
import { buildOrderPayload } from '../support/order-payload.js';

let sb: TestSandbox;
let token: string;
beforeAll(async () => {
  sb = await startTestSandbox();
  token = await sb.token();
});
afterAll(() => sb.close());

function expectErrorBody(res: { body: any; headers: Record<string, unknown> }) {
  expect(res.body).toEqual(expect.objectContaining({ message: expect.any(String), requestId: expect.any(String) }));
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
}

describe('bad input gets a 4xx with a message, never a 500', () => {
  it('answers 400 to malformed JSON and to an empty JSON body', async () => {
    const broken = await sb.call('POST', '/api/v0/orders', { raw: '{"orderDetails": ', headers: { 'content-type': 'application/json' }, token });
    expect(broken.status).toBe(400);
    expect(broken.body.message).toBe('Request body is not valid JSON.');
    const empty = await sb.call('POST', '/api/v0/orders', { raw: '', headers: { 'content-type': 'application/json' }, token });
    expect(empty.status).toBe(400);
    expectErrorBody(empty);
  });

  it('answers 415 to a body that is not JSON', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const res = await sb.call('POST', '/api/v0/orders', { raw: 'a=b', headers: { 'content-type': type }, token });
      expect(res.status, type).toBe(415);
      expect(res.body.message).toContain(type);
    }
    const form = new FormData();
    form.set('orderDetails', '{}');
    const multipart = await request(`${sb.url}/api/v0/orders`, { method: 'POST', body: form, headers: { authorization: `Bearer ${token}` } });
    expect(multipart.statusCode).toBe(415);
    await multipart.body.text();
  });

  it('answers 400 to a token request whose multipart body cannot be read', async () => {
    const field = (name: string, value: string) => `--XX\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
    const form = `${field('GrantType', 'client_credentials')}${field('ClientId', 'sandbox-client')}${field('ClientSecret', 'sandbox-secret')}--XX--\r\n`;
    const cases: [string, string, string][] = [
      ['a body that is not multipart', 'multipart/form-data; boundary=XX', 'GrantType=client_credentials'],
      ['a body cut short', 'multipart/form-data; boundary=XX', form.slice(0, 70)],
      ['a multipart type without a boundary', 'multipart/form-data', form],
      ['another boundary than the body uses', 'multipart/form-data; boundary=YY', form],
      ['a file', 'multipart/form-data; boundary=XX', '--XX\r\nContent-Disposition: form-data; name="f"; filename="a.txt"\r\n\r\nx\r\n--XX--\r\n'],
      ['more parts than the form has', 'multipart/form-data; boundary=XX', `${Array.from({ length: 12 }, (_, i) => field(`F${i}`, 'x')).join('')}--XX--\r\n`],
    ];
    for (const [what, type, body] of cases) {
      const res = await sb.call('POST', '/api/v0/oauth/token', { raw: body, headers: { 'content-type': type } });
      expect(res.status, what).toBe(400);
      expectErrorBody(res);
      expect(res.body.message, what).toContain('multipart/form-data with GrantType, ClientId and ClientSecret');
    }
    // A part whose header is no header is passed over, like any part that is not one of the form's fields.
    const headless = await sb.call('POST', '/api/v0/oauth/token', { raw: '--XX\r\nnot a header\r\n\r\nx\r\n--XX--\r\n', headers: { 'content-type': 'multipart/form-data; boundary=XX' } });
    expect(headless.status).toBe(400);
    expect(headless.body.message).toBe("GrantType must be 'client_credentials'.");
    // The same form, whole and with its boundary, still gets a token.
    const whole = await sb.call('POST', '/api/v0/oauth/token', { raw: form, headers: { 'content-type': 'multipart/form-data; boundary=XX' } });
    expect(whole.status).toBe(200);
    expect(whole.body.accessToken).toEqual(expect.any(String));
  });

  it('answers 413 to a body over 1 MiB', async () => {
    const huge = JSON.stringify({ ...buildOrderPayload('BIG-1'), padding: 'x'.repeat(1_100_000) });
    const res = await sb.call('POST', '/api/v0/orders', { raw: huge, headers: { 'content-type': 'application/json' }, token });
    expect(res.status).toBe(413);
    expectErrorBody(res);
  });

  it('answers 404 to unknown paths, inside and outside /api/v0', async () => {
    for (const path of ['/', '/api/v0', '/api/v0/nope', '/api/v1/orders', '/sandbox/nothing', '/api/v0/orders/X/packages/Y']) {
      const res = await sb.call('GET', path, { token });
      expect(res.status, path).toBe(404);
      expectErrorBody(res);
    }
  });

  it('answers 405 with Allow to a known path with the wrong method, before reading the body', async () => {
    const cases: [string, string, string][] = [
      ['DELETE', '/api/v0/orders/X', 'GET'],
      ['PUT', '/api/v0/orders', 'GET, POST'],
      ['GET', '/api/v0/oauth/token', 'POST'],
      ['PATCH', '/sandbox/stats', 'GET'],
      ['GET', '/sandbox/reset', 'POST'],
    ];
    for (const [method, path, allow] of cases) {
      const res = await sb.call(method, path, { token, raw: '{broken', headers: { 'content-type': 'application/json' } });
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.headers.allow).toBe(allow);
      expectErrorBody(res);
    }
  });

  it('answers 400 to a URL with broken percent-encoding', async () => {
    const res = await sb.call('GET', '/api/v0/orders/%E0%A4%A', { token });
    expect(res.status).toBe(400);
    expect(res.body.message).toEqual(expect.any(String));
  });

  it('survives hostile JSON: prototype keys, deep nesting, wrong types everywhere', async () => {
    const bodies = [
      '{"__proto__": {"admin": true}, "orderDetails": {"customerOrderId": "P-1"}}',
      '{"constructor": {"prototype": {"x": 1}}}',
      `${'['.repeat(5000)}${']'.repeat(5000)}`,
      JSON.stringify({ customerDetails: 'x', orderDetails: [], orderShippingDetails: 3 }),
      JSON.stringify({ orderDetails: { customerOrderId: { $gt: '' }, lineItems: [null, 1, 'x'] } }),
    ];
    for (const raw of bodies) {
      const res = await sb.call('POST', '/api/v0/orders', { raw, headers: { 'content-type': 'application/json' }, token });
      expect(res.status, raw.slice(0, 40)).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
    }
  });
});

describe('content negotiation', () => {
  it('answers JSON text as application/json (default), text/json or text/plain as asked', async () => {
    for (const [accept, type] of [
      [undefined, 'application/json'],
      ['application/json', 'application/json'],
      ['text/json', 'text/json'],
      ['text/plain', 'text/plain'],
      ['*/*', 'application/json'],
      ['text/html, text/plain;q=0.5', 'text/plain'],
    ] as const) {
      const res = await sb.call('GET', '/api/v0/inventory/items?itemsPerPage=1', { token, headers: accept ? { accept } : {} });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe(`${type}; charset=utf-8`);
      expect(res.body.data).toHaveLength(1);
    }
  });

  it('answers 406 when none of its types is acceptable', async () => {
    const res = await sb.call('GET', '/api/v0/inventory/items', { token, headers: { accept: 'application/xml' } });
    expect(res.status).toBe(406);
    expectErrorBody(res);
  });

  it('puts a requestId on every answer, in the body and the x-request-id header', async () => {
    const res = await sb.call('GET', '/api/v0/orders', { token });
    expect(res.headers['x-request-id']).toBe(res.body.requestId);
    const other = await sb.call('GET', '/api/v0/orders', { token });
    expect(other.body.requestId).not.toBe(res.body.requestId);
  });
});

describe('sandbox controls', () => {
  it('reads and moves the clock, refusing to move it backwards', async () => {
    const own = await startTestSandbox();
    try {
      const before = (await own.call('GET', '/sandbox/clock')).body.now;
      const moved = await own.call('POST', '/sandbox/clock', { body: { advanceHours: 1.5 } });
      expect(Date.parse(moved.body.now) - Date.parse(before)).toBe(5_400_000);
      expect(own.now().toISOString()).toBe(moved.body.now);
      for (const body of [{ advanceHours: -1 }, { advanceHours: 'x' }, {}, { hours: 1 }]) {
        expect((await own.call('POST', '/sandbox/clock', { body })).status).toBe(400);
      }
      expect(() => own.advanceClock(-1)).toThrow(RangeError);
    } finally {
      await own.close();
    }
  });

  it('reports stats and forgets everything on reset', async () => {
    const own = await startTestSandbox();
    try {
      expect((await own.create(buildOrderPayload('S-1', { lines: [{ quantity: 2 }, { productId: 'PRD-1002' }] }))).status).toBe(201);
      expect((await own.create(buildOrderPayload('S-1'))).status).toBe(409);
      const stats = (await own.call('GET', '/sandbox/stats')).body;
      expect(stats).toEqual({ orders: 1, postsReceived: 2, duplicatesRejected: 1, maxPostsInFlight: 1, byStatus: { 'Waiting to Clear': 2 }, requestId: expect.any(String) });
      expect((await own.call('POST', '/sandbox/reset')).status).toBe(200);
      expect(own.stats()).toEqual({ orders: 0, postsReceived: 0, duplicatesRejected: 0, maxPostsInFlight: 0, byStatus: {} });
      expect((await own.create(buildOrderPayload('S-1'))).status).toBe(201);
    } finally {
      await own.close();
    }
  });
});
