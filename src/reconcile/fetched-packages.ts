/**
 * The packages a run has fetched so far, per order, with the page in which each order's packages
 * last changed. Matching can then start on an order while pages are still coming in (match-ahead.ts),
 * and the result be known stale if a later page changed its packages.
 *
 * Past its window (RunSpill) it moves to disk: one row per package, indexed by order, the newer record
 * of a package kept by SQLite itself; an order's packages are then read together when asked for. The
 * page of each change is no longer followed there (nothing is matched ahead of the last page then).
 */
import type Database from 'better-sqlite3';
import type { PackageRecord } from '../contract/schemas.js';
import { lastUpdatedOf } from './package-store.js';
import type { RunSpill } from './spill.js';
import type { OrderMap } from './spill-map.js';

export class FetchedPackages {
  /** Each order's packages while in memory: the newest record of each packageId, in first-seen order. */
  readonly byOrder = new Map<string, PackageRecord[]>();
  /** Pages taken so far. */
  private taken = 0;
  /** The page (counted from 0, as taken) in which each order's packages last changed. */
  private readonly lastChange = new Map<string, number>();
  /** Every change as it came, oldest first: the order and the page (an order changed in two pages is listed twice). */
  private changedIds: string[] = [];
  private changedPages: number[] = [];
  /** How far takeQuiet has handed the changes out. */
  private handedOut = 0;
  private onPage: (() => void)[] = [];
  /** Packages held in memory. */
  private held = 0;
  private disk: DiskPackages | null = null;

  /** Without a spill, everything stays in memory. */
  constructor(private readonly spill?: RunSpill) {}

  get pages(): number {
    return this.taken;
  }

  /** True once the packages have moved to disk: nothing is handed out as quiet from then on. */
  get isOnDisk(): boolean {
    return this.disk !== null;
  }

  /** Orders with packages fetched. */
  get orders(): number {
    return this.disk ? this.disk.orders : this.byOrder.size;
  }

  /** Keeps a page's packages (the newer record of a package seen twice). */
  takePage(records: readonly PackageRecord[]): void {
    if (this.disk) this.disk.take(records);
    else {
      const page = this.taken;
      for (const record of records) {
        const kept = keepNewest(this.byOrder, record);
        if (kept === 'no') continue;
        if (kept === 'added') this.held++;
        const id = record.customerOrderId;
        if (this.lastChange.get(id) === page) continue;
        this.lastChange.set(id, page);
        this.changedIds.push(id);
        this.changedPages.push(page);
      }
      if (this.spill && this.held > this.spill.window.packages) this.moveToDisk(this.spill);
    }
    this.taken++;
    const waiting = this.onPage;
    this.onPage = [];
    for (const wake of waiting) wake();
  }

  /**
   * Each order's packages, as a Map offers them: `byOrder` itself while in memory, else a view of the
   * disk (each list read afresh; `set` replaces an order's packages). Ask again after paging: the
   * packages may have moved meanwhile.
   */
  get packages(): OrderMap<PackageRecord[]> {
    const disk = this.disk;
    if (!disk) return this.byOrder;
    const view: OrderMap<PackageRecord[]> = {
      get size() {
        return disk.orders;
      },
      get: (id) => disk.packagesOf(id),
      has: (id) => disk.packagesOf(id) !== undefined,
      set: (id, records) => disk.replace(id, records),
      keys: () => disk.orderIds(),
      *entries() {
        for (const id of disk.orderIds()) yield [id, disk.packagesOf(id) ?? []];
      },
      [Symbol.iterator]: () => view.entries()[Symbol.iterator](),
      clear: () => disk.clear(),
    };
    return view;
  }

  /** The order's packages (a fresh array when on disk), or undefined when none were fetched. */
  packagesOf(customerOrderId: string): PackageRecord[] | undefined {
    return this.disk ? this.disk.packagesOf(customerOrderId) : this.byOrder.get(customerOrderId);
  }

  /** Orders with a package fetched whose lastUpdated is at or after `sinceIso` (normalised ISO UTC). */
  orderIdsUpdatedSince(sinceIso: string): string[] {
    if (this.disk) return this.disk.updatedSince(sinceIso);
    const out: string[] = [];
    for (const [id, records] of this.byOrder) if (records.some((r) => lastUpdatedOf(r) >= sinceIso)) out.push(id);
    return out;
  }

  /** The page in which the order's packages last changed (undefined: none fetched, or not followed on disk). */
  lastChangeOf(customerOrderId: string): number | undefined {
    return this.lastChange.get(customerOrderId);
  }

  /**
   * Orders whose packages have not changed in the last `quietPages` pages, each once per change:
   * those changed again since are handed out after that change has gone quiet too. In the order
   * they changed; at most `max` of them. None once on disk.
   */
  takeQuiet(quietPages: number, max: number): string[] {
    const out: string[] = [];
    const before = this.taken - quietPages;
    while (this.handedOut < this.changedIds.length && out.length < max && this.changedPages[this.handedOut]! < before) {
      const id = this.changedIds[this.handedOut]!;
      // A later change lists the order again: handed out then.
      if (this.lastChange.get(id) === this.changedPages[this.handedOut]) out.push(id);
      this.handedOut++;
    }
    return out;
  }

  /** Settles once the next page has been taken. */
  nextPage(): Promise<void> {
    return new Promise((resolve) => this.onPage.push(resolve));
  }

  /** Lets go of every package (memory or disk). */
  clear(): void {
    this.forgetMemory();
    this.disk?.clear();
  }

