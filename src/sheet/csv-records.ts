/**
 * A CSV/TSV file as numbered rows, for both CSV readers (read-csv.ts on the main thread, csv-parse-worker.ts
 * on a worker): file bytes -> SHA-256 and byte count -> decoded text -> papaparse (array mode, documented
 * Node stream input) -> non-blank rows with their spreadsheet row numbers.
 *
 * Row numbers count records as a spreadsheet shows them: a quoted line break stays inside its row, blank
 * records are skipped without renumbering what follows, and Excel's "sep=;" first line is not a row.
 *
 * A record ends at CRLF, LF or a lone CR alike, even all three in one file (LF rows appended to our CRLF
 * template, lines of an old Mac file pasted in): each lone CR becomes an LF as the text is decoded (the text
 * keeps its length), papaparse splits at LF, and the CR it leaves at the end of a CRLF record is dropped here.
 *
 * A UTF-8 file with lines that are not UTF-8 is decoded line by line (text-decode.ts); the rows those lines
 * belong to are found as records are numbered (windows1252-rows.ts).
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Transform, type TransformCallback } from 'node:stream';
import Papa from 'papaparse';
import { InputError } from '../errors.js';
import { CsvSizeGuard } from './csv-size-guard.js';
import type { SheetLimits } from './limits.js';
import { isBlankRow } from './row-source.js';
import { createFileSystemError, type TextEncodingName } from './sniff.js';
import { createChunkDecoder } from './text-decode.js';
import { PushedText, Windows1252RowFinder, type Windows1252Rows } from './windows1252-rows.js';

export interface CsvRowHandlers {
  /**
   * A non-blank row (the header first). `chars` is about how many characters it took in the file (the text
   * parsed with it, shared among its records), for batching by size.
   */
  row(cells: string[], rowNumber: number, chars: number): void;
  /** Every row has been handed over; sha256() is known. */
  end(): void;
  /** Reading stopped: an unreadable file, an unclosed quote or a limit crossed. No call follows. */
  fail(error: InputError): void;
}

export interface CsvParse {
  /** The decoded text, one object per read: pause() and resume() it to pace the parsing. */
  readonly text: Transform;
  bytesRead(): number;
  /** Hex SHA-256 of the file; null until the whole file has gone through. */
  sha256(): string | null;
  /** Stops reading; no handler is called after this. */
  stop(): void;
  /** Known once end() was called: the rows read as windows-1252 in a file that mixes encodings, or null. */
  windows1252Rows(): Windows1252Rows | null;
  /** Whether the text handed to the parser so far holds a unit separator (U+001F) anywhere: see csv-transport.ts. */
  hasUnitSeparator(): boolean;
}

