/**
 * What a reconcile run keeps on disk once it outgrows memory. Each of the run's large structures (the
 * selected orders, the order reads, the packages fetched, the orders matched) starts in memory and
 * moves to disk, whole, the moment it holds more than its window; a run within the windows never
 * touches the disk, and one past them holds a bounded part of its work at a time.
 *
 * The disk is one SQLite file per run in the temporary folder, opened on the first move and removed
 * from the folder at once (it lives on while open, and nothing is left behind even by a killed run);
 * closing it gives its space back. It is the run's alone: no journal on disk, no syncing, one
 * transaction held open for its whole life (SQLite journals no page created inside it).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { openDatabase } from '../sqlite/open-database.js';

/** How much of each structure a run holds in memory before the structure moves to disk. */
export interface MemoryWindow {
  /** Orders: selected, read, or matched (each a structure of its own). */
  orders: number;
  /** Packages fetched. */
  packages: number;
}

/**
 * A run of 100,000 packages (about 40,000 orders) stays in memory, about 650 MB at its peak; past
 * these a structure moves to disk, so a run of any size peaks near what these cost (docs/performance.md).
 */
export const DEFAULT_MEMORY_WINDOW: MemoryWindow = { orders: 50_000, packages: 120_000 };

/** Rows read per query when a structure on disk is walked (no statement is left open between them). */
const WALK_ROWS = 512;

export class RunSpill {
  #db: Database.Database | undefined;
  #tables = 0;
  #isClosed = false;

  constructor(
    readonly window: MemoryWindow,
    /** Where the file goes; default the system's temporary folder. */
    readonly folder: string = tmpdir(),
  ) {}

  /** True once something has moved to disk. */
  get isUsed(): boolean {
    return this.#db !== undefined;
  }

  /** Why the file could not be opened (a folder missing, a full disk), once that has happened. */
  openFailure: unknown;

  /** The run's file, opened on first use. */
  get db(): Database.Database {
    if (this.#isClosed) throw new Error('the run has ended: its working file is closed');
    // A file that could not be opened is not tried again: every structure fails with the same error.
    if (this.openFailure !== undefined) throw this.openFailure;
    if (!this.#db) {
      try {
        this.#db = openSpillFile(this.folder);
      } catch (error) {
        this.openFailure = error;
        throw error;
      }
    }
    return this.#db;
  }

  /** A table name no other structure of this run uses. */
  newTable(kind: string): string {
    return `${kind}_${++this.#tables}`;
  }

  close(): void {
    this.#isClosed = true;
    if (this.#db?.open) this.#db.close();
  }
}

function openSpillFile(folder: string): Database.Database {
  const dir = mkdtempSync(join(folder, 'order-batch-reconcile-'));
  try {
    const db = openDatabase(join(dir, 'work.db'));
    try {
      db.exec('PRAGMA journal_mode = MEMORY');
      db.exec('PRAGMA locking_mode = EXCLUSIVE');
      db.exec('PRAGMA synchronous = OFF');
      db.exec('PRAGMA cache_size = -65536');
      db.exec('PRAGMA temp_store = FILE');
      db.exec('BEGIN EXCLUSIVE');
      // A first write takes the file's lock, after which SQLite no longer looks for it by its name.
      db.exec('CREATE TABLE opened (at INTEGER)');
      return db;
    } catch (error) {
      db.close();
      throw error;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Walks a table by its integer key, WALK_ROWS at a time, so that writes may come in between. */
export function* walk<R extends { seq: number }>(page: Database.Statement<[number, number], R>): Generator<R> {
  let after = -1;
  for (;;) {
    const rows = page.all(after, WALK_ROWS);
    for (const row of rows) yield row;
    if (rows.length < WALK_ROWS) return;
    after = rows.at(-1)!.seq;
  }
}
