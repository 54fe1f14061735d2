/**
 * A run past its memory window keeps its selected orders, reads, packages and matched orders on disk
 * (spill.ts). Forced to from the first order (or after a handful), it writes the same workbook, the
 * same --json report and the same confirmations as the run held in memory: on a world of split,
 * replaced, partial, missing and unknown orders, paged in a whole window and then an incremental one.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import ExcelJS from 'exceljs';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { failureOf } from '../../src/cli/exit-codes.js';
import { reconcile, type ReconcileOptions, type ReconcileResult } from '../../src/reconcile/reconcile-run.js';
import { OutputError } from '../../src/errors.js';
import { writeJsonReport } from '../../src/run-report/json.js';
import type { Ledger } from '../../src/ledger/types.js';
import { expectOrderFromPayload } from '../../src/reconcile/expected.js';
import { createMemoryPackageStore, type PackageStore } from '../../src/reconcile/package-store.js';
import { FetchedPackages } from '../../src/reconcile/fetched-packages.js';
import { RunSpill, type MemoryWindow } from '../../src/reconcile/spill.js';
import { TRACKING_WATERMARK } from '../../src/reconcile/window.js';
import { SpillList } from '../../src/reconcile/spill-list.js';
import { SpillMap } from '../../src/reconcile/spill-map.js';
import { buildOrderPayload } from '../support/order-payload.js';
import { at, nowAt, pkg, readOf, T0 } from './builders.js';
import type { FakeApi } from './fake-api.js';
import { createWorld } from './support.js';
import { useTempFolder } from '../support/temp-dir.js';

const dir = useTempFolder('reconcile-spill');

const ORDERS = 120;
const idOf = (i: number) => `SP-${String(i).padStart(3, '0')}`;

interface World {
  api: FakeApi;
  ledger: Ledger;
  store: PackageStore;
}

/**
 * Orders of two lines (3 and 2 units), in every shape a run meets: shipped in two or three packages,
 * a package replaced (and its replacement), units missing from a line marked Shipped (read again
 * directly), still waiting, unknown to the API (404); and packages of orders the ledger never sent.
 */
async function world(): Promise<World> {
  const payloads = Array.from({ length: ORDERS }, (_, i) => buildOrderPayload(idOf(i), { orderDate: T0, lines: [{ quantity: 3 }, { productId: 'PRD-1002', quantity: 2 }] }));
  const { api, ledger } = await createWorld(payloads, (api, payload, i) => {
    const id = idOf(i);
    if (i % 10 === 0) return;
    const sent = expectOrderFromPayload(payload);
    const isWaiting = i % 10 === 2;
    api.orders.set(id, readOf(sent, isWaiting ? 'Waiting to Clear' : 'Shipped'));
    if (isWaiting) return;
    const l1 = (quantity: number) => [{ line: 'L1', productId: 'PRD-1001', quantity }];
    const l2 = [{ line: 'L2', productId: 'PRD-1002', quantity: 2 }];
    const add = (n: number, items: ReturnType<typeof l1>, extra: { replacedBy?: string; delivered?: boolean; hours?: number } = {}) =>
      api.packages.set(`P-${id}-${n}`, pkg({ id: `P-${id}-${n}`, order: id, items, lastUpdated: at(extra.hours ?? 12 + (i % 9)), ...extra }));
    add(1, i % 7 === 3 ? l1(2) : l1(3), { delivered: i % 3 === 0, hours: i % 3 === 0 ? 40 : undefined });
    if (i % 10 === 5) {
      add(2, l2, { replacedBy: `P-${id}-3` });
      add(3, l2, { hours: 30 });
    } else add(2, l2);
  });
  // Paged in the order of their package IDs, which is not the order of their own IDs.
  for (let u = 0; u < 4; u++) {
    const id = `STRAY-${3 - u}`;
    api.orders.set(id, readOf(expectOrderFromPayload(buildOrderPayload(id, { orderDate: T0 })), 'Shipped'));
    api.packages.set(`P-STRAY-${u}`, pkg({ id: `P-STRAY-${u}`, order: id, items: [{ line: 'L1', productId: 'PRD-1001', quantity: 1 }], lastUpdated: at(20) }));
  }
  return { api, ledger, store: createMemoryPackageStore() };
}

