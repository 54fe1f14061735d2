/**
 * Matching ahead (match-ahead.ts) in every selection mode: a run matched ahead reports
 * exactly what a run matched at the end reports, with orders whose packages come pages apart, pages
 * that shift, replacements, 404s, unknown orders and suspects re-read; and a failing run leaves
 * nothing running and no rejection unhandled.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ForbiddenError } from '../../src/api/errors.js';
import type { TrackingQuery } from '../../src/api/types.js';
import type { PackageRecord } from '../../src/contract/schemas.js';
import type { Ledger } from '../../src/ledger/types.js';
import { silentLogger } from '../../src/log.js';
import { expectOrderFromPayload } from '../../src/reconcile/expected.js';
import { createApiReader } from '../../src/reconcile/fetch.js';
import { gatherFromApi, type Paging } from '../../src/reconcile/gather.js';
import { reconcile, type ReconcileOptions } from '../../src/reconcile/reconcile-run.js';
import { createMatchAhead } from '../../src/reconcile/match-ahead.js';
import { reconcileOrder } from '../../src/reconcile/match.js';
import { createMemoryPackageStore } from '../../src/reconcile/package-store.js';
import type { Selection } from '../../src/reconcile/select.js';
import { at, expected, nowAt, pkg, readOf, sentPayload } from './builders.js';
import { createFakeApi, httpError, type FakeApi } from './fake-api.js';
import { createWorld } from './support.js';
import { useTempFolder } from '../support/temp-dir.js';

const dir = useTempFolder('reconcile-ahead-modes');

const N = 45;
const idOf = (i: number) => `O-${String(i).padStart(2, '0')}`;
const L1 = [{ line: 'L1', productId: 'PRD-1001', quantity: 1 }];
const L2 = [{ line: 'L2', productId: 'PRD-1002', quantity: 2 }];
const quiet = { sleep: async () => {}, random: () => 0 };

interface World {
  api: FakeApi;
  ledger: Ledger | undefined;
}

/**
 * Two-line orders: some waiting, some 404, packages far apart (A- and Q- or Z-), replaced ones (C- by Y-),
 * one missing from the pages (M-: the suspects' re-read finds it), two orders no ledger sent; one
 * package a page, each page also carrying an older copy of a package seen and every third a newer one.
 */
async function world(withLedger: boolean): Promise<World> {
  const payloads = Array.from({ length: N }, (_, i) => {
    const payload = sentPayload(idOf(i));
    payload.orderDetails.lineItems.push({ productId: 'PRD-1002', customerLineItemId: 'L2', name: 'Cup', quantity: 2, unitPrice: 5 });
    payload.orderDetails.subTotal = 20;
    payload.orderDetails.grandTotal = 21.5;
    return payload;
  });
  const { api, ledger } = await createWorld(payloads, (api, payload, i) => {
    const id = idOf(i);
    if (i % 11 === 10) return;
    api.orders.set(id, readOf(expectOrderFromPayload(payload), i % 4 === 0 ? 'Waiting to Clear' : 'Shipped'));
    api.packages.set(`A-${id}`, pkg({ id: `A-${id}`, order: id, items: L1, delivered: i % 2 === 0 }));
    // Not shipped as far as the API says: a second package far behind raises no partial_shipment (no re-read hides a stale match).
    if (i % 4 === 0) api.packages.set(`Z-${id}`, pkg({ id: `Z-${id}`, order: id, items: L2 }));
    if (i % 4 === 1) api.packages.set(`Q-${id}`, pkg({ id: `Q-${id}`, order: id, items: L2 }));
    if (i % 4 === 2) {
      api.packages.set(`C-${id}`, pkg({ id: `C-${id}`, order: id, items: L2, replacedBy: `Y-${id}` }));
      api.packages.set(`Y-${id}`, pkg({ id: `Y-${id}`, order: id, items: L2 }));
    }
    if (i % 4 === 3) api.packages.set(`M-${id}`, pkg({ id: `M-${id}`, order: id, items: L2 }));
  }, { withLedger });
  for (const id of ['U-1', 'U-2']) {
    api.orders.set(id, readOf(expectOrderFromPayload(sentPayload(id)), 'Shipped'));
    api.packages.set(`B-${id}`, pkg({ id: `B-${id}`, order: id, items: L1 }));
  }
  const fetchPage = api.fetchTrackingUpdates.bind(api);
  api.fetchTrackingUpdates = async (query: TrackingQuery) => {
    const page = (await fetchPage({ ...query, itemsPerPage: 1 } as TrackingQuery)).parse();
    const data: PackageRecord[] = page.data.filter((p) => !p.packageId.startsWith('M-'));
    const n = (query as { pageNumber?: number }).pageNumber ?? 1;
    const older = api.packages.get(`A-${idOf((n * 7) % N | 1)}`);
    if (older) data.push({ ...structuredClone(older), lastUpdated: at(5) });
    // A newer copy, now delivered, of an order's package (every third page).
    const newer = api.packages.get(`A-${idOf(((n * 4) % 44) + 1)}`);
    if (newer && n % 3 === 0) {
      const t = structuredClone(newer.trackingDetail);
      t.trackingEvents = [...t.trackingEvents.filter((e) => e.eventType !== 'delivered'), { eventType: 'delivered', eventTimestamp: at(50 + n) }];
      data.push({ ...structuredClone(newer), lastUpdated: at(50 + n), trackingDetail: { ...t, trackingNumber: `TRK-N${n}` } });
    }
    return { parse: () => ({ ...page, data }) };
  };
  return { api, ledger };
}

