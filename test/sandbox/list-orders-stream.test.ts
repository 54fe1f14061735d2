/** A big list-orders answer goes out a slice at a time (sendTextParts): the same JSON, chunked, and a client leaving midway harms no one. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CreateOrderPayload } from '../../src/contract/schemas.js';
import { buildSeededCatalogue } from '../../src/sandbox/catalogue.js';
import { PARTS_PER_WRITE } from '../../src/sandbox/http/respond.js';
import { DEFAULT_RATES } from '../../src/sandbox/model.js';
import { stockToJson, type PersistedState } from '../../src/sandbox/persistence.js';
import { createSandboxState } from '../../src/sandbox/state.js';
import { buildOrder, START_MS, startTestSandbox, type TestSandbox } from './helpers.js';

const dirs: string[] = [];
const sandboxes: TestSandbox[] = [];
afterEach(async () => {
  for (const s of sandboxes.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A sandbox holding `count` orders, from a state file (creating them over HTTP would take seconds). */
async function sandboxWith(count: number): Promise<TestSandbox> {
  const catalogue = buildSeededCatalogue();
  const state = createSandboxState(catalogue, { seed: 1, rates: DEFAULT_RATES, products: catalogue.products });
  for (let i = 0; i < count; i++) state.acceptOrder(buildOrder(`LS-${String(i).padStart(4, '0')}`, { nowMs: START_MS }) as CreateOrderPayload, START_MS);
  const saved: PersistedState = {
    format: 'order-batch-sandbox-state',
    version: 1,
    savedAtMs: Date.now(),
    simulatedNowMs: START_MS + 60_000,
    orders: state.listOrders(),
    stock: stockToJson(state.stock),
    counters: { ...state.counters },
  };
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-list-stream-'));
  dirs.push(dir);
  const statePath = join(dir, 'state.json');
  writeFileSync(statePath, JSON.stringify(saved));
  const sandbox = await startTestSandbox({ statePath });
  sandboxes.push(sandbox);
  return sandbox;
}

describe('a big list-orders answer', () => {
  it.each([PARTS_PER_WRITE, PARTS_PER_WRITE + 1, 2 * PARTS_PER_WRITE + 1])('is the same JSON, every order once and in order, with %i orders', async (count) => {
    const sandbox = await sandboxWith(count);
    const res = await sandbox.call('GET', '/api/v0/orders?lastDays=30', { token: await sandbox.token() });
    expect(res.status).toBe(200);
    const ids = (res.body.data as { orderDetails: { customerOrderId: string } }[]).map((d) => d.orderDetails.customerOrderId);
    expect(ids).toEqual(Array.from({ length: count }, (_, i) => `LS-${String(i).padStart(4, '0')}`));
    expect(typeof res.body.requestId).toBe('string');
    // Sent at once (with its length) up to a slice; chunked beyond.
    if (count <= PARTS_PER_WRITE) expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.text));
    else expect([res.headers['transfer-encoding'], res.headers['content-length']]).toEqual(['chunked', undefined]);
  });

  it('goes on answering others after a client leaves in the middle of one', async () => {
    const sandbox = await sandboxWith(4 * PARTS_PER_WRITE);
    const token = await sandbox.token();
    const { port } = new URL(sandbox.url);
    const firstBytes = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(`GET /api/v0/orders?lastDays=30 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n\r\n`);
      });
      socket.once('data', (chunk) => {
        socket.destroy();
        resolve(chunk.toString('latin1'));
      });
      socket.once('error', reject);
    });
    expect(firstBytes).toMatch(/^HTTP\/1\.1 200/);
    const res = await sandbox.call('GET', '/api/v0/orders?lastDays=30', { token });
    expect(res.body.data).toHaveLength(4 * PARTS_PER_WRITE);
  });
});
