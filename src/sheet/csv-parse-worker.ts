/**
 * Worker thread: reads, hashes, decodes and parses a CSV sheet on the second core, and posts numbered
 * non-blank rows in batches to the main thread, which checks them (see read-csv-worker.ts). Row numbering,
 * blank rows, the "sep=" line and the unclosed-quote error follow read-csv.ts exactly.
 * It pauses while the main thread has enough batches queued, and never outlives its parent's command:
 * the main thread terminates it when it stops reading.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Transform, type TransformCallback } from 'node:stream';
import { parentPort, workerData } from 'node:worker_threads';
import Papa from 'papaparse';
import { InputError } from '../errors.js';
import { encodeInputCells } from '../report/write-result-csv.js';
import { isPlainLine, type RowsMessage, type TookMessage, type WorkerInput, type WorkerMessage } from './csv-cell-text.js';
import { detectDelimiter, isSeparatorHint } from './read-csv.js';
import { isBlankRow, toHeaderText, trimTrailingBlanks } from './row-source.js';
import { createFileSystemError, type TextEncodingName } from './sniff.js';
import { createChunkDecoder } from './text-decode.js';

/** The worker's rows never reach the main thread's heap as objects, so larger reads cost it nothing. */
const READ_CHUNK_BYTES = 256 * 1024;
/** Batches posted but not yet taken: above HIGH the reading pauses, at LOW it resumes. */
const HIGH_WATER = 8;
const LOW_WATER = 4;

const port = parentPort!;
const { file, encoding, batchSize } = workerData as WorkerInput;
const post = (message: WorkerMessage): void => port.postMessage(message);

const hash = createHash('sha256');
let bytesRead = 0;
const decoder = createChunkDecoder(encoding as TextEncodingName);
const input = createReadStream(file, { highWaterMark: READ_CHUNK_BYTES });
let isStopped = false;

const fail = (error: unknown): void => {
  if (isStopped) return;
  isStopped = true;
  input.destroy();
  text.destroy();
  if (error instanceof InputError) post({ type: 'fail', code: 'unreadable_file', message: error.message });
  else post({ type: 'fail', code: null, message: error instanceof Error ? error.message : String(error) });
};
input.on('error', (error) => fail(createFileSystemError(file, error)));

const text = new Transform({
  readableObjectMode: true,
  readableHighWaterMark: 2,
  transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
    hash.update(chunk);
    bytesRead += chunk.length;
    const decoded = decoder.decode(chunk);
    if (decoded.length > 0) this.push(decoded);
    callback();
  },
  flush(callback: TransformCallback) {
    const rest = decoder.end();
    if (rest.length > 0) this.push(rest);
    callback();
  },
});
input.pipe(text);

let inFlight = 0;
let isPaused = false;
port.on('message', (message: TookMessage) => {
  if (message.type !== 'took') return;
  inFlight--;
  if (isPaused && inFlight <= LOW_WATER) {
    isPaused = false;
    text.resume();
  }
});

let recordNumber = 0;
/** Columns of the result file: the header row's, trailing blank headers left out (as openSheet does). */
let width = -1;
let rows: string[][] = [];
let numbers: number[] = [];
// The header rides in the first batch, so that one holds a row more: data batches stay full.
let limit = batchSize + 1;

function postBatch(): void {
  if (rows.length === 0) return;
  let header: string[] | null = null;
  let data = rows;
  if (width < 0) {
    header = rows[0]!;
    width = trimTrailingBlanks(header.map(toHeaderText)).length;
    data = rows.slice(1);
  }
  const texts = encodeInputCells(data, width);
  const ends = new Int32Array(texts.length);
  const odd: [number, string[]][] = [];
  let total = 0;
  for (let k = 0; k < texts.length; k++) {
    const text = texts[k]!;
    ends[k] = total += text.length;
    if (!isPlainLine(text, data[k]!, width)) odd.push([k, data[k]!]);
  }
  const rowNumbers = Int32Array.from(numbers);
  const message: RowsMessage = { type: 'rows', rowNumbers, header, text: texts.join(''), ends, odd, bytesRead };
  port.postMessage(message, [rowNumbers.buffer, ends.buffer]);
  rows = [];
  numbers = [];
  limit = batchSize;
  if (++inFlight >= HIGH_WATER && !isPaused) {
    isPaused = true;
    text.pause();
  }
}

Papa.parse<string[]>(text as unknown as NodeJS.ReadableStream, {
  header: false,
  dynamicTyping: false,
  skipEmptyLines: false,
  delimiter: (firstChunk: string) => detectDelimiter(firstChunk),
  chunk(results) {
    if (isStopped) return;
    const broken = results.errors.find((e) => e.code === 'MissingQuotes');
    if (broken) {
      const row = recordNumber + (broken.row ?? 0) + 1;
      fail(new InputError(file, 'unreadable_file', `${file}: row ${row} opens a quoted cell (") that is never closed, so the rest of the file would run into that cell: close the quote or remove it, then try again`));
      return;
    }
    const records = results.data;
    for (let i = 0; i < records.length; i++) {
      const cells = records[i]!;
      recordNumber++;
      if (isBlankRow(cells)) continue;
      if (recordNumber === 1 && isSeparatorHint(cells)) {
        recordNumber = 0;
        continue;
      }
      rows.push(cells);
      numbers.push(recordNumber);
      if (rows.length >= limit) postBatch();
    }
  },
  complete() {
    if (isStopped) return;
    postBatch();
    isStopped = true;
    post({ type: 'end', sha256: hash.digest('hex'), bytesRead });
    port.close();
  },
  error(error: Error) {
    fail(createFileSystemError(file, error));
  },
});
