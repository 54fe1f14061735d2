/**
 * Without --now, reconcile goes by the API's clock (the Date header of its answers), not this
 * machine's: the tracking window ends, lateness is judged and coverage is recorded at the API's
 * time. No Date header: the local clock. --now: always --now.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TrackingQuery } from '../../src/api/types.js';
import { runReconcileAt } from '../support/run-reconcile-at.js';
import { openLedger } from '../../src/ledger/index.js';
import type { Ledger } from '../../src/ledger/types.js';
import { silentLogger } from '../../src/log.js';
import { expectOrderFromPayload } from '../../src/reconcile/expected.js';
import { reconcile, type ReconcileOptions } from '../../src/reconcile/reconcile-run.js';
import { createMemoryPackageStore } from '../../src/reconcile/package-store.js';
import { TRACKING_WATERMARK } from '../../src/reconcile/window.js';
import { CATALOGUE_IDS, startSandbox } from '../../src/sandbox/index.js';
import { at, nowAt, pkg, readOf, sentPayload } from './builders.js';
import type { FakeApi } from './fake-api.js';
import { createWorld, sandboxClient } from './support.js';
import { recordingLogger } from '../support/recording-logger.js';
import { useTempFolder } from '../support/temp-dir.js';

const dir = useTempFolder('reconcile-clock');

const ORDERS = 30;
/** This machine's clock, and the API's four days ahead of it. */
const LOCAL_HOURS = 24;
const API_HOURS = LOCAL_HOURS + 96;

/**
 * 30 accepted orders; by the API's clock the first half shipped (packages updated after this
 * machine's now), the rest still wait (late, by the API's clock).
 */
async function world(serverTime: Date | null): Promise<{ api: FakeApi; ledger: Ledger }> {
  const payloads = Array.from({ length: ORDERS }, (_, i) => sentPayload(`O-${String(i).padStart(2, '0')}`));
  const w = await createWorld(payloads, (api, p, i) => {
    const id = p.orderDetails.customerOrderId;
    const shipped = i < ORDERS / 2;
    api.orders.set(id, readOf(expectOrderFromPayload(p), shipped ? 'Shipped' : 'Waiting to Clear'));
    if (shipped) api.packages.set(`P-${id}`, pkg({ id: `P-${id}`, order: id, lastUpdated: at(LOCAL_HOURS + 48), items: [{ line: 'L1', productId: 'PRD-1001', quantity: 1 }] }));
  });
  w.api.serverTime = serverTime;
  return w;
}

let n = 0;
function run(api: FakeApi, ledger: Ledger, extra: Partial<ReconcileOptions>) {
  return reconcile({
    ledger,
    client: api,
    now: nowAt(LOCAL_HOURS),
    lateAfterDays: 3,
    out: join(dir, `run-${++n}.xlsx`),
    logger: silentLogger,
    store: createMemoryPackageStore(),
    perOrderMax: 0,
    readerOverrides: { sleep: async () => {}, random: () => 0 },
    ...extra,
  });
}

const windowEnds = (api: FakeApi) => [...new Set(api.callsOf('getTrackingUpdates').map((c) => (c.arg as Extract<TrackingQuery, { endDate: string }>).endDate))];


describe('the clock a run without --now goes by', () => {
  it("is the API's: the window ends, lateness is judged and the watermark set at the API's time, as with --now at that time", async () => {
    const fromApi = await world(nowAt(API_HOURS));
    const out = await run(fromApi.api, fromApi.ledger, { isNowFromApi: true });
    expect(windowEnds(fromApi.api)).toEqual([at(API_HOURS)]);
    expect(await fromApi.ledger.getWatermark(TRACKING_WATERMARK)).toBe(at(API_HOURS));
    expect(out.report.summary).toMatchObject({ shipped: ORDERS / 2, exception: ORDERS / 2 });
    expect(new Set(out.orders.flatMap((o) => o.exceptions.map((e) => e.type)))).toEqual(new Set(['late_shipment']));
    expect(out.output).toBe(join(dir, `run-${n}.xlsx`));

    const pinned = await world(null);
    const same = await run(pinned.api, pinned.ledger, { now: nowAt(API_HOURS) });
    expect(out.report.orders).toEqual(same.report.orders);
  });

  it('is the local clock when the API sends no Date header', async () => {
    const w = await world(null);
    const out = await run(w.api, w.ledger, { isNowFromApi: true });
    expect(windowEnds(w.api)).toEqual([at(LOCAL_HOURS)]);
    expect(await w.ledger.getWatermark(TRACKING_WATERMARK)).toBe(at(LOCAL_HOURS));
    expect(out.report.summary).toMatchObject({ exception: 0 });
  });

  it("selects the ledger on this machine's clock, which wrote its submittedAt times", async () => {
    // Accepted 23 hours ago by this machine's clock; the API's clock is four days ahead.
    const w = await world(nowAt(API_HOURS));
    const out = await run(w.api, w.ledger, { isNowFromApi: true, hours: 24 });
    expect(out.orders).toHaveLength(ORDERS);
  });

  it('starts the window earlier by as much as this machine runs ahead of the API', async () => {
    const w = await world(nowAt(LOCAL_HOURS - 5));
    await run(w.api, w.ledger, { isNowFromApi: true });
    // orderDate at(0) (submitted at(1) by this machine, at(-4) by the API): the start is the orderDate, less the hour of overlap and the 5 hours.
    const starts = [...new Set(w.api.callsOf('getTrackingUpdates').map((c) => (c.arg as Extract<TrackingQuery, { startDate: string }>).startDate))];
    expect(starts).toEqual([at(-6)]);
  });

  it('is --now when given, whatever the API says', async () => {
    const w = await world(nowAt(API_HOURS));
    await run(w.api, w.ledger, { now: nowAt(LOCAL_HOURS + 1) });
    expect(windowEnds(w.api)).toEqual([at(LOCAL_HOURS + 1)]);
  });

  it("names the default workbook after the API time, and judges --since by this machine's clock (the ledger's)", async () => {
    const w = await world(nowAt(API_HOURS));
    const out = await run(w.api, w.ledger, { isNowFromApi: true, out: `${dir}/`, since: nowAt(LOCAL_HOURS - 1) });
    expect(out.output).toBe(join(dir, 'reconcile-20300306-100000.xlsx'));
    const ahead = await world(nowAt(API_HOURS));
    await expect(run(ahead.api, ahead.ledger, { isNowFromApi: true, since: nowAt(LOCAL_HOURS + 1) })).rejects.toThrow(/in the future/);
    const behind = await world(nowAt(LOCAL_HOURS - 2));
    await expect(run(behind.api, behind.ledger, { isNowFromApi: true, since: nowAt(LOCAL_HOURS - 1) })).resolves.toBeDefined();
  });

  it("logs the API's time and the skew when the clocks differ by more than a minute, and nothing when they agree", async () => {
    const far = recordingLogger();
    const w = await world(nowAt(API_HOURS));
    await run(w.api, w.ledger, { isNowFromApi: true, logger: far.logger });
    const notice = far.lines.find((l) => 'skewMs' in l);
    expect(notice).toMatchObject({ level: 30, apiTime: at(API_HOURS), localTime: at(LOCAL_HOURS), skewMs: 96 * 3_600_000 });

    const near = recordingLogger();
    const close = await world(new Date(nowAt(LOCAL_HOURS).getTime() + 30_000));
    await run(close.api, close.ledger, { isNowFromApi: true, logger: near.logger });
    expect(near.lines.filter((l) => 'skewMs' in l)).toEqual([]);
  });
});

