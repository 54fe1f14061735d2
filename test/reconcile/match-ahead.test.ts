/**
 * Matching while the pages come in (match-ahead.ts, fetched-packages.ts): an order is matched once its
 * packages have gone quiet, and that match is used at the end only if nothing it was made from changed.
 */
import { join } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { TrackingQuery } from '../../src/api/types.js';
import type { OrderRead } from '../../src/contract/schemas.js';
import { silentLogger } from '../../src/log.js';
import { expectOrderFromPayload } from '../../src/reconcile/expected.js';
import { FetchedPackages } from '../../src/reconcile/fetched-packages.js';
import type { Paging } from '../../src/reconcile/gather.js';
import { reconcile, type ReconcileOptions } from '../../src/reconcile/reconcile-run.js';
import { createMatchAhead, type MatchOne } from '../../src/reconcile/match-ahead.js';
import type { ReconciledOrder } from '../../src/reconcile/types.js';
import { at, nowAt, pkg, readOf, sentPayload } from './builders.js';
import { createWorld } from './support.js';
import { useTempFolders } from '../support/temp-dir.js';

const item = (line = 'L1') => [{ line, productId: 'PRD-1001', quantity: 1 }];

describe('the packages fetched so far', () => {
  it('keeps the newest record of each package and notes the page each order last changed in', async () => {
    const book = new FetchedPackages();
    book.takePage([pkg({ id: 'P1', order: 'A', items: item(), lastUpdated: at(12) }), pkg({ id: 'P2', order: 'B', items: item() })]);
    book.takePage([pkg({ id: 'P1', order: 'A', items: item(), lastUpdated: at(11) })]);
    expect(book.lastChangeOf('A')).toBe(0);
    book.takePage([pkg({ id: 'P1', order: 'A', items: item(), lastUpdated: at(20) }), pkg({ id: 'P3', order: 'A', items: item('L2') })]);
    expect(book.pages).toBe(3);
    expect(book.lastChangeOf('A')).toBe(2);
    expect(book.lastChangeOf('B')).toBe(0);
    expect(book.lastChangeOf('C')).toBeUndefined();
    expect(book.byOrder.get('A')!.map((p) => [p.packageId, p.lastUpdated])).toEqual([
      ['P1', at(20)],
      ['P3', at(12)],
    ]);
  });

  it('hands out an order once its changes are quiet, once per change, in the order they came', async () => {
    const book = new FetchedPackages();
    book.takePage([pkg({ id: 'P1', order: 'A', items: item() }), pkg({ id: 'P2', order: 'B', items: item() })]);
    book.takePage([pkg({ id: 'P3', order: 'C', items: item() })]);
    expect(book.takeQuiet(2, 10)).toEqual([]);
    book.takePage([pkg({ id: 'P4', order: 'A', items: item('L2') })]);
    // Page 0 is two pages back: B is quiet; A changed again in page 2, and waits for that change.
    expect(book.takeQuiet(2, 10)).toEqual(['B']);
    book.takePage([]);
    expect(book.takeQuiet(2, 10)).toEqual(['C']);
    book.takePage([]);
    expect(book.takeQuiet(2, 10)).toEqual(['A']);
    expect(book.takeQuiet(0, 10)).toEqual([]);
  });

  it('hands out at most the number asked for, the rest the next time', async () => {
    const book = new FetchedPackages();
    book.takePage(['A', 'B', 'C'].map((order, i) => pkg({ id: `P${i}`, order, items: item() })));
    expect(book.takeQuiet(0, 2)).toEqual(['A', 'B']);
    expect(book.takeQuiet(0, 2)).toEqual(['C']);
  });

  it('wakes whoever waits for the next page', async () => {
    const book = new FetchedPackages();
    const next = book.nextPage();
    book.takePage([]);
    await expect(next).resolves.toBeUndefined();
  });
});

/** A paging in the tester's hands: pages taken, reads and the end settled when the test says. */
function paging() {
  const packages = new FetchedPackages();
  let giveReads: (reads: Map<string, OrderRead | null> | null) => void = () => undefined;
  let end: (error?: Error) => void = () => undefined;
  const reads = new Promise<Map<string, OrderRead | null> | null>((resolve) => (giveReads = resolve));
  const pagesDone = new Promise<void>((resolve, reject) => (end = (error) => (error ? reject(error) : resolve())));
  pagesDone.catch(() => undefined);
  const p: Paging = { packages, reads, pagesDone };
  return { p, packages, giveReads, end };
}

/** Turns of the event loop, for the matcher's steps to run. */
async function turns(n = 5): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}

function recordingMatcher() {
  const calls: string[] = [];
  const matchOne: MatchOne = (id, read, packages) => {
    calls.push(id);
    return { customerOrderId: id, status: read === null ? 'not_found' : 'shipped', packages: packages.map((p) => p.packageId) } as unknown as ReconciledOrder;
  };
  return { calls, matchOne };
}

