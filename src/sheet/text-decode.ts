/**
 * Bytes of a text sheet to JS strings, chunk by chunk, as spreadsheet programs write them:
 * UTF-8 (with or without BOM), UTF-16 LE/BE ("Unicode text"), or windows-1252 (Excel's "CSV"
 * on Windows) when the bytes are not valid UTF-8: line by line, since a file that mixes the two
 * (a row pasted from another program) must keep its UTF-8 rows.
 *
 * Decoding here, statefully, also avoids the split-character bug of decoding each chunk on its
 * own (papaparse PR #1133): a multi-byte character cut by a chunk boundary stays whole.
 */
import { isAscii, isUtf8 } from 'node:buffer';
import { TextDecoder } from 'node:util';
import type { TextEncodingName } from './sniff.js';

export interface ChunkDecoder {
  decode(chunk: Buffer): string;
  /** Whatever is left at the end of the input (an incomplete character ends a line that is not UTF-8). */
  end(): string;
  /** The encoding actually used so far: `windows-1252` once lines were read so and none proved UTF-8. */
  readonly encoding: TextEncodingName | 'windows-1252';
  /** The lines read as windows-1252 so far (UTF-8 input only). */
  readonly windows1252?: Windows1252Lines;
}

/** Where a UTF-8 file's decoder fell back to windows-1252, line by line. */
export interface Windows1252Lines {
  /**
   * Where the first of those lines (at most MAX_NOTED_LINES) start in the decoded text, as character offsets,
   * ascending. A line cut by the first bad chunk may be noted where that chunk starts, inside the line.
   */
  readonly offsets: readonly number[];
  /** How many lines were read as windows-1252 in all. */
  readonly count: number;
  /** Other lines held real UTF-8 (or the file starts with a UTF-8 BOM): the file mixes two encodings. */
  readonly isMixed: boolean;
}

/** Enough lines to name a few rows in a warning; the rest are only counted. */
export const MAX_NOTED_LINES = 100;

export function createChunkDecoder(encoding: TextEncodingName): ChunkDecoder {
  if (encoding === 'utf-8') return new Utf8Or1252Decoder();
  // UTF-16: the TextDecoder drops the leading BOM itself (ignoreBOM false).
  const decoder = new TextDecoder(encoding);
  return {
    encoding,
    decode: (chunk) => decoder.decode(chunk, { stream: true }),
    end: () => decoder.decode(),
  };
}

/**
 * Node's TextDecoder('windows-1252') decodes as latin1 since 20.18.3 (nodejs/node#60888), which
 * turns Excel's curly quotes, dashes and euro sign into control characters; these are the
 * WHATWG windows-1252 mappings of bytes 0x80-0x9F (the five unassigned bytes stay as they are).
 */
const CP1252_C1 = '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f'
  + '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

export function decodeWindows1252(bytes: Buffer): string {
  const latin1 = bytes.toString('latin1');
  return /[\u0080-\u009f]/.test(latin1) ? latin1.replace(/[\u0080-\u009f]/g, (c) => CP1252_C1[c.charCodeAt(0) - 0x80]!) : latin1;
}

