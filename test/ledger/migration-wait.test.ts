/**
 * Opening a ledger whose schema is older than this code waits for another process that holds the
 * write lock (upgrading it, or writing) instead of failing after the usual busy timeout: the first
 * cron run after an upgrade must not fail because `serve` opened the ledger a moment earlier.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { openLedger } from '../../src/ledger/index.js';
import { MIGRATIONS, migrateSchema, readSchemaVersion } from '../../src/ledger/sqlite/schema.js';
import { openDatabase } from '../../src/sqlite/open-database.js';
import { useTempDir } from '../support/temp-dir.js';

const at = useTempDir('migration-wait');

describe('opening a ledger to upgrade while another process holds it', () => {
  it('waits for the other process, past its own busy timeout, then upgrades', async () => {
    const path = at('ledger.db');
    const db = openDatabase(path);
    db.exec('PRAGMA journal_mode = WAL');
    migrateSchema(db, MIGRATIONS.slice(0, 2));
    db.close();

    // Another process takes the write lock for a second (as a process upgrading a big ledger does).
    const holder = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { createRequire } from 'node:module';
         const Database = createRequire(${JSON.stringify(process.cwd() + '/package.json')})('better-sqlite3');
         const db = new Database(${JSON.stringify(path)});
         db.exec('BEGIN IMMEDIATE');
         console.log('locked');
         Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000);
         db.exec('COMMIT');
         db.close();`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const lines = createInterface({ input: holder.stdout! });
    await new Promise<void>((resolve) => lines.on('line', (line) => line === 'locked' && resolve()));

    const ledger = await openLedger(path, { busyTimeoutMs: 100 });
    try {
      expect((await ledger.countByState()).accepted).toBe(0);
    } finally {
      await ledger.close();
    }
    await once(holder, 'exit');
    const check = openDatabase(path);
    expect(readSchemaVersion(check)).toBe(MIGRATIONS.length);
    check.close();
  });
});
