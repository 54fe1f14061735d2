/**
 * The refusal of web pages at the sandbox controls goes by the route the router matched: a page
 * cannot reach a control as /%73andbox/... (the router decodes it; browsers send %73 as written).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from './helpers.js';
import { buildOrderPayload } from '../support/order-payload.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(() => sb.close());

describe('sandbox controls reached under a percent-encoded path', () => {
  it('refuses a reset posted by another site as /%73andbox/reset, as it does /sandbox/reset', async () => {
    expect((await sb.create(buildOrderPayload('ENC-1'))).status).toBe(201);
    const plain = await sb.call('POST', '/sandbox/reset', { headers: { origin: 'http://evil.example' } });
    expect(plain.status).toBe(403);

    const encoded = await sb.call('POST', '/%73andbox/reset', { headers: { origin: 'http://evil.example' } });
    expect(encoded.status).toBe(403);
    expect((await sb.call('GET', '/sandbox/stats')).body.orders).toBe(1);
  });

  it('refuses a DNS-rebinding read (foreign Host) as /%73andbox/stats, as it does /sandbox/stats', async () => {
    const port = new URL(sb.url).port;
    expect((await sb.call('GET', '/sandbox/stats', { headers: { host: `evil.example:${port}` } })).status).toBe(403);
    const encoded = await sb.call('GET', '/%73andbox/stats', { headers: { host: `evil.example:${port}` } });
    expect(encoded.status).toBe(403);
  });
});