/** Parses a CSV file in reads of `readBytes`, handing each non-blank row over with its number; the limits are checked first. */
export function parseCsvFile(file: string, encoding: TextEncodingName, readBytes: number, limits: SheetLimits, handlers: CsvRowHandlers): CsvParse {
  const hash = createHash('sha256');
  let bytes = 0;
  let digest: string | null = null;
  let isStopped = false;
  const decoder = createChunkDecoder(encoding);
  const lineBreaks = createLoneCrNormalizer();
  // The text handed to papaparse and not yet parsed past, to find the records of windows-1252 lines in.
  const pushed = new PushedText();
  const rows1252 = new Windows1252RowFinder(decoder);
  let guard: CsvSizeGuard | null = null;
  /** Characters handed to papaparse, and how many of them its chunks have covered. */
  let pushedChars = 0;
  let parsedChars = 0;
  let hasUnit = false;
  /** Text held back while a long record goes on (see hand). */
  let held = '';

  const input = createReadStream(file, { highWaterMark: readBytes });
  const text = createTextStream(
    (chunk, stream) => {
      hash.update(chunk);
      bytes += chunk.length;
      const decoded = lineBreaks.normalize(decoder.decode(chunk));
      if (decoded.length > 0 && isWithinLimits(decoded)) hand(stream, decoded, false);
    },
    (stream) => {
      const rest = lineBreaks.normalize(decoder.end()) + lineBreaks.end();
      if (isWithinLimits(rest)) hand(stream, rest, true);
      digest = hash.digest('hex');
    },
  );

  const stop = (): void => {
    isStopped = true;
    input.destroy();
    text.destroy();
  };
  const fail = (error: InputError): void => {
    if (isStopped) return;
    stop();
    handlers.fail(error);
  };
  input.on('error', (error) => fail(createFileSystemError(file, error)));
  input.pipe(text);

  /**
   * Hands text to papaparse. papaparse parses an unfinished record again with every chunk, so the text of a
   * record longer than HOLD_FROM_CHARS (a header of a million columns) is held back until the record ends:
   * parsed once, not once per read.
   */
  function hand(stream: Transform, decoded: string, isLast: boolean): void {
    const text = held.length === 0 ? decoded : held + decoded;
    if (!isLast && guard!.partialRecordChars > HOLD_FROM_CHARS) {
      held = text;
      return;
    }
    held = '';
    if (text.length === 0) return;
    pushed.add(text);
    pushedChars += text.length;
    stream.push(text);
  }

  /** Starts parsing on the first text, and checks each text against the limits before papaparse holds it. */
  function isWithinLimits(decoded: string): boolean {
    if (isStopped) return false;
    startParsing(decoded);
    try {
      guard!.scan(decoded);
      if (!hasUnit && decoded.includes('\u001f')) hasUnit = true;
      return true;
    } catch (error) {
      fail(error as InputError);
      return false;
    }
  }

  let recordNumber = 0;
  let isParsing = false;
  /**
   * Starts papaparse on the text stream once the first decoded text is there, splitting at LF: its own
   * guess reads a CRLF header followed by LF rows as one CRLF record holding every row.
   * The stream holds the text pushed until papaparse listens.
   */
  function startParsing(head: string): void {
    if (isParsing) return;
    isParsing = true;
    const delimiter = detectDelimiter(head);
    guard = new CsvSizeGuard(file, limits, delimiter, SEPARATOR_LINE.test(head));
    Papa.parse<string[]>(text as unknown as NodeJS.ReadableStream, {
      ...RECORDS_AS_ARRAYS,
      delimiter,
      chunk(results) {
        if (isStopped) return;
        const unclosed = findUnclosedQuote(file, results, recordNumber);
        if (unclosed !== null) {
          fail(unclosed);
          return;
        }
        const chars = (pushedChars - parsedChars) / Math.max(1, results.data.length);
        parsedChars = pushedChars;
        // Records of this chunk holding a windows-1252 line, by index (null nearly always).
        const marked = rows1252.findRecords(pushed, results.meta);
        recordNumber = handOverRecords(results.data, recordNumber, chars, marked, rows1252, handlers, () => isStopped);
      },
      complete() {
        if (isStopped) return;
        isStopped = true;
        handlers.end();
      },
      error(error: Error) {
        fail(createFileSystemError(file, error));
      },
    });
  }

  return { text, bytesRead: () => bytes, sha256: () => digest, stop, windows1252Rows: () => rows1252.result(), hasUnitSeparator: () => hasUnit };
}

/** Records as arrays of text cells, every record kept (blank ones are skipped as rows are numbered), split at LF. */
const RECORDS_AS_ARRAYS = { header: false, dynamicTyping: false, skipEmptyLines: false, newline: '\n' } as const;

/** Text, one object per read of the file: `read` turns each read into text and pushes it, `end` pushes the rest. */
function createTextStream(read: (chunk: Buffer, stream: Transform) => void, end: (stream: Transform) => void): Transform {
  return new Transform({
    readableObjectMode: true,
    // Each object is a read's worth of text: hold two, not the object-mode default of sixteen.
    readableHighWaterMark: 2,
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      read(chunk, this);
      callback();
    },
    flush(callback: TransformCallback) {
      end(this);
      callback();
    },
  });
}

/**
 * Hands a chunk's records over as numbered non-blank rows, from the record number reached so far; returns the
 * number reached. `marked`: the records holding a windows-1252 line, by index in the chunk.
 */
function handOverRecords(records: string[][], recordNumber: number, chars: number, marked: ReadonlySet<number> | null, rows1252: Windows1252RowFinder, handlers: CsvRowHandlers, isStopped: () => boolean): number {
  let number = recordNumber;
  for (let i = 0; i < records.length && !isStopped(); i++) {
    const cells = records[i]!;
    dropEndingCr(cells);
    number++;
    if (isBlankRow(cells)) continue;
    if (number === 1 && isSeparatorHint(cells)) {
      number = 0;
      continue;
    }
    if (marked !== null && marked.has(i)) rows1252.add(number);
    handlers.row(cells, number, chars);
  }
  return number;
}

