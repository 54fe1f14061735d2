/** A Map of a run's per-order values that moves to disk past the run's window (spill.ts). */
import type Database from 'better-sqlite3';
import { walk, type RunSpill } from './spill.js';

/** What a run keeps per order ID, as a Map offers it: a Map, or a SpillMap that moves to disk. */
export interface OrderMap<V> extends Iterable<[string, V]> {
  readonly size: number;
  get(key: string): V | undefined;
  has(key: string): boolean;
  set(key: string, value: V): unknown;
  keys(): Iterable<string>;
  entries(): Iterable<[string, V]>;
  clear(): void;
}

/** A SpillMap in `spill`, or a plain Map when there is none (tests, callers of one piece). */
export function orderMap<V>(spill: RunSpill | undefined): OrderMap<V> {
  return spill ? new SpillMap<V>(spill, spill.window.orders) : new Map<string, V>();
}

/**
 * A Map from an order's ID to a value, in insertion order, that moves to disk past `window` entries.
 * Values are kept as JSON there: what `get` returns then is a copy, a new one each time.
 */
export class SpillMap<V> implements OrderMap<V> {
  private memory: Map<string, V> | null = new Map();
  private disk: DiskMap | null = null;
  private count = 0;

  constructor(
    private readonly spill: RunSpill,
    private readonly window: number,
  ) {}

  get size(): number {
    return this.memory ? this.memory.size : this.count;
  }

  get isOnDisk(): boolean {
    return this.disk !== null;
  }

  get(key: string): V | undefined {
    if (this.memory) return this.memory.get(key);
    const json = this.disk!.get.get(key);
    return json === undefined ? undefined : (JSON.parse(json) as V);
  }

  has(key: string): boolean {
    return this.memory ? this.memory.has(key) : this.disk!.has.get(key) !== undefined;
  }

  set(key: string, value: V): this {
    if (this.memory) {
      this.memory.set(key, value);
      if (this.memory.size > this.window) this.moveToDisk();
      return this;
    }
    const json = JSON.stringify(value) ?? 'null';
    if (this.disk!.insert.run(key, json).changes > 0) this.count++;
    else this.disk!.update.run(json, key);
    return this;
  }

  *keys(): Generator<string> {
    if (this.memory) yield* this.memory.keys();
    else for (const row of walk(this.disk!.walk)) yield row.key;
  }

  *entries(): Generator<[string, V]> {
    if (this.memory) yield* this.memory.entries();
    else for (const row of walk(this.disk!.walk)) yield [row.key, JSON.parse(row.json) as V];
  }

  [Symbol.iterator](): Generator<[string, V]> {
    return this.entries();
  }

  clear(): void {
    this.memory?.clear();
    if (this.disk) {
      this.disk.clear.run();
      this.count = 0;
    }
  }

  private moveToDisk(): void {
    const db = this.spill.db;
    const table = this.spill.newTable('map');
    db.exec(`CREATE TABLE ${table} (seq INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, json TEXT NOT NULL)`);
    const disk: DiskMap = {
      get: db.prepare<[string], string>(`SELECT json FROM ${table} WHERE key = ?`).pluck(),
      has: db.prepare<[string], number>(`SELECT 1 FROM ${table} WHERE key = ?`).pluck(),
      insert: db.prepare<[string, string]>(`INSERT OR IGNORE INTO ${table} (key, json) VALUES (?, ?)`),
      update: db.prepare<[string, string]>(`UPDATE ${table} SET json = ? WHERE key = ?`),
      walk: db.prepare<[number, number], { seq: number; key: string; json: string }>(`SELECT seq, key, json FROM ${table} WHERE seq > ? ORDER BY seq LIMIT ?`),
      clear: db.prepare(`DELETE FROM ${table}`),
    };
    const memory = this.memory!;
    this.memory = null;
    this.disk = disk;
    for (const [key, value] of memory) this.set(key, value);
  }
}

interface DiskMap {
  get: Database.Statement<[string], string>;
  has: Database.Statement<[string], number>;
  insert: Database.Statement<[string, string]>;
  update: Database.Statement<[string, string]>;
  walk: Database.Statement<[number, number], { seq: number; key: string; json: string }>;
  clear: Database.Statement;
}
