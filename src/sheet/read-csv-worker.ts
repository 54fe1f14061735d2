/**
 * CSV rows parsed on the second core: a worker thread (csv-parse-worker.ts) reads, hashes, decodes and
 * parses the file and posts compact batches; this side splits them into rows as the checker asks for them.
 * Same rows, numbers and errors as openCsvSource; used for files large enough to repay starting a thread.
 *
 * The worker is terminated as soon as the rows are consumed, abandoned or fail, so it never outlives the
 * command; whatever goes wrong inside it reaches the caller as an InputError with the usual message.
 */
import { Worker } from 'node:worker_threads';
import { InputError } from '../errors.js';
import { BatchQueue } from './batch-queue.js';
import { createMixedEncodingIssue, type DecodedMessage, type Windows1252Rows } from './windows1252-rows.js';
import { splitRows, type RowsMessage, type TookMessage, type WorkerInput, type WorkerMessage } from './csv-transport.js';
import type { RowSource, SourceOptions } from './row-source.js';
import type { TextEncodingName } from './sniff.js';
import type { RawRow } from './types.js';

export interface WorkerSourceOptions extends SourceOptions {
  /** The compiled worker script; default the csv-parse-worker.js beside this module. */
  workerUrl?: URL;
}

export function openCsvWorkerSource(file: string, encoding: TextEncodingName, options: WorkerSourceOptions): RowSource {
  const input: WorkerInput = { file, encoding, batchSize: options.batchSize, limits: options.limits };
  const worker = new Worker(options.workerUrl ?? new URL('./csv-parse-worker.js', import.meta.url), { workerData: input });
  let bytes = 0;
  let digest: string | null = null;
  let windows1252Rows: Windows1252Rows | null = null;
  let isClosed = false;
  // The worker paces itself by the batches taken (see csv-parse-worker.ts): this queue never pauses it.
  const queue = new BatchQueue<RowsMessage>({ pause: () => {}, resume: () => {} }, Number.MAX_SAFE_INTEGER);

  const close = (): void => {
    if (isClosed) return;
    isClosed = true;
    queue.end();
    void worker.terminate();
  };
  const fail = (error: Error): void => {
    queue.fail(error);
    close();
  };

  worker.on('message', (message: WorkerMessage | DecodedMessage) => {
    if (message.type === 'decoded') {
      windows1252Rows = message.windows1252Rows;
    } else if (message.type === 'rows') {
      bytes = message.bytesRead;
      queue.push(message);
    } else if (message.type === 'end') {
      bytes = message.bytesRead;
      digest = message.sha256;
      queue.end();
    } else if (message.code !== null) {
      fail(new InputError(file, message.code, message.message));
    } else {
      fail(new Error(`reading ${file} failed: ${message.message}`));
    }
  });
  worker.on('error', (error) => fail(new Error(`reading ${file} failed: ${error.message}`, { cause: error })));
  worker.on('exit', () => {
    if (!queue.isFinished) fail(new Error(`reading ${file} failed: the reader stopped before the end of the file`));
  });

  async function* batches(): AsyncGenerator<RawRow[], void, undefined> {
    const took: TookMessage = { type: 'took' };
    for await (const message of queue.drain()) {
      if (!isClosed) worker.postMessage(took);
      yield splitRows(message);
    }
  }

  return {
    batches: batches(),
    sheetName: () => undefined,
    bytesRead: () => bytes,
    sha256: () => digest,
    issues: () => {
      const mixed = createMixedEncodingIssue(windows1252Rows);
      return mixed === null ? [] : [mixed];
    },
    close,
  };
}
