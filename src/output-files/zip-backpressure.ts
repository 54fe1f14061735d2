/**
 * Backpressure for exceljs's streaming writer, which has none: a worksheet writes its XML into a
 * buffer that pushes every chunk on to the zip, ignoring `write() === false`. When compression falls
 * behind, the XML piles up in the zip's input (measured: ~1 KB per row, 200 MB at 200,000 rows), so a
 * million rows would need a gigabyte. Between batches of rows, the writer waits here until that input
 * has drained below a limit.
 *
 * The input is the stream archiver pipes the sheet into (`worksheet.stream.pipes[0]`, a readable-stream
 * PassThrough in exceljs 4.4 / archiver 5). When it is not found, this only yields to the event loop.
 */
import { setImmediate as yieldToIo } from 'node:timers/promises';

interface BufferedWritable {
  _writableState: { length: number };
  once(event: 'drain' | 'error' | 'close', listener: () => void): unknown;
  off(event: 'drain' | 'error' | 'close', listener: () => void): unknown;
}

function zipInputOf(worksheet: unknown): BufferedWritable | null {
  const pipes = (worksheet as { stream?: { pipes?: unknown[] } } | null)?.stream?.pipes;
  const dest = Array.isArray(pipes) ? (pipes[0] as Partial<BufferedWritable> | undefined) : undefined;
  if (!dest || typeof dest._writableState?.length !== 'number' || typeof dest.once !== 'function' || typeof dest.off !== 'function') return null;
  return dest as BufferedWritable;
}

/** Bytes of XML allowed to wait for compression before the writer pauses. */
export const ZIP_INPUT_LIMIT = 8 * 1024 * 1024;

/** Yields to the event loop, and while more than `limit` bytes of the sheet wait for the zip, waits for them to drain. */
export async function waitForZip(worksheet: unknown, signal?: AbortSignal, limit = ZIP_INPUT_LIMIT): Promise<void> {
  await yieldToIo();
  const input = zipInputOf(worksheet);
  while (input && input._writableState.length > limit) {
    signal?.throwIfAborted();
    await new Promise<void>((resolve) => {
      const done = (): void => {
        input.off('drain', done);
        input.off('error', done);
        input.off('close', done);
        clearTimeout(timer);
        resolve();
      };
      // The timer re-checks in case a drain was missed; it is not a deadline.
      const timer = setTimeout(done, 200);
      input.once('drain', done);
      input.once('error', done);
      input.once('close', done);
    });
  }
  signal?.throwIfAborted();
}
