/**
 * A ledger with garbage written into its middle (a disk fault, a bad copy), met by a nightly import:
 * one line naming the ledger and what to do, exit 3 (the ledger stopped working mid-run), the result file and the --json report with its
 * summary. Never "internal error ... this is a bug". Spawns the built CLI with the embedded sandbox.
 */
import { existsSync, openSync, closeSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeOrdersCsv } from './make-sheet.js';
import { hasStackTrace, runCli, SAMPLE_NOW, tempDir } from './run-cli.js';

const PAGE = 4096;

/** Overwrites three pages in the middle of the file with text that no SQLite page holds. */
function damageMiddle(path: string): void {
  const pages = Math.floor(statSync(path).size / PAGE);
  const fd = openSync(path, 'r+');
  try {
    writeSync(fd, Buffer.alloc(3 * PAGE, 'garbage!'), 0, 3 * PAGE, Math.floor(pages / 2) * PAGE);
  } finally {
    closeSync(fd);
  }
}

describe('an import meeting a damaged ledger', () => {
  it('says the ledger is damaged and how to recover, exits 3, and still writes the result and the report', async () => {
    const dir = tempDir('order-batch-damaged-');
    const sheet = join(dir, 'orders.csv');
    const { ids } = writeOrdersCsv(sheet, { orders: 300, prefix: 'DMG', orderDate: new Date(Date.parse(SAMPLE_NOW) - 3_600_000) });
    const ledger = join(dir, 'ledger.db');
    const args = ['import', sheet, '--sandbox', '--ledger', ledger, '--now', SAMPLE_NOW, '--json', '--log-level', 'silent'];
    const first = await runCli(args, { cwd: dir });
    expect(first.code).toBe(0);
    damageMiddle(ledger);

    const res = await runCli(args, { cwd: dir });
    expect(res.code).toBe(3);
    expect(res.stderr).toBe(`order-batch: The ledger ${ledger} is damaged (database disk image is malformed, SQLITE_CORRUPT). Restore it from a backup, or rescue what can be read (sqlite3 ${ledger} .recover), then run the same command again; do not start over with an empty ledger, which would not know the orders already sent.\n`);
    expect(res.stderr).not.toMatch(/internal error|bug/i);
    expect(hasStackTrace(res.stderr)).toBe(false);
    const report = JSON.parse(res.stdout);
    expect(report.summary).toEqual({ failed: ids.length });
    expect(report.ledgerError).toEqual({ ledger, message: expect.stringContaining('is damaged') });
    expect(report.output).toBe(join(dir, 'orders.import-result.xlsx'));
    expect(existsSync(report.output)).toBe(true);
  });
});
