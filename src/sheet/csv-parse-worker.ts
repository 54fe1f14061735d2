/**
 * Worker thread: reads, hashes, decodes and parses a CSV sheet on the second core, and posts numbered
 * non-blank rows in batches to the main thread, which checks them (see read-csv-worker.ts). It parses and
 * numbers rows as the main-thread reader does: both use csv-records.ts. Rows are all it sends.
 * It pauses while the main thread has enough batches queued, and never outlives its parent's command:
 * the main thread terminates it when it stops reading.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { InputError } from '../errors.js';
import { packRows, transferablesOf, type TookMessage, type WorkerInput, type WorkerMessage } from './csv-transport.js';
import { parseCsvFile } from './csv-records.js';
import { MAX_BATCH_CHARS } from './row-source.js';
import type { DecodedMessage } from './windows1252-rows.js';
import type { TextEncodingName } from './sniff.js';

/** The worker's rows never reach the main thread's heap as objects, so larger reads cost it nothing. */
const READ_CHUNK_BYTES = 256 * 1024;
/** Batches posted but not yet taken: above HIGH the reading pauses, at LOW it resumes. */
const HIGH_WATER = 8;
const LOW_WATER = 4;

const port = parentPort!;
const { file, encoding, batchSize, limits } = workerData as WorkerInput;
const post = (message: WorkerMessage): void => port.postMessage(message);

let inFlight = 0;
let isPaused = false;
port.on('message', (message: TookMessage) => {
  if (message.type !== 'took') return;
  inFlight--;
  if (isPaused && inFlight <= LOW_WATER) {
    isPaused = false;
    parse.text.resume();
  }
});

let rows: string[][] = [];
let numbers: number[] = [];
let batchChars = 0;
// The header rides in the first batch, so that one holds a row more: data batches stay full.
let limit = batchSize + 1;

function postBatch(): void {
  if (rows.length === 0) return;
  const message = packRows(rows, numbers, parse.bytesRead(), parse.hasUnitSeparator());
  port.postMessage(message, transferablesOf(message));
  rows = [];
  numbers = [];
  batchChars = 0;
  limit = batchSize;
  if (++inFlight >= HIGH_WATER && !isPaused) {
    isPaused = true;
    parse.text.pause();
  }
}

const parse = parseCsvFile(file, encoding as TextEncodingName, READ_CHUNK_BYTES, limits, {
  row(cells, rowNumber, chars) {
    rows.push(cells);
    numbers.push(rowNumber);
    batchChars += chars;
    if (rows.length >= limit || batchChars >= MAX_BATCH_CHARS) postBatch();
  },
  end() {
    postBatch();
    // Before 'end': the main thread's reader is finished once 'end' arrives.
    const decoded: DecodedMessage = { type: 'decoded', windows1252Rows: parse.windows1252Rows() };
    port.postMessage(decoded);
    post({ type: 'end', sha256: parse.sha256()!, bytesRead: parse.bytesRead() });
    port.close();
  },
  fail(error: InputError) {
    post({ type: 'fail', code: error.code, message: error.message });
  },
});