function ordersFile(): string {
  const file = join(dir, 'orders.import-result.csv');
  writeFileSync(file, ['Customer Order ID,name,status,issues', ...Array.from({ length: N }, (_, i) => `${idOf(i)},Mug,accepted,`)].join('\r\n'));
  return file;
}

/** The same world reconciled twice, matched at the end and matched ahead; the orders matched ahead and reused. */
async function compare(make: () => Promise<World>, extra: Partial<ReconcileOptions>, matchAhead: ReconcileOptions['matchAhead'], concurrency: number) {
  const run = (w: World, options: Partial<ReconcileOptions>) =>
    reconcile({
      ...(w.ledger ? { ledger: w.ledger } : {}),
      client: w.api,
      now: nowAt(72),
      lateAfterDays: 1,
      out: join(dir, 'run.xlsx'),
      logger: silentLogger,
      perOrderMax: 0,
      bulkReadMin: 1,
      concurrency,
      readerOverrides: quiet,
      ...extra,
      ...options,
    });
  const atEnd = await run(await make(), { matchAhead: false });
  const lines: string[] = [];
  const ahead = await run(await make(), { matchAhead, logger: pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) }) });
  expect(ahead.orders).toEqual(atEnd.orders);
  expect({ ...ahead.report, output: null }).toEqual({ ...atEnd.report, output: null });
  const counts = lines.map((l) => JSON.parse(l) as { msg: string; reused: number }).find((l) => l.msg === 'orders matched')!;
  return { atEnd, reused: counts.reused };
}

describe('matched ahead or at the end, the same reconciliation', () => {
  for (const concurrency of [1, 3]) {
    for (const ahead of [{ quietPages: 0, step: 1 }, { quietPages: 2, step: 3 }]) {
      const name = `${concurrency} in flight, quiet after ${ahead.quietPages}`;
      it(`ledger, pages fetched ahead (${name})`, async () => {
        const { atEnd, reused } = await compare(() => world(true), {}, ahead, concurrency);
        expect(reused).toBeGreaterThan(0);
        // The world has what it should: unknown orders, 404s, suspects re-read (none left partial).
        expect(atEnd.orders.filter((o) => o.exceptions.some((e) => e.type === 'unknown_order'))).toHaveLength(2);
        expect(atEnd.orders.filter((o) => o.status === 'not_found')).toHaveLength(4);
        expect(atEnd.orders.some((o) => o.exceptions.some((e) => e.type === 'partial_shipment'))).toBe(false);
      });

      it(`ledger, the pages fetched ahead dropped for another window (${name})`, async () => {
        const make = async () => {
          const w = await world(true);
          const summarize = w.ledger!.summarizeSubmittedSince.bind(w.ledger);
          w.ledger!.summarizeSubmittedSince = async (since, upTo) => ({ ...(await summarize(since, upTo)), earliestSubmittedAt: at(20) });
          w.ledger!.earliestOrderDateSince = async () => at(20);
          return w;
        };
        expect((await compare(make, {}, ahead, concurrency)).reused).toBeGreaterThan(0);
      });

      it(`--orders with a ledger, and without (${name})`, async () => {
        const file = ordersFile();
        expect((await compare(() => world(true), { ordersFile: file }, ahead, concurrency)).reused).toBeGreaterThan(0);
        await compare(() => world(false), { ordersFile: file }, ahead, concurrency);
      });

      it(`--all (${name})`, async () => {
        await compare(() => world(true), { all: true, since: nowAt(-24) }, ahead, concurrency);
      });
    }
  }

  it('a whole window then an incremental one, laid over the store', async () => {
    const twoRuns = async (matchAhead: ReconcileOptions['matchAhead']) => {
      const w = await world(true);
      const store = createMemoryPackageStore();
      const run = (hours: number) =>
        reconcile({ ledger: w.ledger!, client: w.api, store, now: nowAt(hours), lateAfterDays: 1, out: join(dir, 'inc.xlsx'), logger: silentLogger, perOrderMax: 0, bulkReadMin: 1, concurrency: 3, readerOverrides: quiet, matchAhead });
      const first = await run(30);
      for (let i = 0; i < N; i += 3) if (w.api.orders.has(idOf(i))) w.api.packages.set(`Z-${idOf(i)}`, pkg({ id: `Z-${idOf(i)}`, order: idOf(i), items: L2, lastUpdated: at(40) }));
      return [first.orders, (await run(72)).orders];
    };
    expect(await twoRuns({ quietPages: 0, step: 1 })).toEqual(await twoRuns(false));
  });
});

