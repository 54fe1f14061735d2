/** Temporary files for what a sheet keeps on disk while it is checked (rows, order verdicts). */
import { mkdtempSync, openSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A file only this process can reach, as an open descriptor: created in a fresh private folder, then unlinked
 * with it at once, so that nothing is left behind even by a killed run; closing the descriptor frees its space.
 */
export function openTemporaryFile(dir: string | undefined): number {
  const folder = mkdtempSync(join(dir ?? tmpdir(), 'order-batch-'));
  const path = join(folder, 'spill');
  const fd = openSync(path, 'w+', 0o600);
  unlinkSync(path);
  rmSync(folder, { recursive: true, force: true });
  return fd;
}
