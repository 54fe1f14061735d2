import { describe, expect, it } from 'vitest';
import { createTokenCache, redactTokens, tokenExpiresAtMs } from '../../src/api/token.js';
import { makeJwt } from '../support/test-server.js';

const NOW = Date.parse('2031-02-03T04:05:06Z');
const nowSeconds = Math.floor(NOW / 1000);

describe('tokenExpiresAtMs', () => {
  it('prefers expiresIn from the oauth answer', async () => {
    expect(tokenExpiresAtMs(await makeJwt({ exp: nowSeconds + 10 }), 3600, NOW)).toBe(NOW + 3_600_000);
  });

  it('uses exp - iat from the local clock, whatever the server clock says', async () => {
    const skewed = nowSeconds - 7200; // server two hours behind
    expect(tokenExpiresAtMs(await makeJwt({ iat: skewed, exp: skewed + 900 }), undefined, NOW)).toBe(NOW + 900_000);
  });

  it('uses exp itself when there is no iat', async () => {
    expect(tokenExpiresAtMs(await makeJwt({ exp: nowSeconds + 120 }), undefined, NOW)).toBe((nowSeconds + 120) * 1000);
  });

  it('falls back to 3600 s for no exp, an exp already past, or a token that is not a JWT', async () => {
    expect(tokenExpiresAtMs(await makeJwt({}), undefined, NOW)).toBe(NOW + 3_600_000);
    expect(tokenExpiresAtMs(await makeJwt({ exp: nowSeconds - 5 }), undefined, NOW)).toBe(NOW + 3_600_000);
    expect(tokenExpiresAtMs('not-a-jwt', undefined, NOW)).toBe(NOW + 3_600_000);
    expect(tokenExpiresAtMs('not-a-jwt', 0, NOW)).toBe(NOW + 3_600_000);
  });
});

describe('createTokenCache', () => {
  it('fetches once, then again only when invalidated with the token it holds', async () => {
    let n = 0;
    const cache = createTokenCache({ fetchToken: async () => ({ token: `t${++n}`, expiresAtMs: NOW + 3_600_000 }), now: () => NOW, refreshMarginMs: 60_000 });
    expect(await cache.getToken()).toBe('t1');
    cache.invalidate('some-older-token');
    expect(await cache.getToken()).toBe('t1');
    cache.invalidate('t1');
    expect(await cache.getToken()).toBe('t2');
  });

  it('lets the next caller try again after a failed fetch', async () => {
    let n = 0;
    const cache = createTokenCache({
      fetchToken: async () => {
        if (++n === 1) throw new Error('token endpoint down');
        return { token: 'ok', expiresAtMs: NOW + 3_600_000 };
      },
      now: () => NOW,
      refreshMarginMs: 60_000,
    });
    await expect(cache.getToken()).rejects.toThrow('token endpoint down');
    expect(await cache.getToken()).toBe('ok');
  });
});

describe('redactTokens', () => {
  it('blanks token- and secret-named fields, JWT-looking text and the given secrets', async () => {
    const jwt = await makeJwt({ exp: nowSeconds });
    expect(
      redactTokens({ accessToken: 'abc', nested: { client_secret: 'x', note: `got ${jwt} for s3cret-value` }, list: ['s3cret-value'], count: 3 }, ['s3cret-value']),
    ).toEqual({ accessToken: '[redacted]', nested: { client_secret: '[redacted]', note: 'got [redacted] for [redacted]' }, list: ['[redacted]'], count: 3 });
  });
});