  private moveToDisk(spill: RunSpill): void {
    const disk = new DiskPackages(spill);
    for (const [id, records] of this.byOrder) disk.replace(id, records);
    this.disk = disk;
    this.forgetMemory();
  }

  private forgetMemory(): void {
    this.byOrder.clear();
    this.lastChange.clear();
    this.changedIds = [];
    this.changedPages = [];
    this.handedOut = 0;
    this.held = 0;
  }
}

/** The packages on disk: one row per package, the orders in the order they were first seen. */
class DiskPackages {
  private count = 0;
  private seq = 0;
  private readonly addOrder: Database.Statement<[string]>;
  private readonly upsert: Database.Statement<[string, string, number, string, string]>;
  private readonly insert: Database.Statement<[string, string, number, string, string]>;
  private readonly remove: Database.Statement<[string]>;
  private readonly select: Database.Statement<[string], string>;
  private readonly walkOrders: Database.Statement<[number, number], { seq: number; id: string }>;
  private readonly since: Database.Statement<[string], string>;
  private readonly clearAll: () => void;

  constructor(spill: RunSpill) {
    const db = spill.db;
    const orders = spill.newTable('fetched_orders');
    const packages = spill.newTable('fetched_packages');
    // Rows in the order they come (a rowid table: appended, never moved), found by order through a
    // small index: a package is about 1 KB of JSON, too wide for a table ordered by the order's ID.
    db.exec(`
      CREATE TABLE ${orders} (seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE);
      CREATE TABLE ${packages} (seq INTEGER PRIMARY KEY, order_id TEXT NOT NULL, package_id TEXT NOT NULL, last_updated TEXT NOT NULL, json TEXT NOT NULL);
      CREATE UNIQUE INDEX ${packages}_by_order ON ${packages} (order_id, package_id);
    `);
    this.addOrder = db.prepare(`INSERT OR IGNORE INTO ${orders} (id) VALUES (?)`);
    // A record no older than the one kept replaces it, in its place (seq kept): as keepNewest does in memory.
    this.upsert = db.prepare(
      `INSERT INTO ${packages} (order_id, package_id, seq, last_updated, json) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (order_id, package_id) DO UPDATE SET last_updated = excluded.last_updated, json = excluded.json
       WHERE excluded.last_updated >= last_updated`,
    );
    this.insert = db.prepare(`INSERT INTO ${packages} (order_id, package_id, seq, last_updated, json) VALUES (?, ?, ?, ?, ?)`);
    this.remove = db.prepare(`DELETE FROM ${packages} WHERE order_id = ?`);
    this.select = db.prepare<[string], string>(`SELECT json FROM ${packages} WHERE order_id = ? ORDER BY seq`).pluck();
    this.walkOrders = db.prepare(`SELECT seq, id FROM ${orders} WHERE seq > ? ORDER BY seq LIMIT ?`);
    // In the order the orders were first seen, as in memory.
    this.since = db.prepare<[string], string>(`SELECT id FROM ${orders} WHERE id IN (SELECT order_id FROM ${packages} WHERE last_updated >= ?) ORDER BY seq`).pluck();
    const clearOrders = db.prepare(`DELETE FROM ${orders}`);
    const clearPackages = db.prepare(`DELETE FROM ${packages}`);
    this.clearAll = () => {
      clearOrders.run();
      clearPackages.run();
      this.count = 0;
    };
  }

  get orders(): number {
    return this.count;
  }

  take(records: readonly PackageRecord[]): void {
    for (const record of records) {
      const id = record.customerOrderId;
      if (this.addOrder.run(id).changes > 0) this.count++;
      this.upsert.run(id, record.packageId, this.seq++, lastUpdatedOf(record), JSON.stringify(record));
    }
  }

  replace(customerOrderId: string, records: readonly PackageRecord[]): void {
    if (this.addOrder.run(customerOrderId).changes > 0) this.count++;
    this.remove.run(customerOrderId);
    for (const record of records) this.insert.run(customerOrderId, record.packageId, this.seq++, lastUpdatedOf(record), JSON.stringify(record));
  }

  packagesOf(customerOrderId: string): PackageRecord[] | undefined {
    const rows = this.select.all(customerOrderId);
    return rows.length === 0 ? undefined : rows.map((json) => JSON.parse(json) as PackageRecord);
  }

  *orderIds(): Generator<string> {
    let after = -1;
    for (;;) {
      const rows = this.walkOrders.all(after, 512);
      for (const row of rows) yield row.id;
      if (rows.length < 512) return;
      after = rows.at(-1)!.seq;
    }
  }

  updatedSince(sinceIso: string): string[] {
    return this.since.all(sinceIso);
  }

  clear(): void {
    this.clearAll();
  }
}

/**
 * Keeps `record` in its order's list unless a newer record of the same package is there; says whether
 * the list changed, by a package added or replaced. An order has a handful of packages: a list scanned
 * per record is cheaper than a Map per order.
 */
function keepNewest(byOrder: Map<string, PackageRecord[]>, record: PackageRecord): 'added' | 'replaced' | 'no' {
  const packages = byOrder.get(record.customerOrderId);
  if (!packages) {
    byOrder.set(record.customerOrderId, [record]);
    return 'added';
  }
  const index = packages.findIndex((p) => p.packageId === record.packageId);
  if (index < 0) {
    packages.push(record);
    return 'added';
  }
  // Dates are compared only for a package seen twice (pages that shifted), not for every package.
  if (lastUpdatedOf(record) < lastUpdatedOf(packages[index]!)) return 'no';
  packages[index] = record;
  return 'replaced';
}
