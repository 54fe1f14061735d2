import { describe, expect, it } from 'vitest';
import type { TrackingQuery } from '../../src/api/types.js';
import { ApiUnusableError } from '../../src/errors.js';
import type { Ledger } from '../../src/ledger/types.js';
import { silentLogger } from '../../src/log.js';
import { createApiReader } from '../../src/reconcile/fetch.js';
import { reconcile, type ReconcileOptions } from '../../src/reconcile/reconcile-run.js';
import { expectOrderFromPayload } from '../../src/reconcile/expected.js';
import { createMemoryPackageStore, type PackageStore } from '../../src/reconcile/package-store.js';
import { TRACKING_WATERMARK } from '../../src/reconcile/window.js';
import { at, nowAt, pkg, readOf, sentPayload } from './builders.js';
import { httpError, type FakeApi } from './fake-api.js';
import { createWorld } from './support.js';
import { useTempFolders } from '../support/temp-dir.js';
import { join } from 'node:path';

const ORDERS = 30;
const newDir = useTempFolders('reconcile-inc');

interface World {
  api: FakeApi;
  ledger: Ledger;
  store: PackageStore;
  dir: string;
  run(hours: number, extra?: Partial<ReconcileOptions>): ReturnType<typeof reconcile>;
}

/** 30 accepted orders, the first half shipped at T0+12h, the rest still waiting. */
async function world(): Promise<World> {
  const payloads = Array.from({ length: ORDERS }, (_, i) => sentPayload(`O-${String(i).padStart(2, '0')}`));
  const { api, ledger } = await createWorld(payloads, (api, p, i) => {
    const id = p.orderDetails.customerOrderId;
    const shipped = i < ORDERS / 2;
    api.orders.set(id, readOf(expectOrderFromPayload(p), shipped ? 'Shipped' : 'Waiting to Clear'));
    if (shipped) api.packages.set(`P-${id}`, pkg({ id: `P-${id}`, order: id, items: [{ line: 'L1', productId: 'PRD-1001', quantity: 1 }] }));
  });
  const store = createMemoryPackageStore();
  const dir = newDir();
  return {
    api,
    ledger,
    store,
    dir,
    run: (hours, extra = {}) =>
      reconcile({
        ledger,
        client: api,
        now: nowAt(hours),
        lateAfterDays: 3,
        out: join(dir, `run-${hours}.xlsx`),
        logger: silentLogger,
        store,
        perOrderMax: 0,
        readerOverrides: { sleep: async () => {}, random: () => 0 },
        ...extra,
      }),
  };
}

function windows(api: FakeApi): { startDate: string; endDate: string }[] {
  const seen = new Map<string, { startDate: string; endDate: string }>();
  for (const c of api.callsOf('getTrackingUpdates')) {
    const q = c.arg as Extract<TrackingQuery, { startDate: string }>;
    seen.set(`${q.startDate}/${q.endDate}`, { startDate: q.startDate, endDate: q.endDate });
  }
  return [...seen.values()];
}

