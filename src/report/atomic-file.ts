/** Writing a file through a stream so that a failure leaves nothing behind and never hangs. */
import { createWriteStream, type WriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';

/**
 * Runs `write` against a stream to a temporary file beside `path`, then renames it into place.
 * A stream error (no such folder, disk full) rejects at once and aborts `signal`, so a long writer can
 * stop early; the temporary file is removed on any failure, so a failed run never leaves half a file.
 */
export async function writeFileAtomically(path: string, write: (out: WriteStream, signal: AbortSignal) => Promise<void>): Promise<void> {
  const tmp = `${path}.${process.pid}.partial`;
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
  }
}
