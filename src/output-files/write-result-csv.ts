/**
 * The CSV result file: the input columns, then status, issues and the extra columns, one line per
 * input row, streamed in batches with backpressure so a million rows never sit in memory as one string.
 *
 * papaparse does the quoting and the formula neutralising. Calling it for every field costs ~8 µs a row
 * (30 columns), 8 s for a million rows, so a field papaparse would emit unchanged (no quote, comma,
 * line break or BOM, no leading or trailing space, no formula start) is emitted directly and only the
 * others go through Papa.unparse; the output is byte for byte what Papa.unparse gives for the batch
 * (a test holds it to that).
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import Papa from 'papaparse';
import { writeFileAtomically } from './atomic-file.js';
import { FORMULA_LIKE } from '../formula-guard.js';
import { formatSheetDate } from './cell-values.js';
import { formatRowIssues } from './issue-text.js';
import type { ResultSheetInput } from './types.js';
import type { CellValue } from '../sheet/types.js';

/**
 * Rows per chunk handed to the file (~64 KB), one chunk buffered ahead: text that outlives two young-generation
 * collections is copied to the old one for nothing. Measured on 1M rows against 2,000 rows and the stream's
 * default 16 chunks ahead: 10% less CPU time writing, peak RSS 480 MB instead of 570.
 */
const BATCH_ROWS = 250;
/** Fields per batch at most (250 rows of the template's columns and the result's). */
const BATCH_FIELDS = 250 * 40;
/**
 * Bytes handed to the file at a time, as one Buffer: the thread waits for each write, and with one write per
 * batch (~64 KB) those waits cost about a third of a second per 200,000 rows.
 */
const WRITE_BYTES = 1 << 20;

/** Excel only detects UTF-8 in a CSV by its byte order mark; without it, accents turn into mojibake. */
const BOM = '\ufeff';
const NEWLINE = '\r\n';
const DELIMITER = ',';

export const UNPARSE_CONFIG = { newline: NEWLINE, delimiter: DELIMITER, escapeFormulae: FORMULA_LIKE } as const;

/**
 * Characters papaparse quotes a field for: its own BAD_DELIMITERS, the delimiter and the quote. Read from
 * papaparse itself so the shortcut cannot drift from it; a lookup table beats a RegExp by ~40% here.
 */
const QUOTED_CHARS = [...Papa.BAD_DELIMITERS, DELIMITER, '"'].map((c) => c.charCodeAt(0));
const QUOTED_ASCII = new Uint8Array(128);
for (const code of QUOTED_CHARS) if (code < 128) QUOTED_ASCII[code] = 1;
const QUOTED_OTHER = QUOTED_CHARS.filter((code) => code >= 128);
const SPACE = 0x20;
const COMMA = DELIMITER.charCodeAt(0);
/** First characters that papaparse quotes (a space) or may neutralise (= + - @ TAB CR, see FORMULA_LIKE). */
const FIRST_ASCII = new Uint8Array(128);
for (const c of ' =+-@\t\r') FIRST_ASCII[c.charCodeAt(0)] = 1;

/** True when papaparse might write this text differently from the text itself: then papaparse writes it. */
export function mayChange(text: string): boolean {
  const n = text.length;
  if (n === 0) return false;
  const first = text.charCodeAt(0);
  if ((first < 128 && FIRST_ASCII[first] === 1) || text.charCodeAt(n - 1) === SPACE) return true;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c < 128 ? QUOTED_ASCII[c] === 1 : QUOTED_OTHER.includes(c)) return true;
  }
  return false;
}

/** Separates the fields papaparse encodes in one call per batch: a NUL, which no field passed to it contains. */
const SEPARATOR = '\u0000';
const BATCH_CONFIG = { ...UNPARSE_CONFIG, newline: SEPARATOR } as const;

/** A field papaparse must see, and where its encoding goes. */
interface Pending {
  value: string;
  line: string[];
  index: number;
}

/**
 * Encodes one batch of lines: plain fields directly, the rest with a single Papa.unparse call (one field
 * per "row", rows joined by NUL), which spares papaparse's per-call setup (~1.7 µs) for every such field.
 */
class BatchEncoder {
  private pending: Pending[] = [];
  private lastDateMs = Number.NaN;
  private lastDateText = '';

  /** Rows of an order share their dates: the last one formatted is reused. */
  private date(value: Date): string {
    const ms = value.getTime();
    if (ms !== this.lastDateMs) {
      this.lastDateMs = ms;
      this.lastDateText = formatSheetDate(value);
    }
    return this.lastDateText;
  }

  field(line: string[], index: number, value: CellValue | undefined): void {
    if (value === null || value === undefined) line[index] = '';
    else if (typeof value === 'string') {
      if (!mayChange(value)) line[index] = value;
      else if (value.includes(SEPARATOR)) line[index] = Papa.unparse([[value]], UNPARSE_CONFIG);
      else this.pending.push({ value, line, index });
    } else if (value instanceof Date) line[index] = this.date(value);
    // Numbers and booleans are written as their text and never neutralised, as papaparse does.
    else line[index] = String(value);
  }

  /** Fills in the pending fields. */
  flush(): void {
    if (this.pending.length === 0) return;
    const encoded = Papa.unparse(
      this.pending.map((p) => [p.value]),
      BATCH_CONFIG,
    ).split(SEPARATOR);
    this.pending.forEach((p, i) => (p.line[p.index] = encoded[i]!));
    this.pending = [];
  }
}

export async function writeResultCsv(path: string, input: ResultSheetInput): Promise<void> {
  // pipeline pulls the next batch only when the file has taken the last one (backpressure).
  await writeFileAtomically(path, (out) => pipeline(Readable.from(inWrites(generateCsv(input)), { highWaterMark: 1 }), out));
}