describe('the nightly run', () => {
  it('first fetches every update since the earliest submission, then only what changed since the last run', async () => {
    const w = await world();
    const first = await w.run(24);
    expect(first.report.summary).toMatchObject({ shipped: 15, waiting: 15 });
    expect(windows(w.api)).toEqual([{ startDate: at(-1), endDate: at(24) }]);
    expect(w.api.callsOf('getOrder')).toHaveLength(ORDERS);
    expect((await w.ledger.getWatermark(TRACKING_WATERMARK))).toBe(at(24));

    // A day later: one shipped package delivered, two waiting orders shipped.
    w.api.calls.length = 0;
    w.api.packages.set('P-O-00', pkg({ id: 'P-O-00', order: 'O-00', delivered: true, lastUpdated: at(40), items: [{ line: 'L1', productId: 'PRD-1001', quantity: 1 }] }));
    for (const id of ['O-20', 'O-21']) {
      w.api.orders.get(id)!.lineItems[0]!.status = 'Shipped';
      w.api.packages.set(`P-${id}`, pkg({ id: `P-${id}`, order: id, lastUpdated: at(41), items: [{ line: 'L1', productId: 'PRD-1001', quantity: 1 }] }));
    }
    const second = await w.run(48);
    expect(windows(w.api)).toEqual([{ startDate: at(23), endDate: at(48) }]);
    // Settled orders whose packages did not change are not read again: 1 changed + the 15 that were waiting.
    expect(w.api.callsOf('getOrder')).toHaveLength(16);
    expect(second.report.summary).toMatchObject({ delivered: 1, shipped: 16, waiting: 13 });
    expect(second.orders.find((o) => o.customerOrderId === 'O-05')!.trackingNumbers).toEqual(['TRK-P-O-05']);
  });

  it('after a failed run, the next one starts where the last successful run ended', async () => {
    const w = await world();
    await w.run(24);
    w.api.calls.length = 0;
    w.api.failures.set('getTrackingUpdates', [httpError(500)]);
    await expect(w.run(48, { maxAttempts: 1 })).rejects.toBeInstanceOf(ApiUnusableError);
    expect((await w.ledger.getWatermark(TRACKING_WATERMARK))).toBe(at(24));
    w.api.calls.length = 0;
    await w.run(72);
    expect(windows(w.api)).toEqual([{ startDate: at(23), endDate: at(72) }]);
    expect((await w.ledger.getWatermark(TRACKING_WATERMARK))).toBe(at(72));
  });

  it('fetches the whole window again when its package store was lost', async () => {
    const w = await world();
    await w.run(24);
    w.api.calls.length = 0;
    await w.run(48, { store: createMemoryPackageStore() });
    expect(windows(w.api)).toEqual([{ startDate: at(-1), endDate: at(48) }]);
  });

  it('retries a transient failure of a page and of an order read', async () => {
    const w = await world();
    w.api.failures.set('getTrackingUpdates', [httpError(503)]);
    w.api.failures.set('getOrder', [httpError(429), httpError(502)]);
    const out = await w.run(24);
    expect(out.report.summary).toMatchObject({ shipped: 15, waiting: 15 });
  });

  it('stops with the API unusable on a refused read, moving no watermark', async () => {
    const w = await world();
    w.api.failures.set('getOrder', [httpError(400)]);
    await expect(w.run(24)).rejects.toThrow(/could not read the API/);
    expect((await w.ledger.getWatermark(TRACKING_WATERMARK))).toBeNull();
  });

  it('fetches pages concurrently once the number of pages is known', async () => {
    const w = await world();
    for (let i = 0; i < 950; i++) {
      w.api.packages.set(`X-${i}`, pkg({ id: `X-${String(i).padStart(4, '0')}`, order: `O-${String(i % 15).padStart(2, '0')}`, items: [] }));
    }
    w.api.peakInFlight = 0;
    await w.run(24, { concurrency: 4 });
    const pages = w.api.callsOf('getTrackingUpdates').map((c) => (c.arg as { pageNumber: number }).pageNumber);
    expect(pages[0]).toBe(1);
    expect([...pages].sort((a, b) => a - b)).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
    expect(w.api.peakInFlight).toBe(4);
  });

  it('reads each order and its packages when there are only a few', async () => {
    const w = await world();
    const out = await w.run(24, { perOrderMax: 100 });
    expect(w.api.callsOf('getTrackingUpdates')).toHaveLength(0);
    expect(w.api.callsOf('getPackages')).toHaveLength(ORDERS);
    expect(out.report.summary).toMatchObject({ shipped: 15, waiting: 15 });
    expect((await w.ledger.getWatermark(TRACKING_WATERMARK))).toBeNull();
  });

  it('reads many orders with one list request, and reports an order the ledger never sent', async () => {
    const w = await world();
    const stray = sentPayload('STRAY-1');
    w.api.orders.set('STRAY-1', readOf(expectOrderFromPayload(stray), 'Shipped'));
    w.api.packages.set('P-STRAY', pkg({ id: 'P-STRAY', order: 'STRAY-1', items: [{ line: 'L1', productId: 'PRD-1001', quantity: 1 }] }));
    const out = await w.run(24, { bulkReadMin: 10 });
    // Our 30 orders in one list request while the pages come in; the stranger, found in the pages, on its own.
    expect(w.api.callsOf('listOrders')).toHaveLength(1);
    expect(w.api.callsOf('getOrder').map((c) => c.arg)).toEqual(['STRAY-1']);
    const unknown = out.orders.find((o) => o.customerOrderId === 'STRAY-1')!;
    expect([unknown.status, unknown.exceptions.map((e) => e.type)]).toEqual(['exception', ['unknown_order']]);
  });

  it('pages tracking updates while it reads the selected orders from the ledger', async () => {
    const w = await world();
    const read = w.ledger.pagesSubmittedSince.bind(w.ledger);
    let pagesAskedBeforeSelectionEnded = -1;
    w.ledger.pagesSubmittedSince = async function* (since, pageSize) {
      yield* read(since, pageSize);
      pagesAskedBeforeSelectionEnded = w.api.callsOf('getTrackingUpdates').length;
    };
    const out = await w.run(24);
    expect(pagesAskedBeforeSelectionEnded).toBeGreaterThan(0);
    // The same window and pages as when the selection comes first: nothing fetched twice.
    expect(windows(w.api)).toEqual([{ startDate: at(-1), endDate: at(24) }]);
    expect(w.api.callsOf('getTrackingUpdates')).toHaveLength(1);
    expect(out.report.summary).toMatchObject({ shipped: 15, waiting: 15 });
  });

  it('stops the pages fetched ahead when reading the selection fails', async () => {
    const w = await world();
    w.ledger.pagesSubmittedSince = async function* () {
      throw new Error('disk I/O error');
    };
    await expect(w.run(24)).rejects.toThrow('disk I/O error');
    expect((await w.ledger.getWatermark(TRACKING_WATERMARK))).toBeNull();
  });

  it('fails, fetching no further, when a page cannot be taken in', async () => {
    const w = await world();
    for (let i = 0; i < 450; i++) {
      w.api.packages.set(`X-${i}`, pkg({ id: `X-${String(i).padStart(4, '0')}`, order: `O-${String(i % 15).padStart(2, '0')}`, items: [] }));
    }
    const reader = createApiReader({ client: w.api, logger: silentLogger, concurrency: 1 });
    const window = { startDate: at(0), endDate: at(24) };
    let pages = 0;
    const failing = reader.readTrackingWindow(window, () => {
      if (++pages === 2) throw new Error('the store is full');
    });
    await expect(failing).rejects.toThrow('the store is full');
    // Page 3 was asked for before page 2 was parsed (a lane asks for its next page first); none after it.
    expect(w.api.callsOf('getTrackingUpdates').map((c) => (c.arg as { pageNumber: number }).pageNumber)).toEqual([1, 2, 3]);
  });
});