describe('matching ahead', () => {
  const read = (id: string) => ({ customerOrderId: id, lineItems: [] }) as unknown as OrderRead;

  it('matches quiet orders whose read is in, and hands the match back only for the same read and unchanged packages', async () => {
    const { p, packages, giveReads, end } = paging();
    const { calls, matchOne } = recordingMatcher();
    const ahead = createMatchAhead(matchOne, { quietPages: 1, step: 1 });
    const running = ahead.whilePaging(p);
    packages.takePage([pkg({ id: 'P1', order: 'A', items: item() }), pkg({ id: 'P2', order: 'B', items: item() }), pkg({ id: 'P3', order: 'X', items: item() })]);
    packages.takePage([]);
    await turns();
    // Nothing before the reads are in.
    expect(calls).toEqual([]);
    const readA = read('A');
    giveReads(new Map<string, OrderRead | null>([['A', readA], ['B', null]]));
    await turns();
    // X has no read (read after the pages, matched then); B's read is a 404, matched as such.
    expect(calls).toEqual(['A', 'B']);
    packages.takePage([pkg({ id: 'P4', order: 'B', items: item('L2') })]);
    end();
    await running;
    const listA = packages.byOrder.get('A')!;
    expect(ahead.reuse('A', readA, listA)?.customerOrderId).toBe('A');
    // Another read object, another package list, or a change after the match: matched again at the end.
    expect(ahead.reuse('A', read('A'), listA)).toBeUndefined();
    expect(ahead.reuse('A', readA, [...listA])).toBeUndefined();
    expect(ahead.reuse('B', null, packages.byOrder.get('B')!)).toBeUndefined();
    expect(ahead.reuse('X', undefined, packages.byOrder.get('X')!)).toBeUndefined();
    expect(ahead.counts()).toEqual({ matchedAhead: 2, reused: 1 });
  });

  it('matches an order again once a later change has gone quiet', async () => {
    const { p, packages, giveReads, end } = paging();
    const { calls, matchOne } = recordingMatcher();
    const ahead = createMatchAhead(matchOne, { quietPages: 1, step: 10 });
    const running = ahead.whilePaging(p);
    const readA = read('A');
    giveReads(new Map([['A', readA]]));
    packages.takePage([pkg({ id: 'P1', order: 'A', items: item() })]);
    packages.takePage([]);
    await turns();
    packages.takePage([pkg({ id: 'P2', order: 'A', items: item('L2') })]);
    packages.takePage([]);
    await turns();
    end();
    await running;
    expect(calls).toEqual(['A', 'A']);
    expect((ahead.reuse('A', readA, packages.byOrder.get('A')!) as unknown as { packages: string[] }).packages).toEqual(['P1', 'P2']);
  });

  it('stops when the pages fail, or when they end before the reads are in', async () => {
    const failed = paging();
    const { calls, matchOne } = recordingMatcher();
    const running = createMatchAhead(matchOne, { quietPages: 0 }).whilePaging(failed.p);
    failed.giveReads(new Map([['A', read('A')]]));
    await turns();
    failed.end(new Error('page 3 failed'));
    await expect(running).resolves.toBeUndefined();

    const early = paging();
    const waiting = createMatchAhead(matchOne, { quietPages: 0 }).whilePaging(early.p);
    early.packages.takePage([pkg({ id: 'P1', order: 'A', items: item() })]);
    early.end();
    await expect(waiting).resolves.toBeUndefined();
    expect(calls).toEqual([]);
  });
});

describe('a reconciliation matched ahead', () => {
  const newDir = useTempFolders('reconcile-ahead');

  it('reports exactly what matching at the end reports, with orders whose packages come on pages far apart', async () => {
    const ORDERS = 40;
    const payloads = Array.from({ length: ORDERS }, (_, i) => sentPayload(`O-${String(i).padStart(2, '0')}`));
    const { api, ledger } = await createWorld(payloads, (api, payload, i) => {
      const id = payload.orderDetails.customerOrderId;
      const e = expectOrderFromPayload(payload);
      api.orders.set(id, readOf(e, i % 3 === 0 ? 'Waiting to Clear' : 'Shipped'));
      const lines = e.lines.map((l) => ({ line: l.customerLineItemId, productId: l.productId, quantity: l.quantity }));
      // Sorted by packageId, the API lists every "A" package before any "B" one: an order's second package comes ~40 pages after its first.
      if (i % 3 !== 0) api.packages.set(`A-${id}`, pkg({ id: `A-${id}`, order: id, items: lines.slice(0, 1), delivered: i % 2 === 0 }));
      if (i % 3 === 1 && lines.length > 1) api.packages.set(`B-${id}`, pkg({ id: `B-${id}`, order: id, items: lines.slice(1) }));
      if (i % 5 === 0) api.packages.set(`B-${id}-x`, pkg({ id: `B-${id}-x`, order: id, items: [{ line: 'L9', productId: 'PRD-1009', quantity: 2 }] }));
    });
    // One package a page.
    const fetchPage = api.fetchTrackingUpdates.bind(api);
    api.fetchTrackingUpdates = (query: TrackingQuery) => fetchPage({ ...query, itemsPerPage: 1 } as TrackingQuery);

    const dir = newDir();
    const lines: string[] = [];
    const run = (name: string, extra: Partial<ReconcileOptions>) =>
      reconcile({
        ledger,
        client: api,
        now: nowAt(72),
        lateAfterDays: 1,
        out: join(dir, `${name}.xlsx`),
        logger: silentLogger,
        perOrderMax: 0,
        bulkReadMin: 1,
        concurrency: 2,
        readerOverrides: { sleep: async () => {}, random: () => 0 },
        ...extra,
      });
    const atEnd = await run('end', { matchAhead: false });
    const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
    const ahead = await run('ahead', { matchAhead: { quietPages: 2, step: 1 }, logger });

    const counts = lines.map((l) => JSON.parse(l) as { msg: string; matchedAhead?: number; reused?: number }).find((l) => l.msg === 'orders matched')!;
    // Orders were matched ahead and reused, and some (a second package far behind the first) were not.
    expect(counts.reused).toBeGreaterThan(5);
    expect(counts.reused).toBeLessThan(ORDERS);
    expect(ahead.orders).toEqual(atEnd.orders);
    expect({ ...ahead.report, output: null }).toEqual({ ...atEnd.report, output: null });
  });
});