/** A chunk's unclosed quote as the error naming its row, or null. */
function findUnclosedQuote(file: string, results: Papa.ParseResult<string[]>, recordNumber: number): InputError | null {
  const broken = results.errors.find((e) => e.code === 'MissingQuotes');
  if (!broken) return null;
  // papaparse also reports InvalidQuotes for that row when the quote was closed but text followed
  // it ("Ann" Lee): a different mistake, with a different fix.
  const isTextAfterQuote = results.errors.some((e) => e.code === 'InvalidQuotes' && e.row === broken.row);
  return createUnclosedQuoteError(file, recordNumber + (broken.row ?? 0) + 1, isTextAfterQuote);
}

function createUnclosedQuoteError(file: string, row: number, isTextAfterQuote: boolean): InputError {
  if (isTextAfterQuote) {
    return new InputError(
      file,
      'unreadable_file',
      `${file}: row ${row} has a cell that starts with a quote (") and goes on after the closing quote, like "Ann" Lee, so the rest of the file would run into that cell: ` +
        'put the whole cell in quotes and double the quotes inside it ("""Ann"" Lee"), or remove the quotes, then try again',
    );
  }
  return new InputError(file, 'unreadable_file', `${file}: row ${row} opens a quoted cell (") that is never closed, so the rest of the file would run into that cell: close the quote or remove it, then try again`);
}

/**
 * Turns each lone CR (an old Mac line end, quoted or not) into an LF, so that every line ends in LF or CRLF
 * however the file mixes them. One character for one: offsets in the text (windows1252-rows.ts) hold. A CR
 * ending one piece of text waits for the next, whose first character says whether it was a CRLF.
 */
export function createLoneCrNormalizer(): { normalize(text: string): string; end(): string } {
  let heldCr = false;
  return {
    normalize(piece) {
      let text = heldCr ? `\r${piece}` : piece;
      heldCr = text.endsWith('\r');
      if (heldCr) text = text.slice(0, -1);
      return text.includes('\r') ? text.replace(/\r(?!\n)/g, '\n') : text;
    },
    end() {
      const rest = heldCr ? '\n' : '';
      heldCr = false;
      return rest;
    },
  };
}

/** Drops the CR that splitting at LF leaves at the end of a CRLF record's last (unquoted) cell. */
function dropEndingCr(cells: string[]): void {
  const last = cells.length - 1;
  const cell = cells[last]!;
  if (cell.charCodeAt(cell.length - 1) === 13) cells[last] = cell.slice(0, -1);
}

/** An unfinished record longer than this is held back from papaparse until it ends (see hand). */
const HOLD_FROM_CHARS = 1024 * 1024;

const CANDIDATES = [',', ';', '\t'] as const;
const SEPARATOR_HINT = /^sep=.?$/i;
/** A first line that isSeparatorHint will drop, as the size guard must know before the rows are parsed. */
const SEPARATOR_LINE = /^sep=[^\r\n]?(?:\r?\n|$)/i;

/** Excel's "sep=;" first line, which names the delimiter and is not shown as a row. */
export function isSeparatorHint(cells: string[]): boolean {
  return SEPARATOR_HINT.test(cells[0]!) && cells.length <= 2 && (cells[1] ?? '') === '';
}

/**
 * The delimiter of the first non-blank line: whichever of `,` `;` tab occurs most often outside
 * quotes (a tie, or none at all, means comma).
 */
export function detectDelimiter(text: string): string {
  let start = 0;
  while (start < text.length) {
    let end = start;
    let isQuoted = false;
    // Find the end of this record, letting a quoted line break stay inside it.
    for (; end < text.length; end++) {
      const c = text.charCodeAt(end);
      if (c === 34) isQuoted = !isQuoted;
      else if (!isQuoted && (c === 10 || c === 13)) break;
    }
    const line = text.slice(start, end);
    const hint = /^sep=(.)$/i.exec(line.trim());
    if (hint && start === 0) return hint[1]!;
    if (/[^\s,;]/.test(line)) return mostFrequentDelimiter(line);
    start = end + 1;
  }
  return ',';
}

function mostFrequentDelimiter(line: string): string {
  const counts = [0, 0, 0];
  let isQuoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '"') isQuoted = !isQuoted;
    else if (!isQuoted) {
      const k = CANDIDATES.indexOf(c as (typeof CANDIDATES)[number]);
      if (k >= 0) counts[k]!++;
    }
  }
  let best = 0;
  for (let k = 1; k < CANDIDATES.length; k++) if (counts[k]! > counts[best]!) best = k;
  return CANDIDATES[best]!;
}