describe('reconcile against a sandbox whose clock was moved, without --now', () => {
  it('finds what shipped by the sandbox clock, as a run given that time as --now does', async () => {
    const start = '2031-05-04T08:00:00.000Z';
    const sandbox = await startSandbox({ startTime: start, freezeClock: true, seed: 7 });
    // The cron machine's clock stays where the sandbox's started: it is the one that is "wrong".
    const localNow = new Date(start);
    const client = sandboxClient(sandbox, () => localNow.getTime());
    const clients = [client];
    const ledgerPaths = [join(dir, 'api-clock.db'), join(dir, 'pinned.db')];
    try {
      const ledgers = await Promise.all(ledgerPaths.map((path) => openLedger(path, { now: () => sandbox.now() })));
      const runs = await Promise.all(ledgers.map((l) => l.startRun({ command: 'import', files: [] })));
      for (let i = 0; i < ORDERS; i++) {
        const p = sentPayload(`SB-${String(i).padStart(2, '0')}`, sandbox.now().toISOString());
        p.orderDetails.lineItems[0]!.productId = CATALOGUE_IDS.samples[i % CATALOGUE_IDS.samples.length]!;
        expect((await client.createOrder(p)).status).toBe(201);
        for (const seeding of runs) {
          await seeding.recordIntent({ payload: p });
          await seeding.markSending(p.orderDetails.customerOrderId);
          await seeding.markAccepted(p.orderDetails.customerOrderId, { submittedAt: sandbox.now() });
        }
      }
      for (const [k, seeding] of runs.entries()) {
        await seeding.finish({ summary: {} });
        await ledgers[k]!.close();
      }
      sandbox.advanceClock(96);

      // Each run with a new client (as a new CLI process would): it has heard nothing from the API yet.
      const runBoth = async (name: string) => {
        const reconciling = sandboxClient(sandbox, () => localNow.getTime());
        clients.push(reconciling);
        const common = {
          connection: { auth: 'oauth' as const },
          useSandbox: false,
          concurrency: 4,
          maxAttempts: 2,
          lateAfterDays: 3,
          logger: silentLogger,
          connectionOverride: { client: reconciling, baseUrl: sandbox.url, isSandbox: false, close: async () => {} },
        };
        const byApi = await runReconcileAt({ ...common, ledgerPath: ledgerPaths[0]!, now: localNow, isNowPinned: false, out: join(dir, `${name}-by-api.xlsx`) });
        const byNow = await runReconcileAt({ ...common, ledgerPath: ledgerPaths[1]!, now: sandbox.now(), isNowPinned: true, out: join(dir, `${name}-by-now.xlsx`) });
        expect(byApi.report.orders).toEqual(byNow.report.orders);
        expect(byApi.orders.flatMap((o) => o.exceptions.map((e) => e.type))).not.toContain('partial_shipment');
        const ledger = await openLedger(ledgerPaths[0]!);
        expect((await ledger.getWatermark(TRACKING_WATERMARK))).toBe(sandbox.now().toISOString());
        await ledger.close();
        return byApi;
      };
      const first = await runBoth('first');
      expect((first.report.summary.shipped ?? 0) + (first.report.summary.delivered ?? 0)).toBeGreaterThan(ORDERS / 2);
      // A day on: the next run fetches what changed since the API time the last one ended at.
      sandbox.advanceClock(24);
      const second = await runBoth('second');
      expect(second.report.summary.delivered ?? 0).toBeGreaterThan(first.report.summary.delivered ?? 0);
    } finally {
      await Promise.all(clients.map((c) => c.close()));
      await sandbox.close();
    }
  });
});
