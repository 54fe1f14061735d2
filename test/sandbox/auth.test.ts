import { decodeJwt, decodeProtectedHeader } from 'jose';
import { FormData, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from './helpers.js';
import { buildOrderPayload } from '../support/order-payload.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(() => sb.close());

async function oauth(fields: Record<string, string>) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  const res = await request(`${sb.url}/api/v0/oauth/token`, { method: 'POST', body: form });
  return { status: res.statusCode, body: (await res.body.json()) as any };
}

function b64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

describe('token endpoints', () => {
  it('issues a bearer JWT for multipart client credentials', async () => {
    const res = await oauth({ GrantType: 'client_credentials', ClientId: 'sandbox-client', ClientSecret: 'sandbox-secret' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ tokenType: 'bearer', expiresIn: 3600, requestId: expect.any(String) });
    expect(decodeProtectedHeader(res.body.accessToken).alg).toBe('HS256');
    const claims = decodeJwt(res.body.accessToken);
    expect(claims.sub).toBe('sandbox-client');
    expect(claims.exp! - claims.iat!).toBe(3600);
    expect(claims.iat! * 1000).toBe(sb.now().getTime());
  });

  it('answers 401 to wrong multipart credentials and 400 to a wrong GrantType', async () => {
    expect((await oauth({ GrantType: 'client_credentials', ClientId: 'sandbox-client', ClientSecret: 'nope' })).status).toBe(401);
    expect((await oauth({ GrantType: 'client_credentials', ClientId: 'someone', ClientSecret: 'sandbox-secret' })).status).toBe(401);
    const bad = await oauth({ GrantType: 'password', ClientId: 'sandbox-client', ClientSecret: 'sandbox-secret' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/GrantType/);
  });

  it('refuses JSON on the multipart token endpoint with 415', async () => {
    const res = await sb.call('POST', '/api/v0/oauth/token', { body: { GrantType: 'client_credentials', ClientId: 'sandbox-client', ClientSecret: 'sandbox-secret' } });
    expect(res.status).toBe(415);
    expect(res.body.message).toMatch(/multipart/);
  });

  it('issues a token for JSON clientId and secret, and 401 for wrong or null ones', async () => {
    const ok = await sb.call('POST', '/api/v0/auth/getToken', { body: { clientId: 'sandbox-client', secret: 'sandbox-secret' } });
    expect(ok.status).toBe(200);
    expect(Object.keys(ok.body).sort()).toEqual(['requestId', 'token']);
    expect((await sb.call('POST', '/api/v0/auth/getToken', { body: { clientId: 'sandbox-client', secret: 'x' } })).status).toBe(401);
    expect((await sb.call('POST', '/api/v0/auth/getToken', { body: { clientId: null, secret: null } })).status).toBe(401);
    expect((await sb.call('POST', '/api/v0/auth/getToken', { body: {} })).status).toBe(401);
    expect((await sb.call('POST', '/api/v0/auth/getToken', { body: { clientId: 7, secret: 'x' } })).status).toBe(400);
  });
});

describe('bearer tokens on secured endpoints', () => {
  it('answers 401 Unauthorized without a token, with a malformed one, or with another scheme', async () => {
    const variants: Record<string, string>[] = [{}, { authorization: 'Bearer' }, { authorization: 'Bearer not.a.jwt' }, { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }];
    for (const headers of variants) {
      const res = await sb.call('GET', '/api/v0/orders', { headers });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: 'Unauthorized', requestId: expect.any(String) });
      expect(res.headers['www-authenticate']).toBe('Bearer');
    }
  });

  it('answers 401 to a token whose payload was tampered with', async () => {
    const token = await sb.token();
    const [header, , signature] = token.split('.');
    const claims = decodeJwt(token);
    const forged = `${header}.${b64url({ ...claims, sub: 'sandbox-client', scope: 'orders:read orders:write', exp: claims.exp! + 10 })}.${signature}`;
    expect((await sb.call('GET', '/api/v0/orders', { token: forged })).status).toBe(401);
  });

  it("answers 401 to an unsigned token (alg 'none')", async () => {
    const claims = decodeJwt(await sb.token());
    const unsigned = `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(claims)}.`;
    expect((await sb.call('GET', '/api/v0/orders', { token: unsigned })).status).toBe(401);
  });

  it('expires tokens on the sandbox clock: valid just before the TTL, 401 at it', async () => {
    const own = await startTestSandbox({ tokenTtlSeconds: 120 });
    try {
      const token = await own.token();
      own.advanceClock(119 / 3600);
      expect((await own.call('GET', '/api/v0/orders', { token })).status).toBe(200);
      own.advanceClock(1 / 3600);
      expect((await own.call('GET', '/api/v0/orders', { token })).status).toBe(401);
      expect((await own.call('GET', '/api/v0/orders', { token: await own.token() })).status).toBe(200);
    } finally {
      await own.close();
    }
  });

  it('lets the read-only client read but answers 403 Forbidden when it creates an order', async () => {
    const read = await sb.readToken();
    expect((await sb.call('GET', '/api/v0/inventory/items', { token: read })).status).toBe(200);
    const res = await sb.call('POST', '/api/v0/orders', { token: read, body: buildOrderPayload('RO-1') });
    expect(res.status).toBe(403);
    expect(res.body.message).toBe('Forbidden');
    expect(sb.stats().orders).toBe(0);
  });

  it('takes configured credentials and token lifetime', async () => {
    const own = await startTestSandbox({ clientId: 'me', clientSecret: 's3cret', readOnlyClient: { clientId: 'viewer', clientSecret: 'v' }, tokenTtlSeconds: 60 });
    try {
      expect((await own.call('POST', '/api/v0/auth/getToken', { body: { clientId: 'sandbox-client', secret: 'sandbox-secret' } })).status).toBe(401);
      const res = await own.call('POST', '/api/v0/auth/getToken', { body: { clientId: 'me', secret: 's3cret' } });
      const claims = decodeJwt(res.body.token);
      expect(claims.exp! - claims.iat!).toBe(60);
      expect((await own.call('POST', '/api/v0/auth/getToken', { body: { clientId: 'viewer', secret: 'v' } })).status).toBe(200);
    } finally {
      await own.close();
    }
  });
});
