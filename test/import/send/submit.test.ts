import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { UnusableAnswerError } from '../../../src/api/errors.js';
import type { ApiClient } from '../../../src/api/types.js';
import type { CreateOrderPayload } from '../../../src/contract/schemas.js';
import { submitOrders, type SubmissionJob } from '../../../src/import/send/submit.js';
import { jobOf } from '../support.js';
import { hashPayload, openLedger, type IntentResult, type Ledger, type LedgerRun, type OrderIntent } from '../../../src/ledger/index.js';
import { silentLogger } from '../../../src/log.js';
import { buildOrderPayload } from '../../support/order-payload.js';

/** An API that stores every order it is sent (the text as it came) and knows none before. */
function recordingApi(delayMs = 0) {
  const posted = new Map<string, string>();
  const client = {
    async createOrder(payload: CreateOrderPayload, options?: { json?: string }) {
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      posted.set(payload.orderDetails.customerOrderId, options?.json ?? JSON.stringify(payload));
      return { status: 201, requestId: `req-${payload.orderDetails.customerOrderId}` };
    },
    async getOrder() {
      return null;
    },
  } as unknown as ApiClient;
  return { client, posted };
}

const submit = (ledger: Ledger, run: LedgerRun, jobs: SubmissionJob[], client: ApiClient, concurrency = 4) =>
  submitOrders(jobs, { client, ledger, run, concurrency, maxAttempts: 2, logger: silentLogger });

