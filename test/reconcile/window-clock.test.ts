/**
 * Where reconcile's tracking window starts and ends, and the instant a run goes by (QA findings A1,
 * A2, A5, C2): the start is bounded by each order's orderDate (on the API's clock) as well as its
 * submittedAt (this machine's), the ledger's prefetch starts where the selection does, the start
 * never passes the end, and the API's time is a whole second.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ApiClient, TrackingQuery } from '../../src/api/types.js';
import { openLedger } from '../../src/ledger/index.js';
import { MIGRATIONS, migrateSchema } from '../../src/ledger/sqlite/schema.js';
import { openDatabase } from '../../src/sqlite/open-database.js';
import { silentLogger } from '../../src/log.js';
import { readRunNow } from '../../src/reconcile/api-clock.js';
import { expectOrderFromPayload } from '../../src/reconcile/expected.js';
import { reconcile } from '../../src/reconcile/reconcile-run.js';
import { createMemoryPackageStore } from '../../src/reconcile/package-store.js';
import { ledgerClockNote } from '../../src/reconcile/select.js';
import { earliestUpdateOf, planTrackingWindow } from '../../src/reconcile/window.js';
import { CATALOGUE_IDS, startSandbox } from '../../src/sandbox/index.js';
import { at, nowAt, pkg, readOf, sentPayload } from './builders.js';
import { createFakeApi } from './fake-api.js';
import { useTempFolder } from '../support/temp-dir.js';
import { sandboxClient } from './support.js';

const H = 3_600_000;
const dir = useTempFolder('window-clock-unit');

describe('the earliest instant an order’s packages can have been updated', () => {
  it('is the orderDate when this machine recorded the order later (its clock ahead, or the API’s moved back)', async () => {
    expect(earliestUpdateOf({ orderDate: '2030-03-01T10:00:00Z', submittedAt: '2030-03-03T10:00:00.000Z' })).toBe(Date.parse('2030-03-01T10:00:00Z'));
  });

  it('is submittedAt when that is earlier, and reads an orderDate’s offset, or none, as the API does', async () => {
    expect(earliestUpdateOf({ orderDate: '2030-03-01T10:00:00-05:00', submittedAt: '2030-03-01T12:00:00.000Z' })).toBe(Date.parse('2030-03-01T12:00:00Z'));
    expect(earliestUpdateOf({ orderDate: '2030-03-01 10:00', submittedAt: null })).toBe(Date.parse('2030-03-01T10:00:00Z'));
    expect(earliestUpdateOf({ orderDate: '2030-03-01T10:00:00+0530' })).toBe(Date.parse('2030-03-01T04:30:00Z'));
  });

  it('is null when neither is a date-time, and skips the one that is not', async () => {
    expect(earliestUpdateOf({ orderDate: null, submittedAt: null })).toBeNull();
    expect(earliestUpdateOf({ orderDate: 'soon' })).toBeNull();
    expect(earliestUpdateOf({ orderDate: 'soon', submittedAt: '2030-03-01T12:00:00.000Z' })).toBe(Date.parse('2030-03-01T12:00:00Z'));
  });
});

describe('the tracking window when the selection starts after the run’s now (--now in the past of the ledger)', () => {
  const coverage = { start: '2030-03-01T00:00:00.000Z', end: '2030-03-05T00:00:00.000Z' };
  const now = new Date('2030-03-06T00:00:00.000Z');

  it('never starts after it ends (the API refuses startDate after endDate): an empty span, and a coverage of just that', async () => {
    const plan = planTrackingWindow({ selectionStart: new Date('2030-03-07T00:00:00.000Z'), now, coverage, watermark: coverage.end, overlapMs: H });
    expect(plan).toEqual({
      startDate: '2030-03-06T00:00:00.000Z',
      endDate: '2030-03-06T00:00:00.000Z',
      isIncremental: true,
      // Nothing between the old end and now was fetched: the coverage cannot go on from the old one.
      nextCoverage: { start: '2030-03-06T00:00:00.000Z', end: '2030-03-06T00:00:00.000Z' },
    });
  });

  it('grows the coverage as before when the watermark is the run’s now', async () => {
    const upToNow = { start: coverage.start, end: now.toISOString() };
    const plan = planTrackingWindow({ selectionStart: new Date('2030-03-07T00:00:00.000Z'), now, coverage: upToNow, watermark: upToNow.end, overlapMs: H });
    expect([plan.startDate, plan.endDate]).toEqual([now.toISOString(), now.toISOString()]);
    expect(plan.nextCoverage).toEqual(upToNow);
  });

  it('fetches the whole window once, not from the watermark, when a store’s coverage starts after the (now earlier) selection', async () => {
    const plan = planTrackingWindow({ selectionStart: new Date('2030-02-27T00:00:00.000Z'), now, coverage, watermark: coverage.end, overlapMs: H });
    expect([plan.startDate, plan.isIncremental]).toEqual(['2030-02-27T00:00:00.000Z', false]);
    expect(plan.nextCoverage).toEqual({ start: '2030-02-27T00:00:00.000Z', end: now.toISOString() });
  });
});

describe('the ledger’s earliest order date of a selection', () => {
  it('is the earliest orderDate, as a UTC instant, of the orders accepted since then (offsets read, others left out)', async () => {
    let clock = new Date('2030-03-03T00:00:00.000Z');
    const ledger = await openLedger(':memory:', { now: () => clock });
    const seeding = await ledger.startRun({ command: 'import', files: [] });
    const accept = async (id: string, orderDate: string, submittedAt: string) => {
      clock = new Date(submittedAt);
      await seeding.recordIntent({ payload: sentPayload(id, orderDate) });
      await seeding.markSending(id);
      await seeding.markAccepted(id);
    };
    await accept('A', '2030-02-20T00:00:00Z', '2030-03-01T00:00:00.000Z');
    await accept('B', '2030-03-01T20:00:00-05:00', '2030-03-03T00:00:00.000Z');
    await accept('C', '2030-03-02T03:00:00+02:00', '2030-03-04T00:00:00.000Z');
    // Never accepted: not part of any selection.
    await seeding.recordIntent({ payload: sentPayload('D', '2030-01-15T00:00:00Z') });
    expect((await ledger.earliestOrderDateSince('2030-03-02T00:00:00Z'))).toBe('2030-03-02T01:00:00.000Z');
    expect((await ledger.earliestOrderDateSince(new Date('2030-02-01T00:00:00Z')))).toBe('2030-02-20T00:00:00.000Z');
    expect((await ledger.earliestOrderDateSince('2030-03-05T00:00:00Z'))).toBeNull();
    await ledger.close();
  });

  it('is filled in for a ledger written before the order_date column existed', async () => {
    const path = join(dir, 'v2.db');
    const db = openDatabase(path);
    migrateSchema(db, MIGRATIONS.slice(0, 2));
    const insert = db.prepare(`INSERT INTO orders (customer_order_id, payload_hash, payload, state, recorded_at, updated_at, submitted_at)
      VALUES (?, 'h', ?, 'accepted', '2030-03-04T00:00:00.000Z', '2030-03-04T00:00:00.000Z', '2030-03-04T00:00:00.000Z')`);
    insert.run('OLD-1', JSON.stringify(sentPayload('OLD-1', '2030-03-02T23:30:00-01:00')));
    insert.run('OLD-2', JSON.stringify(sentPayload('OLD-2', '2030-03-03T12:00:00.000Z')));
    db.close();
    const ledger = await openLedger(path);
    expect((await ledger.earliestOrderDateSince('2030-03-01T00:00:00Z'))).toBe('2030-03-03T00:30:00.000Z');
    await ledger.close();
  });
});

describe('a ledger selection whose orders were recorded days after their orderDate', () => {
  it('pages tracking updates from the earliest orderDate, once: the prefetch starts where the selection does', async () => {
    const api = createFakeApi();
    // This machine recorded the orders two days after the API created them.
    const ledger = await openLedger(':memory:', { now: () => nowAt(48) });
    const seeding = await ledger.startRun({ command: 'import', files: [] });
    for (let i = 0; i < 10; i++) {
      const id = `O-${i}`;
      // The earliest orderDate given with an offset: 04:00-05:00 is at(-1), 09:00 UTC.
      const p = sentPayload(id, i === 3 ? '2030-03-01T04:00:00-05:00' : at(i));
      await seeding.recordIntent({ payload: p });
      await seeding.markSending(id);
      await seeding.markAccepted(id);
      api.orders.set(id, readOf(expectOrderFromPayload(p), 'Shipped'));
      // Shipped, and last updated, before this machine recorded the order.
      api.packages.set(`P-${id}`, pkg({ id: `P-${id}`, order: id, lastUpdated: at(12), items: [{ line: 'L1', productId: 'PRD-1001', quantity: 1 }] }));
    }
    await seeding.finish({ summary: {} });
    const out = await reconcile({
      ledger,
      client: api,
      now: nowAt(72),
      lateAfterDays: 3,
      out: join(dir, 'prefetch.xlsx'),
      logger: silentLogger,
      store: createMemoryPackageStore(),
      perOrderMax: 2,
      readerOverrides: { sleep: async () => {}, random: () => 0 },
    });
    const queries = api.callsOf('getTrackingUpdates').map((c) => c.arg as Extract<TrackingQuery, { startDate: string }>);
    expect(queries.map((q) => [q.startDate, q.endDate])).toEqual([[at(-2), at(72)]]);
    expect(out.report.summary).toMatchObject({ shipped: 10 });
    await ledger.close();
  });
});

describe('the instant a run without --now goes by', () => {
  it('is the whole second of the API’s Date header, not plus the milliseconds this machine counted since', async () => {
    const heard = new Date('2031-05-04T08:00:00.999Z');
    expect((await readRunNow({ readServerNow: async () => heard }, heard, silentLogger)).toISOString()).toBe('2031-05-04T08:00:00.000Z');
    const local = new Date('2031-05-04T08:00:00.123Z');
    expect(await readRunNow({ readServerNow: async () => null }, local, silentLogger)).toBe(local);
  });

  it('judges an order exactly --late-after-days old not late, in every run at that second, and late a second later', async () => {
    const start = '2031-05-04T08:00:00.000Z';
    const sandbox = await startSandbox({ startTime: start, freezeClock: true, seed: 3 });
    // This machine's clock ticks a millisecond each time it is read: serverNow adds what it counted.
    let localMs = Date.parse(start);
    const clients: ApiClient[] = [];
    const newClient = () => {
      const client = sandboxClient(sandbox, () => ++localMs);
      clients.push(client);
      return client;
    };
    try {
      const ledger = await openLedger(':memory:', { now: () => new Date(localMs) });
      const seeding = await ledger.startRun({ command: 'import', files: [] });
      const p = sentPayload('EXACT-3', new Date(Date.parse(start) - 3 * 24 * H).toISOString());
      p.orderDetails.lineItems[0]!.productId = CATALOGUE_IDS.samples[0]!;
      await seeding.recordIntent({ payload: p });
      await seeding.markSending('EXACT-3');
      expect((await newClient().createOrder(p)).status).toBe(201);
      await seeding.markAccepted('EXACT-3');
      await seeding.finish({ summary: {} });
      let n = 0;
      const run = () =>
        reconcile({ ledger, client: newClient(), now: new Date(localMs), isNowFromApi: true, lateAfterDays: 3, out: join(dir, `boundary-${++n}.xlsx`), logger: silentLogger, store: createMemoryPackageStore() });
      for (let i = 0; i < 2; i++) {
        const atBoundary = await run();
        expect(atBoundary.asOf.toISOString()).toBe(start);
        expect(atBoundary.orders.at(0)!.exceptions.map((e) => e.type)).not.toContain('late_shipment');
      }
      sandbox.advanceClock(1 / 3600);
      const after = await run();
      expect(after.asOf.toISOString()).toBe('2031-05-04T08:00:01.000Z');
      expect(after.orders.at(0)!.exceptions.map((e) => e.type)).toContain('late_shipment');
      await ledger.close();
    } finally {
      await Promise.all(clients.map((c) => c.close()));
      await sandbox.close();
    }
  });
});

describe('the Summary sheet’s selection, on this machine’s clock', () => {
  it('says so, and how far the API’s clock (Generated, Fetched) is from it, when the two differ', async () => {
    const local = new Date('2031-05-06T08:00:00.000Z');
    expect(ledgerClockNote({ now: new Date('2031-05-04T08:00:00.000Z'), ledgerNow: local })).toBe(
      ", by this machine's clock, which recorded them (Generated and Fetched are on the API's clock, 2.0 days behind this machine's)",
    );
    expect(ledgerClockNote({ now: new Date('2031-05-06T13:00:00.000Z'), ledgerNow: local })).toMatch(/5\.0 hours ahead of this machine's\)$/);
  });

  it('says nothing when the clocks agree within a minute, or the run is on one clock', async () => {
    const local = new Date('2031-05-06T08:00:00.000Z');
    expect(ledgerClockNote({ now: new Date('2031-05-06T08:00:30.000Z'), ledgerNow: local })).toBe('');
    expect(ledgerClockNote({ now: local })).toBe('');
  });
});
