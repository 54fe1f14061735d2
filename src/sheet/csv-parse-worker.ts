/**
 * Worker thread: reads, hashes, decodes and parses a CSV sheet on the second core, and posts numbered
 * non-blank rows in batches to the main thread, which checks them (see read-csv-worker.ts). It parses and
 * numbers rows as the main-thread reader does: both use csv-records.ts.
 * It pauses while the main thread has enough batches queued, and never outlives its parent's command:
 * the main thread terminates it when it stops reading.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { InputError } from '../errors.js';
import { encodeInputCells, writePlainLine } from '../output-files/write-result-csv.js';
import { isPlainLine, packOddRows, type RowsMessage, type TookMessage, type WorkerInput, type WorkerMessage } from './csv-cell-text.js';
import { parseCsvFile } from './csv-records.js';
import type { DecodedMessage } from './windows1252-rows.js';
import { toHeaderText, trimTrailingBlanks } from './row-source.js';
import type { TextEncodingName } from './sniff.js';

/** The worker's rows never reach the main thread's heap as objects, so larger reads cost it nothing. */
const READ_CHUNK_BYTES = 256 * 1024;
/** Batches posted but not yet taken: above HIGH the reading pauses, at LOW it resumes. */
const HIGH_WATER = 8;
const LOW_WATER = 4;

const port = parentPort!;
const { file, encoding, batchSize } = workerData as WorkerInput;
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
  const texts = new Array<string>(data.length);
  let others: number[] | null = null;
  for (let k = 0; k < data.length; k++) {
    const line = writePlainLine(data[k]!, width);
    if (line !== null) texts[k] = line;
    else (others ??= []).push(k);
  }
  // Rows with a cell the writer quotes or neutralises, or of another width; some still come out plain.
  const odd: [number, string[]][] = [];
  if (others !== null) {
    const encoded = encodeInputCells(others.map((k) => data[k]!), width);
    for (let j = 0; j < others.length; j++) {
      const k = others[j]!;
      texts[k] = encoded[j]!;
      if (!isPlainLine(encoded[j]!, data[k]!, width)) odd.push([k, data[k]!]);
    }
  }
  const ends = new Int32Array(texts.length);
  let total = 0;
  for (let k = 0; k < texts.length; k++) ends[k] = total += texts[k]!.length;
  const rowNumbers = Int32Array.from(numbers);
  const packed = packOddRows(odd);
  const message: RowsMessage = { type: 'rows', rowNumbers, header, text: texts.join(''), ends, ...packed, bytesRead: parse.bytesRead() };
  port.postMessage(message, [rowNumbers.buffer, ends.buffer, packed.oddRows.buffer, packed.oddEnds.buffer]);
  rows = [];
  numbers = [];
  limit = batchSize;
  if (++inFlight >= HIGH_WATER && !isPaused) {
    isPaused = true;
    parse.text.pause();
  }
}

const parse = parseCsvFile(file, encoding as TextEncodingName, READ_CHUNK_BYTES, {
  row(cells, rowNumber) {
    rows.push(cells);
    numbers.push(rowNumber);
    if (rows.length >= limit) postBatch();
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
    post({ type: 'fail', code: error.code === 'unreadable_file' ? 'unreadable_file' : null, message: error.message });
  },
});
