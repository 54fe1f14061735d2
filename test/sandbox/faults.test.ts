import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from './helpers.js';
import { buildOrderPayload } from '../support/order-payload.js';

/**
 * The real time the sandbox's latency is measured in, moved by the test: an answer held back waits
 * for advance(), never for the wall clock.
 */
function manualLatencyClock() {
  let nowMs = 0;
  let timers: { dueMs: number; run: () => void }[] = [];
  /** A few turns of the event loop: room for an answer written now to reach the client. */
  const settle = async () => {
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
  };
  return {
    now: () => nowMs,
    setTimer(run: () => void, ms: number) {
      const timer = { dueMs: nowMs + ms, run };
      timers.push(timer);
      return { cancel: () => void (timers = timers.filter((t) => t !== timer)) };
    },
    /** Resolves once an answer is held back, waiting for its time. */
    async untilWaiting() {
      while (timers.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    },
    async advance(ms: number) {
      nowMs += ms;
      const due = timers.filter((t) => t.dueMs <= nowMs);
      timers = timers.filter((t) => t.dueMs > nowMs);
      for (const timer of due) timer.run();
      await settle();
    },
  };
}

let sb: TestSandbox | undefined;
afterEach(async () => {
  await sb?.close();
  sb = undefined;
});

/** The outcome of one request: its status, or 'dropped' when the connection ended without an answer. */
async function outcome(promise: Promise<{ status: number }>): Promise<number | 'dropped'> {
  try {
    return (await promise).status;
  } catch {
    return 'dropped';
  }
}

describe('fault injection', () => {
  it('answers a share of requests 429 with Retry-After: 1, storing nothing', async () => {
    sb = await startTestSandbox();
    const token = await sb.token();
    sb.setFaults({ errorRate: 1, statuses: [429] });
    const res = await sb.call('POST', '/api/v0/orders', { body: buildOrderPayload('F-1'), token });
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.body).toEqual({ message: expect.stringMatching(/Too Many Requests/), requestId: expect.any(String) });
    expect(sb.stats()).toMatchObject({ orders: 0, postsReceived: 1 });
  });

  it('draws 429, 503 and 500 from a sequence that repeats for the seed', async () => {
    sb = await startTestSandbox();
    const token = await sb.token();
    const run = async () => {
      sb!.setFaults({ errorRate: 0.6 });
      const seen: number[] = [];
      for (let i = 0; i < 40; i++) seen.push((await sb!.call('GET', '/api/v0/inventory/items?itemsPerPage=1', { token })).status);
      return seen;
    };
    const first = await run();
    expect(new Set(first)).toEqual(new Set([200, 429, 503, 500]));
    expect(await run()).toEqual(first);
  });

  it('drops the connection without storing the order for a reset', async () => {
    sb = await startTestSandbox();
    const token = await sb.token();
    sb.setFaults({ resetRate: 1 });
    expect(await outcome(sb.call('POST', '/api/v0/orders', { body: buildOrderPayload('F-2'), token }))).toBe('dropped');
    sb.setFaults({});
    expect(sb.stats()).toMatchObject({ orders: 0, postsReceived: 1 });
    expect((await sb.call('GET', '/api/v0/orders/F-2', { token })).status).toBe(404);
  });

  it('stores the order and then loses the reply (the order is there when looked up)', async () => {
    sb = await startTestSandbox();
    const token = await sb.token();
    sb.setFaults({ lostReplyRate: 1, paths: ['/api/v0/orders'] });
    expect(await outcome(sb.call('POST', '/api/v0/orders', { body: buildOrderPayload('F-3'), token }))).toBe('dropped');
    sb.setFaults({});
    expect((await sb.call('GET', '/api/v0/orders/F-3', { token })).status).toBe(200);
    const again = await sb.call('POST', '/api/v0/orders', { body: buildOrderPayload('F-3'), token });
    expect(again.status).toBe(409);
  });

  it('delays answers by latencyMs: a slow answer is still pending once the request has arrived', async () => {
    sb = await startTestSandbox();
    const token = await sb.token();
    sb.setFaults({ latencyMs: 60_000, paths: ['/api/v0/orders'] });
    let settled = false;
    const pending = outcome(sb.call('POST', '/api/v0/orders', { body: buildOrderPayload('F-4'), token })).finally(() => (settled = true));
    while (sb.stats().postsReceived === 0) await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    expect((await sb.call('GET', '/api/v0/inventory/items?itemsPerPage=1', { token })).status).toBe(200);
    await sb.close();
    expect(await pending).toBe('dropped');
  });

  it('answers latencyMs after the request arrived, never sooner, and does the work meanwhile', async () => {
    const clock = manualLatencyClock();
    sb = await startTestSandbox({ latencyClock: clock });
    const token = await sb.token();
    sb.setFaults({ latencyMs: 300, paths: ['/api/v0/orders'] });
    let isAnswered = false;
    const pending = sb.call('POST', '/api/v0/orders', { body: buildOrderPayload('F-5'), token }).finally(() => (isAnswered = true));
    // The order is stored while its answer waits, as a remote API's would be before the reply travels back.
    await clock.untilWaiting();
    expect(sb.stats().orders).toBe(1);
    await clock.advance(299);
    expect(isAnswered).toBe(false);
    await clock.advance(1);
    expect((await pending).status).toBe(201);
    // Errors wait as long as answers do.
    sb.setFaults({ latencyMs: 200, errorRate: 1, statuses: [503], paths: ['/api/v0/orders'] });
    let isRefused = false;
    const refused = sb.call('POST', '/api/v0/orders', { body: buildOrderPayload('F-6'), token }).finally(() => (isRefused = true));
    await clock.untilWaiting();
    await clock.advance(199);
    expect(isRefused).toBe(false);
    await clock.advance(1);
    expect((await refused).status).toBe(503);
  });

  it('limits faults to the given path prefixes and never touches /sandbox/ controls', async () => {
    sb = await startTestSandbox();
    sb.setFaults({ errorRate: 1, paths: ['/api/v0/orders'] });
    const token = await sb.token();
    expect((await sb.call('GET', '/api/v0/inventory/items?itemsPerPage=1', { token })).status).toBe(200);
    expect((await sb.call('GET', '/api/v0/orders', { token })).status).toBeGreaterThanOrEqual(429);
    sb.setFaults({ errorRate: 1 });
    expect((await sb.call('GET', '/sandbox/stats')).status).toBe(200);
    expect((await sb.call('POST', '/api/v0/auth/getToken', { body: { clientId: 'sandbox-client', secret: 'sandbox-secret' } })).status).toBeGreaterThanOrEqual(429);
  });

  it('is set, read and cleared under /sandbox/faults, refusing bad settings with 400', async () => {
    sb = await startTestSandbox();
    const set = await sb.call('POST', '/sandbox/faults', { body: { errorRate: 0.5, resetRate: 0.1, latencyMs: 5, paths: ['/api/v0/orders'] } });
    expect(set.status).toBe(200);
    expect((await sb.call('GET', '/sandbox/faults')).body.faults).toEqual({ errorRate: 0.5, resetRate: 0.1, latencyMs: 5, paths: ['/api/v0/orders'] });
    for (const bad of [{ errorRate: 1.5 }, { errorRate: 0.6, resetRate: 0.6 }, { latencyMs: -1 }, { color: 'red' }, { paths: ['api'] }, { statuses: [404] }]) {
      const res = await sb.call('POST', '/sandbox/faults', { body: bad });
      expect(res.status, JSON.stringify(bad)).toBe(400);
    }
    expect((await sb.call('POST', '/sandbox/faults', { body: {} })).status).toBe(200);
    expect((await sb.call('GET', '/sandbox/faults')).body.faults).toEqual({});
  });

  it('takes a fault rate as a start option (errors and resets), the same faults for the same seed', async () => {
    const run = async () => {
      const own = await startTestSandbox({ faultRate: 1, seed: 5 });
      try {
        const outcomes: (number | 'dropped')[] = [];
        const get = () => request(`${own.url}/api/v0/inventory/items`).then(async (r) => ({ status: r.statusCode, text: await r.body.text() }));
        for (let i = 0; i < 24; i++) outcomes.push(await outcome(get()));
        return outcomes;
      } finally {
        await own.close();
      }
    };
    const first = await run();
    expect(first).not.toContain(200);
    expect(first).toContain('dropped');
    expect(first.some((o) => o === 429 || o === 503 || o === 500)).toBe(true);
    expect(await run()).toEqual(first);
  });

  it('takes latencyMs as a start option', async () => {
    sb = await startTestSandbox({ latencyMs: 3 });
    expect((await sb.call('GET', '/sandbox/faults')).body.faults).toEqual({ latencyMs: 3 });
    expect((await sb.call('GET', '/api/v0/orders', { token: await sb.token() })).status).toBe(200);
  });
});