describe('a failing run, matched ahead', () => {
  const forbidden = () => new ForbiddenError('403', { method: 'GET', url: 'http://fake/api', status: 403, body: '' });
  const failPage = (api: FakeApi, page: number) => {
    const fetchPage = api.fetchTrackingUpdates.bind(api);
    api.fetchTrackingUpdates = async (q) => {
      if ((q as { pageNumber?: number }).pageNumber === page) throw httpError(400);
      return fetchPage(q);
    };
  };
  const cases: [string, (api: FakeApi) => void][] = [
    ['a page fails early', (api) => failPage(api, 5)],
    ['a page fails late, orders matched ahead meanwhile', (api) => failPage(api, 60)],
    ['an order read is refused while the pages come in', (api) => {
      const getOrder = api.getOrder.bind(api);
      let n = 0;
      api.getOrder = async (id, o) => (++n === 20 ? Promise.reject(forbidden()) : getOrder(id, o));
      api.listOrders = async () => Promise.reject(httpError(500));
    }],
    ['list orders is refused', (api) => {
      api.listOrders = async () => Promise.reject(forbidden());
    }],
  ];
  for (const [name, breakIt] of cases) {
    it(`${name}: rejects, with nothing left running and no rejection unhandled`, async () => {
      const unhandled: unknown[] = [];
      const onUnhandled = (e: unknown) => void unhandled.push(e);
      process.on('unhandledRejection', onUnhandled);
      try {
        const w = await world(true);
        breakIt(w.api);
        const running = reconcile({
          ledger: w.ledger!, client: w.api, now: nowAt(72), lateAfterDays: 1, out: join(dir, 'fail.xlsx'), logger: silentLogger, perOrderMax: 0, bulkReadMin: 1,
          concurrency: 2, maxAttempts: 1, readerOverrides: quiet, matchAhead: { quietPages: 0, step: 1 },
        });
        await expect(running).rejects.toThrow();
        const calls = w.api.calls.length;
        for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
        expect(w.api.calls.length).toBe(calls);
        expect(unhandled).toEqual([]);
      } finally {
        process.off('unhandledRejection', onUnhandled);
      }
    });
  }
});

describe('gatherFromApi and its whilePaging hook', () => {
  /** 30 orders of a file, one package a page; the hook matches ahead and notes when it has ended. */
  function setup(failAtPage?: number) {
    const api = createFakeApi();
    const ids = Array.from({ length: 30 }, (_, i) => idOf(i));
    const expectedOrders = new Map(ids.map((id) => [id, expected(id, [{ id: 'L1', productId: 'PRD-1001', quantity: 1 }])]));
    for (const [id, e] of expectedOrders) {
      api.orders.set(id, readOf(e, 'Shipped'));
      api.packages.set(`P-${id}`, pkg({ id: `P-${id}`, order: id, items: L1 }));
    }
    const fetchPage = api.fetchTrackingUpdates.bind(api);
    api.fetchTrackingUpdates = async (q) => {
      if (failAtPage !== undefined && (q as { pageNumber?: number }).pageNumber === failAtPage) throw httpError(400);
      return fetchPage({ ...q, itemsPerPage: 1 } as TrackingQuery);
    };
    const selection: Selection = { mode: 'orders-file', description: '', customerOrderIds: ids, expected: expectedOrders, reads: new Map(), since: null, input: [] };
    const ahead = createMatchAhead((id, read, packages) => reconcileOrder({ expected: expectedOrders.get(id), read, packages, now: nowAt(72), lateAfterDays: 1, customerOrderId: id }), { quietPages: 0, step: 1 });
    const state = { isHookDone: false, paging: undefined as Paging | undefined };
    const gathering = gatherFromApi({
      selection,
      reader: createApiReader({ client: api, logger: silentLogger, concurrency: 2, maxAttempts: 1, ...quiet }),
      store: createMemoryPackageStore(),
      now: nowAt(72),
      overlapMs: 0,
      perOrderMax: 0,
      bulkReadMin: 1000,
      logger: silentLogger,
      whilePaging: async (paging) => {
        state.paging = paging;
        await ahead.whilePaging(paging);
        state.isHookDone = true;
      },
    });
    return { gathering, state, ahead };
  }

  it('has ended the hook when it returns, and the lists matched ahead are the ones it returns', async () => {
    const { gathering, state, ahead } = setup();
    const gathered = await gathering;
    expect(state.isHookDone).toBe(true);
    expect(state.paging!.packages.byOrder).toBe(gathered.packages);
    expect(ahead.counts().matchedAhead).toBeGreaterThan(0);
    const reused = [...gathered.packages].filter(([id, list]) => ahead.reuse(id, gathered.freshReads.get(id), list));
    expect(reused.length).toBe(ahead.counts().matchedAhead);
    ahead.clear();
    expect(ahead.counts().matchedAhead).toBe(0);
  });

  it('has ended the hook when it throws for a failed page', async () => {
    const { gathering, state } = setup(20);
    await expect(gathering).rejects.toThrow('status 400');
    expect(state.isHookDone).toBe(true);
  });
});
