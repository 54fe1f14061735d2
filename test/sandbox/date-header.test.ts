/**
 * The sandbox's answers carry its simulated clock in the HTTP Date header (node would send the
 * real time): a client can then tell what time the API thinks it is, after the clock was moved too.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { httpDateOf } from '../../src/sandbox/http/respond.js';
import { HOUR, START_MS, startTestSandbox, type TestSandbox } from './helpers.js';

const httpDate = (ms: number) => new Date(ms).toUTCString();
let sandbox: TestSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

describe('the Date header', () => {
  it('is the simulated time in IMF-fixdate, to the second', () => {
    expect(httpDateOf(Date.parse('2031-03-10T15:00:00.999Z'))).toBe('Mon, 10 Mar 2031 15:00:00 GMT');
    expect(httpDateOf(Date.parse('2031-03-10T15:00:01.000Z'))).toBe('Mon, 10 Mar 2031 15:00:01 GMT');
  });

  it('tells the simulated clock on every kind of answer, and follows it when it moves', async () => {
    sandbox = await startTestSandbox();
    const dates = async () => {
      // A fresh token each time: one issued before the clock moved has expired.
      const token = await sandbox!.token();
      return [
        await sandbox!.call('POST', '/api/v0/auth/getToken', { body: { clientId: sandbox!.clientId, secret: sandbox!.clientSecret } }),
        await sandbox!.call('GET', '/api/v0/orders/NOPE', { token }),
        await sandbox!.call('GET', '/api/v0/orders/NOPE/packages', { token }),
        await sandbox!.call('GET', '/api/v0/shipments/tracking-updates?hours=1', { token }),
        await sandbox!.call('GET', '/api/v0/orders', { token: null }),
        await sandbox!.call('PUT', '/api/v0/orders'),
        await sandbox!.call('GET', '/no/such/endpoint'),
        await sandbox!.call('GET', '/sandbox/clock'),
      ].map((reply) => [reply.status, reply.headers.date]);
    };
    expect(await dates()).toEqual([200, 404, 404, 200, 401, 405, 404, 200].map((status) => [status, httpDate(START_MS)]));

    const moved = await sandbox.call('POST', '/sandbox/clock', { body: { advanceHours: 50 } });
    // The answer that moved the clock already tells the new time.
    expect(moved.headers.date).toBe(httpDate(START_MS + 50 * HOUR));
    expect(await dates()).toEqual([200, 404, 404, 200, 401, 405, 404, 200].map((status) => [status, httpDate(START_MS + 50 * HOUR)]));
  });

  it('is the simulated time on injected errors, after injected latency and with request logging on', async () => {
    sandbox = await startTestSandbox({ logRequests: true });
    sandbox.advanceClock(24 * 400);
    const expected = httpDate(START_MS + 24 * 400 * HOUR);
    expect((await sandbox.call('GET', '/sandbox/stats')).headers.date).toBe(expected);
    await sandbox.call('POST', '/sandbox/faults', { body: { errorRate: 1, latencyMs: 20, statuses: [503], paths: ['/api/v0/orders'] } });
    const failed = await sandbox.call('GET', '/api/v0/orders');
    expect([failed.status, failed.headers.date]).toEqual([503, expected]);
  });
});
