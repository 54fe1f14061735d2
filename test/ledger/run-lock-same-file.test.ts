/**
 * One run at a time per ledger FILE, whatever name it is opened by: a symlink to the file or to its
 * folder cannot start a second run, and a file with a second name (a hard link) is refused outright.
 */
import { linkSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LedgerBusyError, LedgerError } from '../../src/ledger/errors.js';
import { openLedger } from '../../src/ledger/open-ledger.js';
import type { Ledger } from '../../src/ledger/types.js';
import { makeTempDir } from './builders.js';

let temp: ReturnType<typeof makeTempDir>;
let opened: Ledger[];
beforeEach(() => {
  temp = makeTempDir();
  opened = [];
});
afterEach(async () => {
  for (const ledger of opened) await ledger.close();
  temp.cleanup();
});

async function open(path: string): Promise<Ledger> {
  const ledger = await openLedger(path);
  opened.push(ledger);
  return ledger;
}

describe('the run lock of an SQLite ledger', () => {
  it('keeps out a second run that opens the ledger through a symlink to the file', async () => {
    const real = join(temp.dir, 'ledger.db');
    const holder = await open(real);
    await holder.acquireRunLock({ command: 'import' });
    symlinkSync(real, join(temp.dir, 'alias.db'));
    await expect((await open(join(temp.dir, 'alias.db'))).acquireRunLock({ command: 'import' })).rejects.toThrow(LedgerBusyError);
  });

  it('keeps out a second run that opens the ledger through a symlinked folder', async () => {
    mkdirSync(join(temp.dir, 'data'));
    symlinkSync(join(temp.dir, 'data'), join(temp.dir, 'shortcut'));
    await (await open(join(temp.dir, 'shortcut', 'ledger.db'))).acquireRunLock({ command: 'import' });
    await expect((await open(join(temp.dir, 'data', 'ledger.db'))).acquireRunLock({ command: 'import' })).rejects.toThrow(LedgerBusyError);
  });

  it('refuses a ledger file that has a second name (a hard link), which could otherwise start a second run', async () => {
    const real = join(temp.dir, 'ledger.db');
    const holder = await open(real);
    await holder.acquireRunLock({ command: 'import' });
    linkSync(real, join(temp.dir, 'copy.db'));
    const refusal = await open(join(temp.dir, 'copy.db')).then(
      (ledger) => ledger.acquireRunLock({ command: 'import' }),
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(LedgerError);
    expect((refusal as Error).message).toMatch(/2 names \(hard links\)/);
    expect((refusal as Error).message).toContain(join(temp.dir, 'copy.db'));
    // The holder is told too, before its next run.
    await expect(openLedger(real)).rejects.toThrow(/hard links/);
  });
});
