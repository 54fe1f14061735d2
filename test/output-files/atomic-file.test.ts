/** writeFileAtomically: a temporary file beside the target, renamed into place, never left behind. */
import { existsSync, readFileSync, readdirSync, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { pendingTempFilePaths, removePendingTempFiles, writeFileAtomically } from '../../src/output-files/atomic-file.js';
import { useTempDir } from '../support/temp-dir.js';

const at = useTempDir('atomic');

/** Resolves once the temporary file is open on disk (its stream opens it asynchronously). */
const opened = async (out: WriteStream) => {
  if (out.pending) await once(out, 'ready');
};

// A test that fails half way must not leave its write pending for the next one to find.
afterEach(() => removePendingTempFiles());

describe('writeFileAtomically', () => {
  it('removes the temporary file of a write still under way when the process exits (a second Ctrl-C)', async () => {
    const path = at('interrupted.xlsx');
    let finish!: () => void;
    let isOpen!: () => void;
    const fileIsOpen = new Promise<void>((resolve) => (isOpen = resolve));
    const writing = writeFileAtomically(path, async (out) => {
      out.write('half a workbook');
      await opened(out);
      isOpen();
      await new Promise<void>((resolve) => (finish = resolve));
    });
    writing.catch(() => undefined);
    await fileIsOpen;
    const tmp = `${path}.${process.pid}.partial`;
    expect(pendingTempFilePaths()).toEqual([tmp]);
    expect(existsSync(tmp)).toBe(true);
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
        await opened(out);
        throw new Error('the writer broke');
      }),
    ).rejects.toThrow('the writer broke');
    expect(pendingTempFilePaths()).toEqual([]);
    expect(readdirSync(at('')).filter((name) => name.startsWith('failed'))).toEqual([]);
  });
});