/** How many bytes at the end of `buf` start a UTF-8 sequence that the next chunk completes. */
export function countIncompleteUtf8Tail(buf: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, buf.length); back++) {
    const byte = buf[buf.length - back]!;
    if ((byte & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead
    const need = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return need > back ? back : 0;
  }
  return 0;
}

/**
 * A line longer than this without a line break is decided in pieces (a file without line breaks would
 * otherwise be carried, and copied, whole).
 */
const MAX_CARRY_BYTES = 1024 * 1024;

const EMPTY = Buffer.alloc(0);

/**
 * Strict UTF-8, a whole chunk at a time, until a byte proves otherwise. From then on every line is decoded
 * by what it is: a line that is valid UTF-8 as UTF-8, a line that is not as windows-1252, each noted (see
 * Windows1252Lines). A file that is windows-1252 throughout thus reads as it always did; a UTF-8 file
 * with a pasted windows-1252 row keeps its UTF-8 rows, whether the bad byte comes in the first chunk or a later one.
 * Pure ASCII lines read the same either way. CR and LF both end a line, so CR-only files are split too.
 */
class Utf8Or1252Decoder implements ChunkDecoder {
  // ignoreBOM: a decoder first used mid-file must not eat a U+FEFF there; the file's BOM is dropped by decode().
  private strict: TextDecoder | null = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  /** A character beyond ASCII was read as UTF-8 (or the file has a UTF-8 BOM). */
  private sawUtf8 = false;
  /** Strict mode: the bytes of an incomplete character the strict decoder holds. */
  private previousTail: Uint8Array = EMPTY;
  /** Line mode: the bytes of the line not yet complete. */
  private carry: Buffer = EMPTY;
  /** Characters handed out so far, the BOM excluded: where the next decoded text starts. */
  private written = 0;
  private isFirst = true;
  private readonly noted: number[] = [];
  private notedCount = 0;

  get encoding(): TextEncodingName | 'windows-1252' {
    return this.notedCount > 0 && !this.sawUtf8 ? 'windows-1252' : 'utf-8';
  }

  get windows1252(): Windows1252Lines {
    return { offsets: this.noted, count: this.notedCount, isMixed: this.notedCount > 0 && this.sawUtf8 };
  }

  decode(chunk: Buffer): string {
    let bytes = chunk;
    // The file's BOM is dropped as bytes, so that line offsets count from the first real character.
    if (this.isFirst && chunk.length >= 3 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) {
      this.isFirst = false;
      this.sawUtf8 = true; // a UTF-8 BOM says the file is UTF-8
      bytes = chunk.subarray(3);
    }
    let text = this.strict ? this.decodeStrict(bytes) : this.decodeLines(bytes, false);
    if (this.isFirst && text.length > 0) {
      // A BOM cut by a tiny first chunk comes out as text.
      this.isFirst = false;
      if (text.charCodeAt(0) === 0xfeff) {
        this.sawUtf8 = true;
        text = text.slice(1);
      }
    }
    this.written += text.length;
    return text;
  }

  end(): string {
    let text = '';
    if (this.strict) {
      try {
        text = this.strict.decode();
      } catch {
        // The file ended inside a "character": its last line is not UTF-8.
        this.strict = null;
        text = this.decodeLines(Buffer.from(this.previousTail), true);
      }
    } else {
      text = this.decodeLines(EMPTY, true);
    }
    this.written += text.length;
    return text;
  }

  private decodeStrict(chunk: Buffer): string {
    if (this.previousTail.length === 0 && isAscii(chunk)) return chunk.toString('latin1');
    try {
      const text = this.strict!.decode(chunk, { stream: true });
      // Only a completed multi-byte character proves UTF-8; a pending lead byte proves nothing yet.
      if (!this.sawUtf8) this.sawUtf8 = /[^\x00-\x7f]/.test(text);
      this.previousTail = chunk.subarray(chunk.length - countIncompleteUtf8Tail(chunk));
      return text;
    } catch {
      this.strict = null;
      // What the strict decoder held back belongs to the line the bad chunk continues.
      const pending = this.previousTail.length > 0 ? Buffer.concat([this.previousTail, chunk]) : chunk;
      this.previousTail = EMPTY;
      return this.decodeLines(pending, false);
    }
  }

  /** Complete lines of carry + chunk, each decoded by what it is; an incomplete last line waits (unless isEnd). */
  private decodeLines(chunk: Buffer, isEnd: boolean): string {
    const buf = this.carry.length > 0 ? Buffer.concat([this.carry, chunk]) : chunk;
    let end = isEnd ? buf.length : lastLineEnd(buf);
    if (end === 0 && buf.length > MAX_CARRY_BYTES) end = buf.length - countIncompleteUtf8Tail(buf);
    this.carry = end < buf.length ? buf.subarray(end) : EMPTY;
    if (end === 0) return '';
    // Fast path: a chunk with nothing but UTF-8 in its complete lines.
    if (isUtf8(buf.subarray(0, end))) {
      const text = buf.toString('utf8', 0, end);
      if (!this.sawUtf8 && text.length < end) this.sawUtf8 = true;
      return text;
    }

    // Runs of lines of one encoding, decoded a run at a time (ASCII lines join whichever run they are in).
    const parts: string[] = [];
    let decoded = 0; // characters in parts
    let runStart = 0;
    let isRun1252 = false;
    let nextLf = buf.indexOf(10);
    let nextCr = buf.indexOf(13);
    for (let pos = 0; pos < end; ) {
      if (nextLf !== -1 && nextLf < pos) nextLf = buf.indexOf(10, pos);
      if (nextCr !== -1 && nextCr < pos) nextCr = buf.indexOf(13, pos);
      let lineEnd = end;
      if (nextLf !== -1 && nextLf < lineEnd) lineEnd = nextLf;
      if (nextCr !== -1 && nextCr < lineEnd) lineEnd = nextCr;
      if (lineEnd > pos) {
        const line = buf.subarray(pos, lineEnd);
        if (!isAscii(line)) {
          const isUtf8Line = isUtf8(line);
          if (isUtf8Line) this.sawUtf8 = true;
          if (isUtf8Line === isRun1252) {
            const run = decodeRun(buf.subarray(runStart, pos), isRun1252);
            parts.push(run);
            decoded += run.length;
            runStart = pos;
            isRun1252 = !isUtf8Line;
          }
          // A windows-1252 run decodes one character per byte, so the line starts at a known character.
          if (!isUtf8Line) this.note(this.written + decoded + (pos - runStart));
        }
      }
      pos = lineEnd + 1;
    }
    parts.push(decodeRun(buf.subarray(runStart, end), isRun1252));
    return parts.length === 1 ? parts[0]! : parts.join('');
  }

  private note(offset: number): void {
    this.notedCount++;
    if (this.noted.length < MAX_NOTED_LINES) this.noted.push(offset);
  }
}

/** Just past the last line break (CR or LF) of `buf`, or 0 when it has none. */
function lastLineEnd(buf: Buffer): number {
  const lf = buf.lastIndexOf(10);
  // The last CR, if any, after the last LF: a CRLF file has none there, so this scans only the line's tail.
  let cr = -1;
  for (let at = buf.indexOf(13, lf + 1); at !== -1; at = buf.indexOf(13, at + 1)) cr = at;
  return Math.max(lf, cr) + 1;
}

function decodeRun(bytes: Buffer, is1252: boolean): string {
  return is1252 ? decodeWindows1252(bytes) : bytes.toString('utf8');
}
