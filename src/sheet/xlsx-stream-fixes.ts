/**
 * Defects of exceljs 4.4's streaming reader (and of the unzipper 0.10 it uses), fixed from the
 * outside on one reader instance. Each is covered by a test in test/sheet that fails without it.
 *
 * 1. It decodes every zip chunk on its own (parse-sax.js: TextDecoder without `stream: true`), so
 *    a multi-byte character cut by a chunk boundary becomes two U+FFFD (exceljs issues #2063,
 *    #2084, #2316; PR #1665 never merged). Handing it strings decoded statefully avoids that:
 *    its bufferToString passes strings through.
 * 2. A formula whose cached result is an error (`<c t="e"><f>..</f><v>#N/A</v></c>`) comes out
 *    without its error text. Rewriting `t="e"` to `t="str"` on the way in makes it the string
 *    "#N/A", for formula cells and plain error cells alike.
 * 3. A worksheet parked in a temp file and not read crashes the process with ENOENT (see
 *    discardSource).
 * 4. A damaged zip leaves exceljs waiting forever, and unzipper's early 'end' can drop the last
 *    entries (see FailureSignal and suppressEarlyEnd).
 *
 * 1 and 2 patch private methods, so each is applied only when the method is there.
 */
import { TextDecoder } from 'node:util';
import type { InputError } from '../errors.js';

export type ChunkSource = AsyncIterable<Buffer | string> & { destroy?: () => void; on?: (event: 'error', listener: (error: unknown) => void) => unknown };

/**
 * Lets go of a worksheet that is not read. A sheet parked in a temp file comes as a file stream
 * that exceljs deletes the file of right away, so its pending open can fail with ENOENT: that
 * error must have a listener or it would crash the process.
 */
export function discardSource(source: ChunkSource): void {
  source.on?.('error', () => {});
  source.destroy?.();
}

interface PatchableReader {
  _parseSharedStrings?: (entry: { setEncoding?: (encoding: BufferEncoding) => unknown }) => unknown;
  _parseWorksheet?: (iterator: ChunkSource, sheetNo: string) => unknown;
}

/**
 * `onWorksheet(sheetNo, source)` is told, just before exceljs creates each WorksheetReader, which
 * sheet file (xl/worksheets/sheet<sheetNo>.xml) it is and its raw chunk source (to destroy it
 * when the sheet is skipped).
 */
export function patchWorkbookReader(reader: object, onWorksheet: (sheetNo: string, source: ChunkSource) => void): void {
  const patchable = reader as PatchableReader;
  const parseSharedStrings = patchable._parseSharedStrings;
  if (typeof parseSharedStrings === 'function') {
    patchable._parseSharedStrings = function (this: unknown, entry) {
      entry.setEncoding?.('utf8');
      return parseSharedStrings.call(this, entry);
    };
  }
  const parseWorksheet = patchable._parseWorksheet;
  if (typeof parseWorksheet === 'function') {
    patchable._parseWorksheet = function (this: { model?: unknown }, iterator, sheetNo) {
      // A zip that stores xl/workbook.xml after its worksheets would make exceljs read
      // `this.model.sheets` of undefined; an empty model lets it go on (the sheet keeps its default name).
      this.model ??= { sheets: [] };
      onWorksheet(String(sheetNo), iterator);
      return parseWorksheet.call(this, fixSheetXml(iterator), sheetNo);
    };
  }
}

const ERROR_TYPE = /(<c\s[^>]*?\bt=)(?:"e"|'e')/g;

/** Decoded, with tags never split across chunks, and error cells retyped as strings. */
export async function* fixSheetXml(source: AsyncIterable<Buffer | string>): AsyncGenerator<string, void, undefined> {
  const decoder = new TextDecoder('utf-8');
  let carry = '';
  for await (const chunk of source) {
    let text = carry + (typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
    const open = text.lastIndexOf('<');
    if (open > text.lastIndexOf('>')) {
      carry = text.slice(open);
      text = text.slice(0, open);
    } else {
      carry = '';
    }
    if (text.length > 0) yield retypeErrorCells(text);
  }
  const rest = carry + decoder.decode();
  if (rest.length > 0) yield retypeErrorCells(rest);
}

export function retypeErrorCells(xml: string): string {
  if (!xml.includes('t="e"') && !xml.includes("t='e'")) return xml;
  return xml.replace(ERROR_TYPE, '$1"str"');
}

/**
 * Rejects the wait in progress when the zip parser fails. Not Promise.race against one pending
 * promise: every race adds a reaction to it that is never released, keeping each step's rows
 * alive (nodejs/node#17469), which for a 100k-row sheet meant a gigabyte.
 */
export class FailureSignal {
  private failure: InputError | null = null;
  private readonly waiters = new Set<(error: InputError) => void>();

  fail(error: InputError): void {
    this.failure ??= error;
    for (const reject of this.waiters) reject(this.failure);
    this.waiters.clear();
  }

  /** Each step of `source`, unless the parser fails first. */
  async *guard<T>(source: AsyncIterable<T> | AsyncIterator<T>): AsyncGenerator<T, void, undefined> {
    const iterator = Symbol.asyncIterator in source ? source[Symbol.asyncIterator]() : source;
    for (;;) {
      if (this.failure) throw this.failure;
      let reject: (error: InputError) => void = () => {};
      const step = await new Promise<IteratorResult<T>>((resolveStep, rejectStep) => {
        reject = rejectStep;
        this.waiters.add(rejectStep);
        iterator.next().then(resolveStep, rejectStep);
      }).finally(() => this.waiters.delete(reject));
      if (step.done) return;
      yield step.value;
    }
  }
}

interface ZipParser {
  readonly readableEnded: boolean;
  emit(event: string | symbol, ...args: unknown[]): boolean;
}

/**
 * unzipper 0.10's Parse emits 'end' by hand as soon as its writable side finishes, while entries
 * it has already parsed may still wait in its readable buffer; exceljs then stops iterating and
 * never sees them (a workbook.xml stored last went missing in ~5% of reads of a small file:
 * "Cannot read properties of undefined (reading 'sheets')"). node-unzipper PR #346. The genuine
 * 'end' is the one Node emits once the readable side has really ended; only that one passes.
 */
function suppressEarlyEnd(parser: ZipParser): void {
  const emit = parser.emit.bind(parser);
  parser.emit = (event: string | symbol, ...args: unknown[]): boolean => {
    if (event === 'end' && !parser.readableEnded) return false;
    return emit(event, ...args);
  };
}

/**
 * exceljs pipes its input into the zip parser it creates and keeps no reference we can reach, so
 * the parser is caught as the destination of `input.pipe`: its errors are reported, its
 * premature 'end' suppressed, and it is handed to `onParser` (which counts what it inflates).
 */
export function hookZipParser(input: NodeJS.ReadableStream, onError: (error: unknown) => void, onParser?: (parser: object) => void): void {
  const pipe = input.pipe.bind(input);
  input.pipe = <T extends NodeJS.WritableStream>(destination: T, options?: { end?: boolean }): T => {
    (destination as unknown as NodeJS.EventEmitter).on('error', onError);
    suppressEarlyEnd(destination as unknown as ZipParser);
    onParser?.(destination);
    return pipe(destination, options);
  };
}
