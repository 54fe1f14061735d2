import { existsSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openLedger } from '../../src/ledger/index.js';
import { createLedgerReader } from '../../src/web/ledger-reader.js';
import { makeTempFolder } from '../support/temp-dir.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function ledgerWithRun(path: string, command: string): Promise<void> {
  const ledger = await openLedger(path);
  await ledger.startRun({ command, files: [] });
  await ledger.close();
}

describe("the web app's ledger reader", () => {
  it('reads nothing, and creates nothing, until the ledger exists; then keeps one connection', async () => {
    const dir = makeTempFolder('ledger-reader');
    dirs.push(dir);
    const path = join(dir, 'ledger.db');
    const reader = createLedgerReader(path);
    expect(await reader.read((l) => l.listRuns(10))).toBeUndefined();
    expect(existsSync(path)).toBe(false);
    await ledgerWithRun(path, 'import');
    const seen: unknown[] = [];
    for (let i = 0; i < 3; i++) await reader.read(async (l) => seen.push(l));
    expect(new Set(seen).size).toBe(1);
    expect(await reader.read(async (l) => (await l.listRuns(10)).map((r) => r.command))).toEqual(['import']);
    await reader.close();
  });

  it('opens a ledger that was replaced, and forgets one that was deleted', async () => {
    const dir = makeTempFolder('ledger-reader');
    dirs.push(dir);
    const path = join(dir, 'ledger.db');
    await ledgerWithRun(path, 'first');
    const reader = createLedgerReader(path);
    expect(await reader.read(async (l) => (await l.listRuns(10)).map((r) => r.command))).toEqual(['first']);
    const other = join(dir, 'other.db');
    await ledgerWithRun(other, 'second');
    for (const suffix of ['-wal', '-shm']) rmSync(path + suffix, { force: true });
    renameSync(other, path);
    expect(await reader.read(async (l) => (await l.listRuns(10)).map((r) => r.command))).toEqual(['second']);
    rmSync(path);
    expect(await reader.read((l) => l.listRuns(10))).toBeUndefined();
    await reader.close();
  });
});
