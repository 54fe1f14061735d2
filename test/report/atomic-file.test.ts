/** writeFileAtomically: a temporary file beside the target, renamed into place, never left behind. */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { pendingTempFilePaths, removePendingTempFiles, writeFileAtomically } from '../../src/report/atomic-file.js';
import { useTempDir } from './temp-dir.js';

const at = useTempDir('atomic');

describe('writeFileAtomically', () => {
  it('removes the temporary file of a write still under way when the process exits (a second Ctrl-C)', async () => {
    const path = at('interrupted.xlsx');
    let finish!: () => void;
    const writing = writeFileAtomically(path, async (out) => {
      out.write('half a workbook');
      await new Promise<void>((resolve) => (finish = resolve));
    });
    writing.catch(() => undefined);
    const tmp = `${path}.${process.pid}.partial`;
    // The file is opened asynchronously: waited for, not given a fixed time (a busy machine takes longer).
    await vi.waitFor(() => expect(existsSync(tmp)).toBe(true), { timeout: 10_000, interval: 5 });
    expect(pendingTempFilePaths()).toEqual([tmp]);
    // process.exit() runs the 'exit' listeners; the hook is one of them.
    expect(process.listeners('exit')).toContain(removePendingTempFiles);

    removePendingTempFiles();
    expect(existsSync(tmp)).toBe(false);
    finish();
    await expect(writing).rejects.toThrow();
    expect(readdirSync(at(''))).toEqual([]);
  });

  it('forgets a file once written, so the exit hook leaves it alone', async () => {
    const path = at('done.csv');
    await writeFileAtomically(path, async (out) => {
      out.end('a,b\r\n');
      await new Promise<void>((resolve) => out.once('finish', () => resolve()));
    });
    expect(pendingTempFilePaths()).toEqual([]);
    removePendingTempFiles();
    expect(readFileSync(path, 'utf8')).toBe('a,b\r\n');
  });

  it('leaves nothing behind when the writer fails half way', async () => {
    const path = at('failed.xlsx');
    await expect(
      writeFileAtomically(path, async (out) => {
        out.write('some rows');
        await new Promise((resolve) => setTimeout(resolve, 10));
        throw new Error('the writer broke');
      }),
    ).rejects.toThrow('the writer broke');
    expect(pendingTempFilePaths()).toEqual([]);
    expect(readdirSync(at('')).filter((name) => name.startsWith('failed'))).toEqual([]);
  });
});
