/** Writing a file through a stream so that a failure leaves nothing behind and never hangs. */
import { createWriteStream, rmSync, type WriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';

/** Temporary files being written right now, removed if the process exits before they are renamed into place. */
const pendingTempFiles = new Set<string>();
let isExitHookInstalled = false;

/**
 * Removes every temporary file still being written. Runs on process exit, so a second Ctrl-C (which
 * quits at once, see src/cli/signals.ts) or a process.exit() mid-write leaves no `.partial` file
 * behind. A SIGKILL cannot be caught; its leftover is named after the dead process's pid and is never
 * read as a result.
 */
export function removePendingTempFiles(): void {
  for (const tmp of pendingTempFiles) {
    try {
      rmSync(tmp, { force: true });
    } catch {
      // Exiting anyway: a file that cannot be removed now is one the next write of that name replaces.
    }
  }
  pendingTempFiles.clear();
}

/** The temporary files being written now (for tests). */
export function pendingTempFilePaths(): string[] {
  return [...pendingTempFiles];
}

function trackTempFile(tmp: string): void {
  if (!isExitHookInstalled) {
    process.on('exit', removePendingTempFiles);
    isExitHookInstalled = true;
  }
  pendingTempFiles.add(tmp);
}

/**
 * Runs `write` against a stream to a temporary file beside `path`, then renames it into place.
 * A stream error (no such folder, disk full) rejects at once and aborts `signal`, so a long writer can
 * stop early; the temporary file is removed on any failure, so a failed run never leaves half a file.
 */
export async function writeFileAtomically(path: string, write: (out: WriteStream, signal: AbortSignal) => Promise<void>): Promise<void> {
  const tmp = `${path}.${process.pid}.partial`;
  trackTempFile(tmp);
  const out = createWriteStream(tmp);
  const abort = new AbortController();
  const failed = new Promise<never>((_, reject) =>
    out.once('error', (error) => {
      abort.abort(error);
      reject(error);
    }),
  );
  failed.catch(() => undefined);
  try {
    await Promise.race([write(out, abort.signal), failed]);
    await rename(tmp, path);
  } catch (error) {
    out.destroy();
    await rm(tmp, { force: true });
    throw error;
  } finally {
    pendingTempFiles.delete(tmp);
  }
}
