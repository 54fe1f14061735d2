import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/types.js';
import type { CreateOrderPayload } from '../../src/contract/schemas.js';
import { submitOrders, type SubmissionJob } from '../../src/import/submit.js';
import { hashPayload, openLedger, type Ledger } from '../../src/ledger/index.js';
import { silentLogger } from '../../src/log.js';
import { buildOrderPayload } from '../support/order-payload.js';

function jobOf(payload: CreateOrderPayload): SubmissionJob {
  return { order: { rows: [2] } as unknown as SubmissionJob['order'], payload, sheet: { columns: [], headers: [] } as unknown as SubmissionJob['sheet'], file: 'orders.csv', sha256: 'abc' };
}

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

const submit = (ledger: Ledger, runId: string, jobs: SubmissionJob[], client: ApiClient, concurrency = 4) =>
  submitOrders(jobs, { client, ledger, runId, concurrency, maxAttempts: 2, logger: silentLogger });

describe('submitOrders and the ledger', () => {
  it('POSTs the very payload the ledger recorded for each order', async () => {
    const ledger = openLedger(':memory:');
    const runId = ledger.startRun({ command: 'import', files: ['orders.csv'] });
    const { client, posted } = recordingApi();
    const jobs = Array.from({ length: 150 }, (_, i) => jobOf(buildOrderPayload(`P-${i}`, { lines: [{ unitPrice: 10 + i }] })));
    const result = await submit(ledger, runId, jobs, client, 8);
    expect(result.outcomes.every((o) => o.status === 'accepted')).toBe(true);
    for (const { payload } of jobs) {
      const id = payload.orderDetails.customerOrderId;
      const record = ledger.get(id)!;
      expect(posted.get(id)).toBe(JSON.stringify(payload));
      expect(record.payload).toEqual(JSON.parse(posted.get(id)!));
      expect(record.payloadHash).toBe(hashPayload(payload));
    }
    ledger.close();
  });

  it('records the payload it sends after a lookup found nothing, not the one an earlier run left', async () => {
    const ledger = openLedger(':memory:');
    const first = ledger.startRun({ command: 'import', files: ['orders.csv'] });
    ledger.prepareSends([{ payload: buildOrderPayload('L-1', { lines: [{ unitPrice: 10 }] }) }], first);
    ledger.markUnknown('L-1', { message: 'timeout' });
    ledger.finishRun(first, { summary: {} });
    // The sheet was corrected before the re-run; the API never got the first version.
    const edited = buildOrderPayload('L-1', { lines: [{ unitPrice: 99 }] });
    const { client, posted } = recordingApi();
    const result = await submit(ledger, ledger.startRun({ command: 'import', files: ['orders.csv'] }), [jobOf(edited)], client);
    expect(result.outcomes[0]!.status).toBe('accepted');
    expect(JSON.parse(posted.get('L-1')!)).toEqual(edited);
    expect(ledger.get('L-1')).toMatchObject({ state: 'accepted', payload: edited, payloadHash: hashPayload(edited) });
    ledger.close();
  });

  it('leaves no work queued on the event loop once it has returned', async () => {
    const ledger = openLedger(':memory:');
    const runId = ledger.startRun({ command: 'import', files: ['orders.csv'] });
    const { client } = recordingApi();
    await submit(ledger, runId, Array.from({ length: 300 }, (_, i) => jobOf(buildOrderPayload(`Q-${i}`))), client, 16);
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
    ledger.close();
  });

  it('fails the run, not the process, on a payload that cannot be serialised', async () => {
    const ledger = openLedger(':memory:');
    const runId = ledger.startRun({ command: 'import', files: ['orders.csv'] });
    const jobs = Array.from({ length: 200 }, (_, i) => jobOf(buildOrderPayload(`S-${i}`)));
    // Reached by the fingerprints made ahead long before the ledger or the POSTs get there.
    Object.assign(jobs[100]!.payload.orderDetails, {
      toJSON() {
        throw new Error('cannot serialise S-100');
      },
    });
    const { client, posted } = recordingApi(3);
    await expect(submit(ledger, runId, jobs, client)).rejects.toThrow('cannot serialise S-100');
    expect(posted.has('S-100')).toBe(false);
    // Orders before it were sent once each; none after the failing chunk was.
    expect(posted.size).toBeGreaterThan(0);
    expect(posted.has('S-199')).toBe(false);
    ledger.close();
  });
});
