/**
 * QA finding A1, over real HTTP: the sandbox's clock frozen two days behind this machine's, orders
 * imported (the ledger's submittedAt two days after the API created them), then the sandbox clock
 * moved on in steps with a ledger-mode reconcile (no --now: the API's clock) after each. Every run
 * must agree with one that reads each order's packages directly, and so must a run with no package
 * store at all (a brand-new copy of the ledger).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/types.js';
import type { CreateOrderPayload } from '../../src/contract/schemas.js';
import { openLedger } from '../../src/ledger/index.js';
import type { Ledger } from '../../src/ledger/types.js';
import { silentLogger } from '../../src/log.js';
import { reconcile, type ReconcileOptions, type ReconcileResult } from '../../src/reconcile/reconcile-run.js';
import { createMemoryPackageStore } from '../../src/reconcile/package-store.js';
import { CATALOGUE_IDS, startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { buildOrderPayload } from '../support/order-payload.js';
import { useTempFolder } from '../support/temp-dir.js';
import { sandboxClient } from './support.js';

const ORDERS = 40;
/** This machine's clock (it stays put), and the sandbox's, frozen two days behind it. */
const LOCAL_NOW = new Date('2031-05-06T08:00:00.000Z');
const API_START = '2031-05-04T08:00:00.000Z';

let sandbox: SandboxHandle;
const dir = useTempFolder('window-clock');
/** Two ledgers recording the same import: one with its package store beside it, one for the runs compared against. */
let tracked: Ledger;
let reference: Ledger;
const clients: ApiClient[] = [];

function newClient(): ApiClient {
  // Each run a new client, as a new CLI process has: it has heard nothing from the API yet.
  const client = sandboxClient(sandbox, () => LOCAL_NOW.getTime());
  clients.push(client);
  return client;
}

function payload(n: number, orderDate: string): CreateOrderPayload {
  const products = CATALOGUE_IDS.samples;
  const lines = Array.from({ length: 1 + (n % 2) }, (_, i) => ({ productId: products[(n * 3 + i) % products.length]!, quantity: 1 + ((n + i) % 3), unitPrice: 10 }));
  return buildOrderPayload(`WC-${String(n).padStart(3, '0')}`, { orderDate, lines, salesTax: 1 });
}

beforeAll(async () => {
  sandbox = await startSandbox({ startTime: API_START, freezeClock: true, seed: 11, rates: { split: 0.4, replace: 0.4, cancel: 0.1 } });
  // The ledger writes this machine's clock, as import does.
  tracked = await openLedger(join(dir, 'tracked.db'), { now: () => LOCAL_NOW });
  reference = await openLedger(join(dir, 'reference.db'), { now: () => LOCAL_NOW });
  const importer = newClient();
  const runs = await Promise.all([tracked, reference].map((l) => l.startRun({ command: 'import', files: [] })));
  for (let n = 0; n < ORDERS; n++) {
    // Placed up to four hours before the API's now, with a UTC offset as a sheet may give it.
    const placed = new Date(sandbox.now().getTime() - (n % 5) * 3_600_000);
    const p = payload(n, placed.toISOString().replace('Z', '+00:00'));
    for (const seeding of runs) {
      await seeding.recordIntent({ payload: p });
      await seeding.markSending(p.orderDetails.customerOrderId);
    }
    expect((await importer.createOrder(p)).status).toBe(201);
    for (const seeding of runs) await seeding.markAccepted(p.orderDetails.customerOrderId);
  }
  for (const seeding of runs) await seeding.finish({ summary: {} });
});

afterAll(async () => {
  await tracked?.close();
  await reference?.close();
  await Promise.all(clients.map((c) => c.close()));
  await sandbox?.close();
});

let runs = 0;
function run(ledger: Ledger, extra: Partial<ReconcileOptions>): Promise<ReconcileResult> {
  return reconcile({
    ledger,
    client: newClient(),
    now: LOCAL_NOW,
    isNowFromApi: true,
    lateAfterDays: 3,
    out: join(dir, `run-${++runs}.xlsx`),
    logger: silentLogger,
    readerOverrides: { sleep: async () => {}, random: () => 0 },
    ...extra,
  });
}

/** What a reader of the workbook sees of each order: its status, its lines' counts, its live tracking numbers. */
function seen(result: ReconcileResult) {
  return result.orders
    .map((o) => ({
      id: o.customerOrderId,
      status: o.status,
      lines: o.lines.map((l) => `${l.customerLineItemId}:${l.shipped}/${l.delivered}`).join(' '),
      live: [...o.trackingNumbers].sort().join(' '),
      packages: o.packages
        .map((p) => `${p.packageId}:${p.lastEvent ?? ''}:${p.isLive ? 'live' : 'replaced'}`)
        .sort()
        .join(' '),
      exceptions: o.exceptions.map((e) => e.type).sort().join(' '),
    }))
    .sort((a, b) => (a.id < b.id ? -1 : 1));
}

describe("reconcile's tracking window when the API's clock moved relative to this machine's", () => {
  it('agrees with the packages read order by order at every step, with the package store and without', async () => {
    let hours = 0;
    const changes: string[] = [];
    let previous: ReturnType<typeof seen> | null = null;
    for (const step of [1, 24, 72, 240]) {
      sandbox.advanceClock(step - hours);
      hours = step;
      // Tracking updates paged (perOrderMax 0), the store beside the ledger carried from run to run.
      const incremental = await run(tracked, { perOrderMax: 0 });
      // The same ledger freshly copied: no store, so the whole window.
      const fresh = await run(reference, { perOrderMax: 0, store: createMemoryPackageStore() });
      // Each order and its packages read directly: the truth, whatever the window.
      const direct = await run(reference, { perOrderMax: ORDERS, store: createMemoryPackageStore() });
      expect(incremental.asOf.toISOString()).toBe(sandbox.now().toISOString());
      const truth = seen(direct);
      expect(seen(fresh), `a fresh run at +${step} h`).toEqual(truth);
      expect(seen(incremental), `the incremental run at +${step} h`).toEqual(truth);
      if (previous && JSON.stringify(previous) !== JSON.stringify(truth)) changes.push(`+${step} h`);
      previous = truth;
    }
    // The steps did change what there is to see (shipped, delivered, replaced), up to the last one.
    expect(changes).toContain('+240 h');
    expect(previous!.some((o) => o.status === 'delivered')).toBe(true);
  }, 60_000);
});
