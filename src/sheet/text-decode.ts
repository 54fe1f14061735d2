/**
 * Bytes of a text sheet to JS strings, chunk by chunk, as spreadsheet programs write them:
 * UTF-8 (with or without BOM), UTF-16 LE/BE ("Unicode text"), or windows-1252 (Excel's "CSV"
 * on Windows) when the bytes are not valid UTF-8.
 *
 * Decoding here, statefully, also avoids the split-character bug of decoding each chunk on its
 * own (papaparse PR #1133): a multi-byte character cut by a chunk boundary stays whole.
 */
import { isAscii } from 'node:buffer';
import { TextDecoder } from 'node:util';
import type { TextEncodingName } from './sniff.js';

export interface ChunkDecoder {
  decode(chunk: Buffer): string;
  /** Whatever is left at the end of the input (an incomplete character becomes U+FFFD). */
  end(): string;
  /** The encoding actually used so far: `windows-1252` once UTF-8 was ruled out. */
  readonly encoding: TextEncodingName | 'windows-1252';
}

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
 * Strict UTF-8 until a byte proves otherwise. If nothing but ASCII came before the bad byte,
 * the file is windows-1252 from the start (the ASCII already decoded reads the same in both);
 * if real UTF-8 came first, the file mixes encodings and the rest is read as lenient UTF-8.
 */
class Utf8Or1252Decoder implements ChunkDecoder {
  encoding: TextEncodingName | 'windows-1252' = 'utf-8';
  // ignoreBOM: a decoder first used mid-file must not eat a U+FEFF there; the file's BOM is dropped by decode().
  private strict: TextDecoder | null = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  private lenient: TextDecoder | null = null;
  private sawNonAscii = false;
  private previousTail: Uint8Array = new Uint8Array(0);
  private isFirst = true;

  decode(chunk: Buffer): string {
    const text = this.decodeChunk(chunk);
    if (!this.isFirst || text.length === 0) return text;
    this.isFirst = false;
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  }

  private decodeChunk(chunk: Buffer): string {
    if (this.encoding === 'windows-1252') return decodeWindows1252(chunk);
    if (this.lenient) return this.lenient.decode(chunk, { stream: true });
    if (this.previousTail.length === 0 && isAscii(chunk)) return chunk.toString('latin1');
    try {
      const text = this.strict!.decode(chunk, { stream: true });
      // Only a completed multi-byte character proves UTF-8; a pending lead byte proves nothing yet.
      if (!this.sawNonAscii) this.sawNonAscii = /[^\x00-\x7f]/.test(text);
      this.previousTail = chunk.subarray(chunk.length - countIncompleteUtf8Tail(chunk));
      return text;
    } catch {
      this.strict = null;
      const pending = Buffer.concat([this.previousTail, chunk]);
      if (!this.sawNonAscii && !(pending[0] === 0xef && pending[1] === 0xbb && pending[2] === 0xbf)) {
        this.encoding = 'windows-1252';
        return decodeWindows1252(pending);
      }
      this.lenient = new TextDecoder('utf-8', { ignoreBOM: true });
      return this.lenient.decode(pending, { stream: true });
    }
  }

  end(): string {
    if (this.lenient) return this.lenient.decode();
    if (!this.strict) return '';
    try {
      return this.strict.decode();
    } catch {
      // The file ended inside a "character": windows-1252 if nothing proved UTF-8 before.
      if (this.sawNonAscii) return '\ufffd';
      this.encoding = 'windows-1252';
      return decodeWindows1252(Buffer.from(this.previousTail));
    }
  }
}
