import { afterEach, beforeEach, expect, it } from 'vitest';
import { buildOrderPayload as buildOrder } from '../support/order-payload.js';
import { startTestSandbox, type TestSandbox } from './helpers.js';

let sb: TestSandbox;
beforeEach(async () => {
  sb = await startTestSandbox();
});
afterEach(async () => {
  await sb.close();
});

it('counts the most order POSTs in flight at once, from arrival to the end of the answer', async () => {
  const token = await sb.token();
  // Each answer waits long enough that all five arrive before the first one leaves.
  expect((await sb.call('POST', '/sandbox/faults', { body: { latencyMs: 1000, paths: ['/api/v0/orders'] } })).status).toBe(200);
  const answers = await Promise.all(['F-1', 'F-2', 'F-3', 'F-4', 'F-5'].map((id) => sb.call('POST', '/api/v0/orders', { body: buildOrder(id), token })));
  expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201, 201]);
  await sb.call('POST', '/sandbox/faults', { body: {} });
  expect((await sb.create(buildOrder('F-6'))).status).toBe(201);
  expect(sb.stats()).toMatchObject({ postsReceived: 6, maxPostsInFlight: 5 });
  expect((await sb.call('GET', '/sandbox/stats')).body).toMatchObject({ maxPostsInFlight: 5 });
});

it('counts the most in flight again from a moment a test chooses, keeping the orders', async () => {
  const token = await sb.token();
  await sb.call('POST', '/sandbox/faults', { body: { latencyMs: 1000, paths: ['/api/v0/orders'] } });
  await Promise.all(['M-1', 'M-2', 'M-3'].map((id) => sb.call('POST', '/api/v0/orders', { body: buildOrder(id), token })));
  await sb.call('POST', '/sandbox/faults', { body: {} });
  expect((await sb.call('POST', '/sandbox/stats/reset-max')).body).toMatchObject({ orders: 3, maxPostsInFlight: 0 });
  expect((await sb.create(buildOrder('M-4'))).status).toBe(201);
  expect(sb.stats()).toMatchObject({ orders: 4, maxPostsInFlight: 1 });
});