/** A day later: some waiting orders shipped, some packages delivered. */
function moveOn(api: FakeApi): void {
  for (let i = 2; i < ORDERS; i += 20) {
    const id = idOf(i);
    for (const line of api.orders.get(id)!.lineItems) line.status = 'Shipped';
    api.packages.set(`P-${id}-9`, pkg({ id: `P-${id}-9`, order: id, items: [{ line: 'L1', productId: 'PRD-1001', quantity: 3 }, { line: 'L2', productId: 'PRD-1002', quantity: 2 }], lastUpdated: at(60) }));
  }
  for (let i = 1; i < ORDERS; i += 12) {
    const key = `P-${idOf(i)}-2`;
    const record = api.packages.get(key);
    if (record) api.packages.set(key, pkg({ id: key, order: idOf(i), items: [{ line: 'L2', productId: 'PRD-1002', quantity: 2 }], delivered: true, lastUpdated: at(62) }));
  }
}

interface Outcome {
  result: ReconcileResult;
  workbook: string;
  confirmations: string;
  log: string[];
}

async function run(w: World, name: string, hours: number, window: MemoryWindow | undefined, extra: Partial<ReconcileOptions> = {}): Promise<Outcome> {
  const log: string[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void log.push(line) });
  const workbook = join(dir, `${name}-${hours}.xlsx`);
  const confirmations = join(dir, `${name}-${hours}.csv`);
  const result = await reconcile({
    ledger: w.ledger,
    client: w.api,
    store: w.store,
    now: nowAt(hours),
    lateAfterDays: 2,
    out: workbook,
    confirmationsPath: confirmations,
    logger,
    perOrderMax: 0,
    bulkReadMin: 10,
    concurrency: 3,
    readerOverrides: { sleep: async () => {}, random: () => 0 },
    ...(window ? { memoryWindow: window, spillFolder: dir } : {}),
    ...extra,
  });
  return { result, workbook, confirmations, log };
}

/** Every cell of every sheet, as values. */
async function cellsOf(path: string): Promise<Record<string, unknown[][]>> {
  const book = new ExcelJS.Workbook();
  await book.xlsx.readFile(path);
  const out: Record<string, unknown[][]> = {};
  for (const sheet of book.worksheets) {
    out[sheet.name] = [];
    sheet.eachRow({ includeEmpty: true }, (row) => out[sheet.name]!.push((row.values as unknown[]).slice(1)));
  }
  return out;
}

/** The --json report as printed, without the paths that differ by name. */
function printed(result: ReconcileResult): unknown {
  const { output: _output, confirmations: _confirmations, ...rest } = JSON.parse(JSON.stringify(result.report)) as Record<string, unknown>;
  return rest;
}

/** The --json report as the CLI prints it (writeJsonReport), without the paths that differ by name. */
async function printedByCli(result: ReconcileResult): Promise<string> {
  let text = '';
  const out = new Writable({ write: (chunk: Buffer, _encoding, done) => void ((text += chunk.toString()), done()) });
  await writeJsonReport({ ...result.report, output: null, confirmations: null }, out);
  return text;
}

async function expectSame(inMemory: Outcome, spilled: Outcome): Promise<void> {
  expect(spilled.log.join('')).toContain('the run outgrew memory');
  expect(inMemory.log.join('')).not.toContain('the run outgrew memory');
  expect(Array.isArray(spilled.result.report.orders)).toBe(false);
  expect(await printedByCli(spilled.result)).toBe(await printedByCli(inMemory.result));
  expect(printed(spilled.result)).toEqual(printed(inMemory.result));
  expect([...spilled.result.orders]).toEqual([...inMemory.result.orders]);
  expect(await cellsOf(spilled.workbook)).toEqual(await cellsOf(inMemory.workbook));
  expect(readFileSync(spilled.confirmations, 'utf8')).toBe(readFileSync(inMemory.confirmations, 'utf8'));
}

describe('a run kept on disk past its memory window', () => {
  for (const window of [
    { orders: 0, packages: 0 },
    { orders: 7, packages: 11 },
  ]) {
    it(`writes what the run in memory writes (window of ${window.orders} orders, ${window.packages} packages)`, async () => {
      const memory = await world();
      const disk = await world();
      const first = [await run(memory, 'memory', 48, undefined), await run(disk, `disk-${window.orders}`, 48, window)] as const;
      expect(first[0].result.report.summary).toMatchObject({ not_found: 12, waiting: 12 });
      expect(first[0].result.orders.filter((o) => o.exceptions.some((e) => e.type === 'unknown_order'))).toHaveLength(4);
      await expectSame(...first);
      first[1].result.release();
      expect(() => [...first[1].result.orders]).toThrow();

      // The next night: only what changed is fetched, laid over what each store remembered.
      moveOn(memory.api);
      moveOn(disk.api);
      const second = [await run(memory, 'memory', 72, undefined), await run(disk, `disk-${window.orders}`, 72, window)] as const;
      expect(second[0].log.join('')).toContain('"incremental":true');
      await expectSame(...second);
      second[1].result.release();
    });
  }

  it('--all, the orders listed and read from the answer as it comes in', async () => {
    const memory = await world();
    const disk = await world();
    const all = { all: true, hours: 72 } as const;
    await expectSame(await run(memory, 'all-memory', 72, undefined, all), await run(disk, 'all-disk', 72, { orders: 3, packages: 5 }, all));
  });
});

