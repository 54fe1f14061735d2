import { linkSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LedgerBusyError, LedgerError, openLedger, type Ledger } from '../../src/ledger/index.js';
import { makeTempDir } from './builders.js';
import { spawnLedgerChild, type LedgerChild } from './spawn-child.js';

let temp: ReturnType<typeof makeTempDir>;
const opened: Ledger[] = [];
const children: LedgerChild[] = [];
beforeEach(async () => {
  temp = makeTempDir();
});
afterEach(async () => {
  await Promise.all(children.splice(0).map((c) => c.kill()));
  for (const ledger of opened.splice(0)) await ledger.close();
  temp.cleanup();
});

async function open(path: string): Promise<Ledger> {
  const ledger = await openLedger(path);
  opened.push(ledger);
  return ledger;
}

describe('run lock', () => {
  it('refuses a second run at once, naming the holder', async () => {
    const path = join(temp.dir, 'ledger.db');
    const first = await open(path);
    const lock = await first.acquireRunLock({ command: 'import' });
    expect(lock.holder).toMatchObject({ pid: process.pid, command: 'import' });
    const error = await (await open(path)).acquireRunLock().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LedgerBusyError);
    expect((error as LedgerBusyError).holder).toEqual(lock.holder);
    expect((error as Error).message).toContain(`process ${process.pid} on `);
    expect((error as Error).message).toContain('(import)');
  });

  it('still shuts other processes out after a refused attempt from the same process', async () => {
    const path = join(temp.dir, 'ledger.db');
    await (await open(path)).acquireRunLock();
    // The refused attempt opens and closes its own connection to the lock file; closing a descriptor
    // drops every POSIX lock the process holds on that file unless SQLite defers the close.
    await expect((await open(path)).acquireRunLock()).rejects.toBeInstanceOf(LedgerBusyError);
    const other = spawnLedgerChild(['try-lock', path]);
    children.push(other);
    expect(await other.waitForLine((l) => l.startsWith('busy') || l.startsWith('acquired') || l.startsWith('error'))).toBe(`busy ${process.pid}`);
  });

  it('lets a waiting run in once the holder releases', async () => {
    const path = join(temp.dir, 'ledger.db');
    const lock = await (await open(path)).acquireRunLock();
    const second = (await open(path)).acquireRunLock({ wait: true, timeoutMs: 20_000, pollMs: 10 });
    setTimeout(() => void lock.release(), 50);
    const secondLock = await second;
    expect(secondLock.holder.pid).toBe(process.pid);
    await lock.release(); // a second release is harmless and does not free the new holder's lock
    await expect((await open(path)).acquireRunLock()).rejects.toBeInstanceOf(LedgerBusyError);
  });

  it('gives up waiting after the timeout', async () => {
    const path = join(temp.dir, 'ledger.db');
    await (await open(path)).acquireRunLock();
    await expect((await open(path)).acquireRunLock({ wait: true, timeoutMs: 30, pollMs: 10 })).rejects.toBeInstanceOf(LedgerBusyError);
  });

  it('is free again after the holder closes the ledger', async () => {
    const path = join(temp.dir, 'ledger.db');
    const first = await open(path);
    await first.acquireRunLock();
    await first.close();
    const lock = await (await open(path)).acquireRunLock();
    expect(lock.holder.pid).toBe(process.pid);
  });

  it('is held by another process until that process is SIGKILLed, then taken over', async () => {
    const path = join(temp.dir, 'ledger.db');
    const child = spawnLedgerChild(['lock', path]);
    children.push(child);
    const line = await child.waitForLine((l) => l.startsWith('locked '));
    const childPid = Number(line.split(' ')[1]);

    const refused = await (await open(path)).acquireRunLock().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(LedgerBusyError);
    expect((refused as LedgerBusyError).holder).toMatchObject({ pid: childPid, command: 'child-lock' });

    await child.kill();
    const lock = await (await open(path)).acquireRunLock();
    expect(lock.holder.pid).toBe(process.pid);
  });
});

describe('one run at a time per ledger FILE, whatever name it is opened by', () => {
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
    const openedBefore = await open(real);
    linkSync(real, join(temp.dir, 'copy.db'));
    await expect(openedBefore.acquireRunLock({ command: 'import' })).rejects.toThrow(/^The ledger \S+ has 2 names \(hard links\)/);
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