/** The text as Buffers of about WRITE_BYTES. */
function* inWrites(texts: Iterable<string>): Generator<Buffer> {
  let parts: Buffer[] = [];
  let size = 0;
  for (const text of texts) {
    const part = Buffer.from(text, 'utf8');
    parts.push(part);
    size += part.length;
    if (size >= WRITE_BYTES) {
      yield Buffer.concat(parts, size);
      parts = [];
      size = 0;
    }
  }
  if (size > 0) yield Buffer.concat(parts, size);
}

/** The CSV text in chunks of BATCH_ROWS lines, each ending with a newline. */
export function* generateCsv(input: ResultSheetInput): Generator<string> {
  const width = input.headers.length;
  const extras = input.extraColumns;
  const lineWidth = width + 2 + extras.length;
  const encoder = new BatchEncoder();
  yield headerLine(input, encoder);

  // Line arrays are reused batch after batch: a fresh 30-slot array per row cost ~10% more. A sheet of
  // thousands of columns gets fewer lines a batch, so a batch holds about as many fields whatever the width.
  const batchRows = Math.max(1, Math.min(BATCH_ROWS, Math.floor(BATCH_FIELDS / lineWidth)));
  const lines: string[][] = Array.from({ length: batchRows }, () => new Array<string>(lineWidth));
  /** How each line's input cells were written: PLAIN (joined, in line[0]) or how many fields (the rest are blank). */
  const inputFields = new Int32Array(batchRows);
  let count = 0;
  for (const row of input.rows) {
    // Cells beyond the header row have no column to go under; status must stay under its header.
    const line = lines[count]!;
    // Most rows are text that needs no quoting: their cells joined are their line, checked in one scan. A row
    // kept as its line (ResultRow.line) is that scan alone.
    const given = row.line;
    const plain = given !== undefined ? (NOT_PLAIN.test(given) ? null : given) : row.cells.length === width ? writePlainLine(row.cells, width) : null;
    if (plain !== null) {
      line[0] = plain;
      inputFields[count] = PLAIN;
    } else {
      // A short row of a wide sheet: its own cells, then blanks as one run of delimiters.
      const fields = Math.min(width, row.cells.length);
      for (let i = 0; i < fields; i++) encoder.field(line, i, row.cells[i]);
      inputFields[count] = fields;
    }
    encoder.field(line, width, row.status);
    encoder.field(line, width + 1, formatRowIssues(row));
    for (let e = 0; e < extras.length; e++) encoder.field(line, width + 2 + e, row.extra?.[extras[e]!]);
    if (++count === batchRows) {
      yield joinLines(lines, inputFields, width, count, encoder);
      count = 0;
    }
  }
  if (count > 0) yield joinLines(lines, inputFields, width, count, encoder);
}

const PLAIN = -1;

function headerLine(input: ResultSheetInput, encoder: BatchEncoder): string {
  const names = [...input.headers, 'status', 'issues', ...input.extraColumns];
  const plain = writePlainLine(names, names.length);
  if (plain !== null) return BOM + plain + NEWLINE;
  const header: string[] = new Array<string>(names.length);
  names.forEach((name, i) => encoder.field(header, i, name));
  encoder.flush();
  return BOM + header.join(DELIMITER) + NEWLINE;
}

/**
 * A row's input cells as the writer writes them, when each is text written as-is (!mayChange): then the line
 * is the cells joined by the delimiter and holds no quote. Null for any other row. One scan of the joined line
 * instead of a call per cell: the writer's hot path (most rows are plain).
 */
export function writePlainLine(cells: readonly CellValue[], width: number): string | null {
  if (cells.length !== width) return null;
  for (let i = 0; i < width; i++) {
    const cell = cells[i];
    // A cell holding the delimiter would be quoted.
    if (typeof cell !== 'string' || cell.includes(DELIMITER)) return null;
  }
  const line = cells.join(DELIMITER);
  return NOT_PLAIN.test(line) ? null : line;
}

/**
 * In a line of cells joined by the delimiter (none holding it), what makes papaparse write a cell otherwise
 * than as is: a character it quotes for anywhere, one it quotes or neutralises at a cell's start, a space at
 * a cell's end. Built from the same lists as mayChange; one RegExp runs about twice as fast as a scan in JS.
 */
const NOT_PLAIN = new RegExp(
  `[${escapeClass(QUOTED_CHARS.filter((c) => c !== COMMA))}]|(?:^|${DELIMITER})[${escapeClass([...' =+-@\t\r'].map((c) => c.charCodeAt(0)))}]| (?:${DELIMITER}|$)`,
);

function escapeClass(codes: readonly number[]): string {
  return codes.map((code) => `\\u${code.toString(16).padStart(4, '0')}`).join('');
}

/** The batch's lines: a plain row's input is one field (its joined text), the others' one per column. */
function joinLines(lines: readonly string[][], inputFields: Int32Array, width: number, count: number, encoder: BatchEncoder): string {
  encoder.flush();
  let text = '';
  for (let i = 0; i < count; i++) {
    const line = lines[i]!;
    const fields = inputFields[i]!;
    if (fields === width) text += line.join(DELIMITER) + NEWLINE;
    else if (fields === PLAIN) text += line[0] + appendedFields(line, width) + NEWLINE;
    else text += line.slice(0, fields).join(DELIMITER) + DELIMITER.repeat(fields === 0 ? width - 1 : width - fields) + appendedFields(line, width) + NEWLINE;
  }
  return text;
}

/** Status, issues and the extra columns, each after a delimiter (added up: a slice and a join a row cost more). */
function appendedFields(line: readonly string[], width: number): string {
  let text = '';
  for (let i = width; i < line.length; i++) text += DELIMITER + line[i]!;
  return text;
}
