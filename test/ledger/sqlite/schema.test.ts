import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase, readPragma } from '../../../src/sqlite/open-database.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LedgerError, openLedger } from '../../../src/ledger/index.js';
import { MIGRATIONS, migrateSchema, readSchemaVersion, type Migration } from '../../../src/ledger/sqlite/schema.js';
import { buildIntent, makeTempDir } from '../builders.js';

let temp: ReturnType<typeof makeTempDir>;
beforeEach(async () => {
  temp = makeTempDir();
});
afterEach(() => temp.cleanup());

function tableNames(path: string): string[] {
  const db = openDatabase(path, { readonly: true });
  try {
    return db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all().map((r) => r.name);
  } finally {
    db.close();
  }
}

describe('ledger schema', () => {
  it('creates the directory, the file and every table, in WAL mode, at the latest version', async () => {
    const path = join(temp.dir, 'nested', 'deeper', 'ledger.db');
    const ledger = await openLedger(path);
    await ledger.close();
    expect(existsSync(path)).toBe(true);
    expect(tableNames(path)).toEqual(['api_tokens', 'attempts', 'audit', 'file_chunks', 'files', 'jobs', 'mappings', 'orders', 'remote_files', 'run_lock', 'runs', 'schedule_occurrences', 'sessions', 'settings', 'users', 'watermarks']);
    const db = openDatabase(path, { readonly: true });
    expect(readSchemaVersion(db)).toBe(MIGRATIONS.length);
    expect(readPragma(db, 'journal_mode')).toBe('wal');
    db.close();
  });

  it('reopens an existing ledger without migrating again and keeps its records', async () => {
    const path = join(temp.dir, 'ledger.db');
    const first = await openLedger(path);
    const run = await first.startRun({ command: 'import', files: [] });
    await run.recordIntent(buildIntent('A-1'));
    await first.close();
    const second = await openLedger(path);
    expect((await second.get('A-1'))?.state).toBe('pending');
    await second.close();
    const db = openDatabase(path);
    expect(migrateSchema(db)).toEqual([]);
    db.close();
  });

  it('applies only the migrations a file has not had yet', async () => {
    const path = join(temp.dir, 'custom.db');
    const calls: number[] = [];
    const v1: Migration = { description: 'one', up: (db) => (calls.push(1), db.exec('CREATE TABLE a (x INTEGER)')) };
    const v2: Migration = { description: 'two', up: (db) => (calls.push(2), db.exec('ALTER TABLE a ADD COLUMN y TEXT')) };
    const db = openDatabase(path);
    expect(migrateSchema(db, [v1])).toEqual([1]);
    expect(migrateSchema(db, [v1, v2])).toEqual([2]);
    expect(migrateSchema(db, [v1, v2])).toEqual([]);
    expect(calls).toEqual([1, 2]);
    expect(readSchemaVersion(db)).toBe(2);
    db.close();
  });

  it('rolls a failing migration back entirely, version included', async () => {
    const db = openDatabase(join(temp.dir, 'failing.db'));
    const broken: Migration = {
      description: 'half done',
      up(d) {
        d.exec('CREATE TABLE half (x INTEGER)');
        throw new Error('boom');
      },
    };
    expect(() => migrateSchema(db, [broken])).toThrow('boom');
    expect(readSchemaVersion(db)).toBe(0);
    expect(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'half'").get()).toEqual({ n: 0 });
    db.close();
  });

  it('refuses a ledger written by a newer schema with a message, not a stack trace', async () => {
    const path = join(temp.dir, 'newer.db');
    await (await openLedger(path)).close();
    const db = openDatabase(path);
    db.exec(`PRAGMA user_version = ${MIGRATIONS.length + 1}`);
    db.close();
    await expect(openLedger(path)).rejects.toThrow(LedgerError);
    await expect(openLedger(path)).rejects.toThrow(/written by a newer order-batch/);
  });

  it('refuses a file that is not a database', async () => {
    const path = join(temp.dir, 'notes.db');
    writeFileSync(path, 'this is a text file, not a ledger, and it is long enough to have a header'.repeat(10));
    await expect(openLedger(path)).rejects.toThrow(/not an order-batch ledger/);
  });
});
