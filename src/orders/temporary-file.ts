/** Temporary files for what a sheet keeps on disk while it is checked (rows, order verdicts). */
import { mkdtempSync, openSync, rmSync, statfsSync, unlinkSync } from 'node:fs';
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

/** The folder temporary files go to when none is given. */
export function temporaryFolder(dir?: string): string {
  return dir ?? tmpdir();
}

/** Bytes free for this user in the file system holding `dir`, or null when that cannot be told. */
export function freeDiskBytes(dir: string): number | null {
  try {
    const stats = statfsSync(dir);
    return stats.bavail * stats.bsize;
  } catch {
    return null;
  }
}

/** A size in megabytes, rounded up or down: "2,200 MB". */
export function formatDiskSize(bytes: number, round: 'up' | 'down' = 'up'): string {
  const mb = round === 'up' ? Math.ceil(bytes / 1e6) : Math.floor(bytes / 1e6);
  return `${mb.toLocaleString('en-US')} MB`;
}
