import { existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openLedger } from '../../src/ledger/index.js';
import { createLedgerReader } from '../../src/web/ledger-reader.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function ledgerWithRun(path: string, command: string): void {
  const ledger = openLedger(path);
  ledger.startRun({ command, files: [] });
  ledger.close();
}

describe("the web app's ledger reader", () => {
  it('reads nothing, and creates nothing, until the ledger exists; then keeps one connection', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-reader-'));
    dirs.push(dir);
    const path = join(dir, 'ledger.db');
    const reader = createLedgerReader(path);
    expect(reader.read((l) => l.listRuns(10))).toBeUndefined();
    expect(existsSync(path)).toBe(false);
    ledgerWithRun(path, 'import');
    const seen: unknown[] = [];
    for (let i = 0; i < 3; i++) reader.read((l) => seen.push(l));
    expect(new Set(seen).size).toBe(1);
    expect(reader.read((l) => l.listRuns(10).map((r) => r.command))).toEqual(['import']);
    reader.close();
  });

  it('opens a ledger that was replaced, and forgets one that was deleted', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-reader-'));
    dirs.push(dir);
    const path = join(dir, 'ledger.db');
    ledgerWithRun(path, 'first');
    const reader = createLedgerReader(path);
    expect(reader.read((l) => l.listRuns(10).map((r) => r.command))).toEqual(['first']);
    const other = join(dir, 'other.db');
    ledgerWithRun(other, 'second');
    for (const suffix of ['-wal', '-shm']) rmSync(path + suffix, { force: true });
    renameSync(other, path);
    expect(reader.read((l) => l.listRuns(10).map((r) => r.command))).toEqual(['second']);
    rmSync(path);
    expect(reader.read((l) => l.listRuns(10))).toBeUndefined();
    reader.close();
  });
});
