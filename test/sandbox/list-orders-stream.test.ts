/** A big list-orders answer goes out a slice at a time (sendTextParts): the same JSON, chunked, and a client leaving midway harms no one. */
import { rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CreateOrderPayload } from '../../src/contract/schemas.js';
import { buildSeededCatalogue } from '../../src/sandbox/catalogue.js';
import { PARTS_PER_WRITE, writeInSlices, type SliceSink } from '../../src/sandbox/http/respond.js';
import { DEFAULT_RATES } from '../../src/sandbox/model.js';
import { stockToJson, type PersistedState } from '../../src/sandbox/persistence.js';
import { createSandboxState } from '../../src/sandbox/state.js';
import { hourBefore, START_MS, startTestSandbox, type TestSandbox } from './helpers.js';
import { buildOrderPayload } from '../support/order-payload.js';
import { makeTempFolder } from '../support/temp-dir.js';

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
  for (let i = 0; i < count; i++) state.acceptOrder(buildOrderPayload(`LS-${String(i).padStart(4, '0')}`, { orderDate: hourBefore(START_MS) }) as CreateOrderPayload, START_MS);
  const saved: PersistedState = {
    format: 'order-batch-sandbox-state',
    version: 1,
    savedAtMs: Date.now(),
    simulatedNowMs: START_MS + 60_000,
    orders: state.listOrders(),
    stock: stockToJson(state.stock),
    counters: { ...state.counters },
  };
  const dir = makeTempFolder('sandbox-list-stream');
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

/** The parts writeInSlices is given below: 4 full slices and a short one. */
const parts = Array.from({ length: 4 * PARTS_PER_WRITE + 7 }, (_, i) => `{"n":${i}}`);

/** A sink that takes every slice at once, as a loopback socket with room does: 'drain' (or not) on the next tick. */
function eagerSink(reportsFull: boolean) {
  const writes: { text: string; turn: number }[] = [];
  let turn = 0;
  let isCounting = true;
  const count = () => {
    turn++;
    if (isCounting) setImmediate(count);
  };
  setImmediate(count);
  let onDrain: (() => void) | undefined;
  const done = new Promise<void>((resolve) => {
    const sink: SliceSink = {
      destroyed: false,
      write(text) {
        writes.push({ text, turn });
        if (reportsFull) {
          process.nextTick(() => {
            const listener = onDrain;
            onDrain = undefined;
            listener?.();
          });
        }
        return !reportsFull;
      },
      end(text) {
        writes.push({ text, turn });
        isCounting = false;
        resolve();
      },
      once(_event, listener) {
        onDrain = listener;
      },
    };
    writeInSlices(sink, '{"data":[', parts, ']}', () => resolve());
  });
  return { writes, done };
}

describe('writeInSlices', () => {
  it.each([
    ['says its buffer is full and drains on the next tick', true],
    ['has room for every slice', false],
  ])('writes one slice per turn of the event loop to a sink that %s', async (_label, reportsFull) => {
    const { writes, done } = eagerSink(reportsFull);
    await done;
    expect(writes).toHaveLength(5);
    // Other requests' timers and sockets get a turn between two slices.
    for (let i = 1; i < writes.length; i++) expect(writes[i]!.turn).toBeGreaterThan(writes[i - 1]!.turn);
    expect(JSON.parse(writes.map((w) => w.text).join(''))).toEqual({ data: parts.map((p) => JSON.parse(p)) });
  });

  it('stops writing once the sink is destroyed, and reports a write that throws', async () => {
    const written: string[] = [];
    let destroyed = false;
    let failures = 0;
    const sink: SliceSink = {
      get destroyed() {
        return destroyed;
      },
      write(text) {
        written.push(text);
        if (written.length === 2) destroyed = true;
        return true;
      },
      end: () => written.push('end'),
      once: () => undefined,
    };
    writeInSlices(sink, '[', parts, ']', () => failures++);
    for (let i = 0; i < 4; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(written).toHaveLength(2);
    const throwing: SliceSink = {
      destroyed: false,
      write: () => {
        throw new Error('EPIPE');
      },
      end: () => undefined,
      once: () => undefined,
    };
    writeInSlices(throwing, '[', parts, ']', () => failures++);
    expect(failures).toBe(1);
  });
});
