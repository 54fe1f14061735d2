/** A list of a run's items (its matched orders) that moves to disk past the run's window (spill.ts). */
import type Database from 'better-sqlite3';
import { IterableItems } from '../iterable-items.js';
import { walk, type RunSpill } from './spill.js';

/**
 * A read-only sequence of items, as an array offers it: what a run hands back as its orders, in memory
 * (a plain array is one) or read from disk item by item.
 */
export interface ItemSequence<T> extends Iterable<T> {
  readonly length: number;
  at(index: number): T | undefined;
  map<U>(fn: (item: T, index: number) => U): U[];
  flatMap<U>(fn: (item: T, index: number) => U | readonly U[]): U[];
  filter(fn: (item: T, index: number) => boolean): T[];
  find(fn: (item: T, index: number) => boolean): T | undefined;
  some(fn: (item: T, index: number) => boolean): boolean;
  every(fn: (item: T, index: number) => boolean): boolean;
  forEach(fn: (item: T, index: number) => void): void;
}

/**
 * An append-only list (with items replaceable in place) that moves to disk past the spill's window of
 * orders; without a spill it stays in memory.
 */
export class SpillList<T> extends IterableItems<T> implements ItemSequence<T> {
  private memory: T[] | null = [];
  private disk: DiskList | null = null;
  private count = 0;
  private readonly window: number;

  constructor(private readonly spill?: RunSpill) {
    super();
    this.window = spill?.window.orders ?? Number.POSITIVE_INFINITY;
  }

  get length(): number {
    return this.memory ? this.memory.length : this.count;
  }

  /** The items as an array while they are in memory; null once on disk. */
  get inMemory(): readonly T[] | null {
    return this.memory;
  }

  push(item: T): void {
    if (this.memory) {
      this.memory.push(item);
      if (this.memory.length > this.window) this.moveToDisk();
      return;
    }
    this.disk!.insert.run(this.count++, JSON.stringify(item));
  }

  set(index: number, item: T): void {
    if (!Number.isInteger(index) || index < 0 || index >= this.length) throw new RangeError(`no item ${index} in a list of ${this.length}`);
    if (this.memory) this.memory[index] = item;
    else this.disk!.update.run(JSON.stringify(item), index);
  }

  at(index: number): T | undefined {
    if (this.memory) return this.memory.at(index);
    const i = index < 0 ? index + this.count : index;
    if (!Number.isInteger(i) || i < 0 || i >= this.count) return undefined;
    return JSON.parse(this.disk!.get.get(i)!) as T;
  }

  *[Symbol.iterator](): Generator<T> {
    if (this.memory) yield* this.memory;
    else for (const row of walk(this.disk!.walk)) yield JSON.parse(row.json) as T;
  }

  private moveToDisk(): void {
    const db = this.spill!.db;
    const table = this.spill!.newTable('list');
    db.exec(`CREATE TABLE ${table} (seq INTEGER PRIMARY KEY, json TEXT NOT NULL)`);
    this.disk = {
      insert: db.prepare<[number, string]>(`INSERT INTO ${table} (seq, json) VALUES (?, ?)`),
      update: db.prepare<[string, number]>(`UPDATE ${table} SET json = ? WHERE seq = ?`),
      get: db.prepare<[number], string>(`SELECT json FROM ${table} WHERE seq = ?`).pluck(),
      walk: db.prepare<[number, number], { seq: number; json: string }>(`SELECT seq, json FROM ${table} WHERE seq > ? ORDER BY seq LIMIT ?`),
    };
    const memory = this.memory!;
    this.memory = null;
    this.count = 0;
    for (const item of memory) this.push(item);
  }
}

interface DiskList {
  insert: Database.Statement<[number, string]>;
  update: Database.Statement<[string, number]>;
  get: Database.Statement<[number], string>;
  walk: Database.Statement<[number, number], { seq: number; json: string }>;
}