describe('a run that cannot keep its work on disk', () => {
  it('says where and what to do, as a file it could not write (exit 2), and records nothing as done', async () => {
    const w = await world();
    const missing = join(dir, 'no-such-folder');
    const failed = await run(w, 'no-folder', 48, { orders: 0, packages: 0 }, { spillFolder: missing }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(OutputError);
    expect((failed as Error).message).toBe(
      `Reconcile could not keep its work on disk in ${missing}: no such file or folder (ENOENT). A run too large for memory keeps its packages and orders there ` +
        '(about 3 KB a package, given back when it ends): free some space there, or set TMPDIR to a folder on a disk with more room, then run reconcile again ' +
        '(nothing of this run was recorded as done).',
    );
    expect(failureOf(failed).exitCode).toBe(2);
    expect(await w.ledger.getWatermark(TRACKING_WATERMARK)).toBeNull();
  });
});

describe('the structures a run keeps on disk', () => {
  const items = (line = 'L1') => [{ line, productId: 'PRD-1001', quantity: 1 }];

  it('packages: the newest record of each, in first-seen order, read together by order', () => {
    const spill = new RunSpill({ orders: 0, packages: 1 }, dir);
    const book = new FetchedPackages(spill);
    book.takePage([pkg({ id: 'P1', order: 'A', items: items(), lastUpdated: at(12) }), pkg({ id: 'P2', order: 'B', items: items() })]);
    expect(book.isOnDisk).toBe(true);
    book.takePage([pkg({ id: 'P1', order: 'A', items: items(), lastUpdated: at(11) })]);
    expect(book.packagesOf('A')!.map((p) => p.lastUpdated)).toEqual([at(12)]);
    book.takePage([pkg({ id: 'P1', order: 'A', items: items(), lastUpdated: at(20) }), pkg({ id: 'P3', order: 'A', items: items('L2') })]);
    const packages = book.packages;
    expect(packages.get('A')!.map((p) => [p.packageId, p.lastUpdated])).toEqual([
      ['P1', at(20)],
      ['P3', at(12)],
    ]);
    expect([...packages.keys()]).toEqual(['A', 'B']);
    expect(book.orderIdsUpdatedSince(at(15))).toEqual(['A']);
    expect(book.takeQuiet(0, 10)).toEqual([]);
    packages.set('B', [pkg({ id: 'P9', order: 'B', items: items() })]);
    expect(packages.get('B')!.map((p) => p.packageId)).toEqual(['P9']);
    expect(packages.get('C')).toBeUndefined();
    spill.close();
  });

  it('a map and a list: moved whole past their window, in their order, values read back as copies', () => {
    const spill = new RunSpill({ orders: 2, packages: 0 }, dir);
    const map = new SpillMap<{ n: number } | null>(spill, 2);
    map.set('a', { n: 1 }).set('b', null);
    expect(map.isOnDisk).toBe(false);
    map.set('c', { n: 3 });
    expect(map.isOnDisk).toBe(true);
    map.set('a', { n: 10 });
    expect([...map.entries()]).toEqual([['a', { n: 10 }], ['b', null], ['c', { n: 3 }]]);
    expect([map.size, map.has('b'), map.has('z'), map.get('b'), map.get('z')]).toEqual([3, true, false, null, undefined]);
    expect(map.get('a')).not.toBe(map.get('a'));

    const list = new SpillList<{ n: number }>(spill);
    for (let n = 0; n < 1_100; n++) list.push({ n });
    expect(list.inMemory).toBeNull();
    list.set(1, { n: -1 });
    expect([list.length, list.at(1), list.at(-1), list.at(1_100)]).toEqual([1_100, { n: -1 }, { n: 1_099 }, undefined]);
    expect(list.map((o) => o.n).slice(0, 3)).toEqual([0, -1, 2]);
    expect(list.filter((o) => o.n > 1_097)).toEqual([{ n: 1_098 }, { n: 1_099 }]);
    // Nothing of the working file is left in the folder, even while it is open.
    expect(readdirSync(dir).filter((f) => f.startsWith('order-batch-reconcile-'))).toEqual([]);
    spill.close();
    expect(() => list.at(0)).toThrow();
  });
});
