/**
 * The rows of a UTF-8 CSV that the decoder read as windows-1252, line by line (text-decode.ts), for the
 * warning that names them: the decoder knows where those lines start in the decoded text, papaparse only
 * where each chunk's records end, so a chunk holding such a line is parsed again up to it.
 */
import Papa from 'papaparse';
import type { ChunkDecoder } from './text-decode.js';
import type { ReaderIssue } from './types.js';

/** The rows of a mixed-encoding file that were read as windows-1252. */
export interface Windows1252Rows {
  /** The first of them (at most MAX_NAMED_ROWS), ascending. */
  rows: number[];
  /** How many lines were read as windows-1252 in all; more than `rows` can name when isComplete is false. */
  lines: number;
  /** `rows` names every one of them. */
  isComplete: boolean;
}

/** Worker to main (csv-parse-worker.ts), just before its 'end': what only the worker's decoder knows. */
export interface DecodedMessage {
  type: 'decoded';
  windows1252Rows: Windows1252Rows | null;
}

/** Rows named in the mixed-encoding warning; more are counted, not named. */
const MAX_NAMED_ROWS = 10;

/** Decoded text in the pieces handed to papaparse, from the start of the record it is parsing. */
export class PushedText {
  private pieces: string[] = [];
  /** Character offset of pieces[0] in the whole text. */
  private start = 0;

  add(text: string): void {
    this.pieces.push(text);
  }

  /** Text from `from` to `to` (character offsets of the whole text); `from` must not be before what was dropped. */
  slice(from: number, to: number): string {
    let text = '';
    let at = this.start;
    for (const piece of this.pieces) {
      const end = at + piece.length;
      if (end > from && at < to) text += piece.slice(Math.max(0, from - at), Math.min(piece.length, to - at));
      at = end;
    }
    return text;
  }

  /** Forgets the pieces wholly before `offset` (papaparse has parsed them). */
  dropBefore(offset: number): void {
    let drop = 0;
    while (drop < this.pieces.length && this.start + this.pieces[drop]!.length <= offset) this.start += this.pieces[drop++]!.length;
    if (drop > 0) this.pieces = this.pieces.slice(drop);
  }
}

/**
 * Which records hold the lines the decoder read as windows-1252. papaparse says where each chunk's records end
 * (meta.cursor, a character offset of the whole text) but not where each record starts, so a chunk holding
 * such a line is parsed again up to the line to count the records before it: rarely, and only for the first
 * few rows, which is all the warning names.
 */
export class Windows1252RowFinder {
  private readonly rows: number[] = [];
  private parsedTo = 0;
  private nextLine = 0;

  constructor(private readonly decoder: ChunkDecoder) {}

  findRecords(pushed: PushedText, meta: Papa.ParseMeta): Set<number> | null {
    const from = this.parsedTo;
    this.parsedTo = meta.cursor;
    let marked: Set<number> | null = null;
    const offsets = this.decoder.windows1252?.offsets;
    // Lines of one record give one index: the set's size counts the rows still to be named.
    while (offsets !== undefined && this.nextLine < offsets.length && offsets[this.nextLine]! < meta.cursor && this.rows.length + (marked?.size ?? 0) < MAX_NAMED_ROWS) {
      const before = pushed.slice(from, offsets[this.nextLine]!);
      const records = Papa.parse<string[]>(before, { delimiter: meta.delimiter, newline: meta.linebreak as '\r\n' | '\n' | '\r' }).data.length;
      (marked ??= new Set()).add(Math.max(0, records - 1));
      this.nextLine++;
    }
    pushed.dropBefore(meta.cursor);
    return marked;
  }

  add(row: number): void {
    if (this.rows[this.rows.length - 1] !== row) this.rows.push(row);
  }

  result(): Windows1252Rows | null {
    const lines = this.decoder.windows1252;
    if (!lines?.isMixed) return null;
    return { rows: this.rows, lines: lines.count, isComplete: this.nextLine === lines.count };
  }
}

/** The warning for a file that mixes encodings (null when it does not). */
export function createMixedEncodingIssue(found: Windows1252Rows | null): ReaderIssue | null {
  if (found === null) return null;
  const isOne = found.isComplete && found.rows.length === 1;
  const named = found.rows.length === 0 ? 'some rows' : found.rows.length === 1 ? `row ${found.rows[0]}` : `rows ${found.rows.join(', ')}`;
  const which = found.isComplete ? named : `${named}${found.rows.length > 0 ? ' and others further down' : ''} (${found.lines.toLocaleString('en-US')} lines in all)`;
  return {
    row: found.rows[0] ?? null,
    column: null,
    code: 'mixed_encoding',
    severity: 'warning',
    message: `The file mixes two text encodings (text pasted from another program?): ${which} ${isOne ? 'is' : 'are'} not UTF-8 and ${isOne ? 'was' : 'were'} read as Windows-1252 (Excel's "CSV" on Windows), the other rows as UTF-8. Check the accented letters and symbols of ${isOne ? 'that row' : 'those rows'}, and save the file as "CSV UTF-8" to avoid this.`,
  };
}