describe('submitOrders and the ledger', () => {
  it('POSTs the very payload the ledger recorded for each order', async () => {
    const ledger = await openLedger(':memory:');
    const run = await ledger.startRun({ command: 'import', files: ['orders.csv'] });
    const { client, posted } = recordingApi();
    const jobs = Array.from({ length: 150 }, (_, i) => jobOf(buildOrderPayload(`P-${i}`, { lines: [{ unitPrice: 10 + i }] })));
    const result = await submit(ledger, run, jobs, client, 8);
    expect(result.outcomes.every((o) => o.status === 'accepted')).toBe(true);
    for (const { payload } of jobs) {
      const id = payload.orderDetails.customerOrderId;
      const record = (await ledger.get(id))!;
      expect(posted.get(id)).toBe(JSON.stringify(payload));
      expect(record.payload).toEqual(JSON.parse(posted.get(id)!));
      expect(record.payloadHash).toBe(hashPayload(payload));
    }
    await ledger.close();
  });

  it('records the payload it sends after a lookup found nothing, not the one an earlier run left', async () => {
    const ledger = await openLedger(':memory:');
    const first = await ledger.startRun({ command: 'import', files: ['orders.csv'] });
    await first.prepareSends([{ payload: buildOrderPayload('L-1', { lines: [{ unitPrice: 10 }] }) }]);
    await first.markUnknown('L-1', { message: 'timeout' });
    await first.finish({ summary: {} });
    // The sheet was corrected before the re-run; the API never got the first version.
    const edited = buildOrderPayload('L-1', { lines: [{ unitPrice: 99 }] });
    const { client, posted } = recordingApi();
    const result = await submit(ledger, await ledger.startRun({ command: 'import', files: ['orders.csv'] }), [jobOf(edited)], client);
    expect(result.outcomes[0]!.status).toBe('accepted');
    expect(JSON.parse(posted.get('L-1')!)).toEqual(edited);
    expect(await ledger.get('L-1')).toMatchObject({ state: 'accepted', payload: edited, payloadHash: hashPayload(edited) });
    await ledger.close();
  });

  it('leaves no work queued on the event loop once it has returned', async () => {
    const ledger = await openLedger(':memory:');
    const run = await ledger.startRun({ command: 'import', files: ['orders.csv'] });
    const { client } = recordingApi();
    await submit(ledger, run, Array.from({ length: 300 }, (_, i) => jobOf(buildOrderPayload(`Q-${i}`))), client, 16);
    const original = globalThis.setImmediate;
    let scheduled = 0;
    globalThis.setImmediate = ((...args: Parameters<typeof setImmediate>) => {
      scheduled++;
      return original(...args);
    }) as typeof setImmediate;
    try {
      for (let turn = 0; turn < 50; turn++) await new Promise((resolve) => original(resolve));
    } finally {
      globalThis.setImmediate = original;
    }
    expect(scheduled).toBe(0);
    await ledger.close();
  });

  it('fails the run, not the process, on a payload that cannot be serialised', async () => {
    const ledger = await openLedger(':memory:');
    const run = await ledger.startRun({ command: 'import', files: ['orders.csv'] });
    const jobs = Array.from({ length: 200 }, (_, i) => jobOf(buildOrderPayload(`S-${i}`)));
    // Reached by the fingerprints made ahead long before the ledger or the POSTs get there.
    Object.assign(jobs[100]!.payload.orderDetails, {
      toJSON() {
        throw new Error('cannot serialise S-100');
      },
    });
    const { client, posted } = recordingApi(3);
    await expect(submit(ledger, run, jobs, client)).rejects.toThrow('cannot serialise S-100');
    expect(posted.has('S-100')).toBe(false);
    // Orders before it were sent once each; none after the failing chunk was.
    expect(posted.size).toBeGreaterThan(0);
    expect(posted.has('S-199')).toBe(false);
    await ledger.close();
  });

  it('keeps an order whose POST got a 2xx it cannot read as unknown, and the next run finds it instead of sending it again', async () => {
    const ledger = await openLedger(':memory:');
    const stored = new Set<string>();
    const proxied = {
      async createOrder(payload: CreateOrderPayload) {
        // Passed on to the API, which stored it; the answer came back mangled by a proxy.
        stored.add(payload.orderDetails.customerOrderId);
        throw new UnusableAnswerError('The API answered 201 Created but the body is not JSON', { method: 'POST', url: 'https://api.example.com/api/v0/orders', status: 201, body: '<html>' });
      },
      async getOrder(id: string) {
        return stored.has(id) ? { order: {}, requestId: 'g-1' } : null;
      },
    } as unknown as ApiClient;
    const first = await submit(ledger, await ledger.startRun({ command: 'import', files: ['orders.csv'] }), [jobOf(buildOrderPayload('X-1'))], proxied, 1);
    expect(first.outcomes[0]!.status).toBe('failed');
    expect(first.stopped).toMatchObject({ kind: 'no_endpoint' });
    expect((await ledger.get('X-1'))!.state).toBe('unknown');
    const { client, posted } = recordingApi();
    const second = await submit(ledger, await ledger.startRun({ command: 'import', files: ['orders.csv'] }), [jobOf(buildOrderPayload('X-1'))], { ...client, getOrder: proxied.getOrder } as ApiClient, 1);
    expect(second.outcomes[0]).toMatchObject({ status: 'accepted', posts: 0, requestId: 'g-1' });
    expect(posted.size).toBe(0);
    await ledger.close();
  });

  it('leaves an order another live run holds to that run: in_progress_elsewhere, a warning naming it, no POST', async () => {
    const ledger = await openLedger(':memory:');
    // What a shared ledger answers while another host's run holds H-1 (SQLite's run lock never lets that happen).
    const holder = await ledger.startRun({ command: 'import', files: ['cron.csv'] });
    await holder.prepareSends([{ payload: buildOrderPayload('H-1') }]);
    const run = await ledger.startRun({ command: 'import', files: ['orders.csv'] });
    const isHeld = (intent: OrderIntent) => intent.payload.orderDetails.customerOrderId === 'H-1';
    const sharing = new Proxy(run, {
      get(target, key, receiver) {
        if (key !== 'prepareSends') return Reflect.get(target, key, receiver);
        return async (intents: readonly OrderIntent[]): Promise<IntentResult[]> => {
          const free = await target.prepareSends(intents.filter((i) => !isHeld(i)));
          const held = (await ledger.get('H-1'))!;
          return intents.map((i) => (isHeld(i) ? { action: 'in_progress_elsewhere', record: held, previous: held, payloadChanged: false } : free.shift()!));
        };
      },
    });
    const { client, posted } = recordingApi();
    const result = await submit(ledger, sharing, [jobOf(buildOrderPayload('F-1')), jobOf(buildOrderPayload('H-1')), jobOf(buildOrderPayload('F-2'))], client, 2);
    expect(result.outcomes.map((o) => o.status)).toEqual(['accepted', 'in_progress_elsewhere', 'accepted']);
    const held = result.outcomes[1]!;
    expect(held.posts).toBe(0);
    expect(held.issues).toMatchObject([{ code: 'in_progress_elsewhere', severity: 'warning', column: 'customerOrderId', row: 2 }]);
    expect(held.issues[0]!.message).toContain(`another run is sending this order (import, process ${process.pid} on ${hostname()}, started at `);
    expect([...posted.keys()].sort()).toEqual(['F-1', 'F-2']);
    expect(await ledger.get('H-1')).toMatchObject({ state: 'sending', runId: holder.runId });
    await ledger.close();
  });

  it('keeps the POSTs in flight within the send gate, whatever its own concurrency', async () => {
    const ledger = await openLedger(':memory:');
    let inFlight = 0;
    let most = 0;
    const client = {
      async createOrder(payload: CreateOrderPayload) {
        most = Math.max(most, ++inFlight);
        await new Promise((resolve) => setImmediate(resolve));
        inFlight--;
        return { status: 201, requestId: `req-${payload.orderDetails.customerOrderId}` };
      },
      async getOrder() {
        return null;
      },
    } as unknown as ApiClient;
    const gate = await ledger.openSendGate({ share: 2 });
    const run = await ledger.startRun({ command: 'import', files: ['orders.csv'] });
    const jobs = Array.from({ length: 40 }, (_, i) => jobOf(buildOrderPayload(`G-${i}`)));
    const result = await submitOrders(jobs, { client, ledger, run, gate, concurrency: 8, maxAttempts: 2, logger: silentLogger });
    expect(result.outcomes.every((o) => o.status === 'accepted')).toBe(true);
    expect(most).toBe(2);
    await gate.close();
    await ledger.close();
  });
});
