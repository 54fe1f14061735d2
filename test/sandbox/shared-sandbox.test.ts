/**
 * One embedded sandbox per state file: the first process hosts it, the others reach it through a
 * forwarder, and when the host goes a forwarder takes it over from the state file. (Each
 * openSharedSandbox here stands for another process: the lock beside the state file is taken per
 * connection, within a process as between processes.)
 */
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { openSharedSandbox, type SharedSandbox } from '../../src/connection/shared-sandbox.js';
import { silentLogger } from '../../src/log.js';
import { SANDBOX_DEFAULTS } from '../../src/sandbox/index.js';
import { buildOrderPayload, ORDER_DATE } from '../support/order-payload.js';
import { useTempDir } from '../support/temp-dir.js';

async function call(base: string, method: 'GET' | 'POST', path: string, body?: unknown, token?: string) {
  const answer = await request(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: answer.statusCode, body: (await answer.body.json()) as any };
}

async function createOrder(base: string, id: string) {
  const { body } = await call(base, 'POST', '/api/v0/auth/getToken', { clientId: SANDBOX_DEFAULTS.clientId, secret: SANDBOX_DEFAULTS.clientSecret });
  return call(base, 'POST', '/api/v0/orders', buildOrderPayload(id), body.token);
}

describe('the shared embedded sandbox', () => {
  const file = useTempDir('shared-sandbox');
  let round = 0;
  const opened: SharedSandbox[] = [];
  const open = async () => {
    const sandbox = await openSharedSandbox({ statePath: file(`state-${round}.json`), startTime: new Date(Date.parse(ORDER_DATE) + 3_600_000), logger: silentLogger });
    opened.push(sandbox);
    return sandbox;
  };
  afterEach(async () => {
    round++;
    for (const sandbox of opened.splice(0).reverse()) await sandbox.close();
  });

  it('shows every process the orders and the clock of one world', async () => {
    const host = await open();
    const other = await open();
    expect([host.isHost(), other.isHost()]).toEqual([true, false]);
    expect(other.url).not.toBe(host.url);
    expect((await createOrder(other.url, 'SHARED-1')).status).toBe(201);
    expect((await call(host.url, 'GET', '/sandbox/stats')).body).toMatchObject({ orders: 1, postsReceived: 1 });
    expect((await createOrder(host.url, 'SHARED-1')).status).toBe(409);
    const moved = await other.advanceClock(96);
    // The simulated clock runs on with real time: the host reads at least what the other moved it to.
    expect((await host.now()).getTime()).toBeGreaterThanOrEqual(moved.getTime());
    expect(moved.getTime() - Date.parse(ORDER_DATE)).toBeGreaterThanOrEqual(97 * 3_600_000);
  });

  it('is taken over by a process that used it when its host stops, with everything the host had', async () => {
    const first = await open();
    const second = await open();
    const third = await open();
    await createOrder(second.url, 'KEPT-1');
    const clock = await second.advanceClock(48);
    await first.close();
    opened.splice(opened.indexOf(first), 1);

    // The next request through either forwarder finds nobody: one of them hosts it now, the other follows.
    const [stats2, stats3] = await Promise.all([call(second.url, 'GET', '/sandbox/stats'), call(third.url, 'GET', '/sandbox/stats')]);
    expect([stats2.body.orders, stats3.body.orders]).toEqual([1, 1]);
    expect([second.isHost(), third.isHost()].filter(Boolean)).toHaveLength(1);
    expect((await createOrder(third.url, 'KEPT-1')).status).toBe(409);
    expect((await second.now()).getTime()).toBeGreaterThanOrEqual(clock.getTime());
  });
});
