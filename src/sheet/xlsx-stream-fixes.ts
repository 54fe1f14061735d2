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
 * 5. A row or cell without its `r` attribute (optional in ECMA-376), as SpreadsheetGear writes
 *    them, makes exceljs throw a TypeError; and every text node of a shared string goes into it,
 *    indentation and phonetic guides included (see xlsx-xml-fixes.ts).
 * 6. It finds parts by Excel's names only: renameEntries gives each entry the name of the part the
 *    package's relationships say it is (see xlsx-package.ts).
 *
 * 1, 2 and 5 patch private methods, so each is applied only when the method is there.
 */
import { Readable } from 'node:stream';
import type { InputError } from '../errors.js';
import { CellRefs, dropIndentation, fixSharedStringsXml, joinInlineStrings, openInlineStringAt, retypeErrorCells, wholeTags } from './xlsx-xml-fixes.js';

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
  _parseSharedStrings?: (entry: { setEncoding?: (encoding: BufferEncoding) => unknown } & object) => unknown;
  _parseWorksheet?: (iterator: ChunkSource, sheetNo: string) => unknown;
}

/**
 * `onWorksheet(sheetNo, source)` is told, just before exceljs creates each WorksheetReader, which
 * sheet file (xl/worksheets/sheet<sheetNo>.xml) it is and its raw chunk source (to destroy it
 * when the sheet is skipped). The counter it may return is told the unpacked bytes of each chunk as
 * exceljs takes it to parse: how far into the sheet the parse is, for progress (a sheet parked in a
 * temp file is parsed only after the whole file has been read).
 */
export function patchWorkbookReader(reader: object, onWorksheet: (sheetNo: string, source: ChunkSource) => ((bytes: number) => void) | void): void {
  const patchable = reader as PatchableReader;
  const parseSharedStrings = patchable._parseSharedStrings;
  if (typeof parseSharedStrings === 'function') {
    patchable._parseSharedStrings = function (this: unknown, entry) {
      entry.setEncoding?.('utf8');
      return parseSharedStrings.call(this, Readable.from(fixSharedStringsXml(entry as AsyncIterable<Buffer | string>)));
    };
  }
  const parseWorksheet = patchable._parseWorksheet;
  if (typeof parseWorksheet === 'function') {
    patchable._parseWorksheet = function (this: { model?: unknown }, iterator, sheetNo) {
      // A zip that stores xl/workbook.xml after its worksheets would make exceljs read
      // `this.model.sheets` of undefined; an empty model lets it go on (the sheet keeps its default name).
      this.model ??= { sheets: [] };
      const count = onWorksheet(String(sheetNo), iterator);
      return parseWorksheet.call(this, fixSheetXml(count ? countChunks(iterator, count) : iterator), sheetNo);
    };
  }
}

async function* countChunks(source: AsyncIterable<Buffer | string>, count: (bytes: number) => void): AsyncGenerator<Buffer | string, void, undefined> {
  for await (const chunk of source) {
    count(typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length);
    yield chunk;
  }
}

/** Decoded, with tags never split across chunks, error cells retyped as strings, inline strings joined, indentation dropped, and every row and cell with its reference. */
export async function* fixSheetXml(source: AsyncIterable<Buffer | string>): AsyncGenerator<string, void, undefined> {
  const refs = new CellRefs();
  const fix = (xml: string): string => retypeErrorCells(joinInlineStrings(dropIndentation(refs.fill(xml))));
  // An inline string is rewritten whole: one cut by the end of a piece waits for the next.
  let pending = '';
  for await (const text of wholeTags(source)) {
    let xml = pending + text;
    const open = openInlineStringAt(xml);
    pending = open === -1 ? '' : xml.slice(open);
    if (open !== -1) xml = xml.slice(0, open);
    if (xml.length > 0) yield fix(xml);
  }
  if (pending.length > 0) yield fix(pending);
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
 * Gives each entry the zip parser hands over the name `renameOf()` says (null: the names as they are), before
 * exceljs looks at it. unzipper pushes each entry object on its readable side; exceljs reads `entry.path`.
 */
export function renameEntries(parser: object, renameOf: () => ((entry: string) => string) | null): void {
  const pushing = parser as { push?: (chunk: unknown, encoding?: BufferEncoding) => boolean };
  if (typeof pushing.push !== 'function') return;
  const push = pushing.push.bind(parser);
  pushing.push = (chunk, encoding) => {
    const rename = renameOf();
    const entry = chunk as { path?: unknown } | null;
    if (rename && entry && typeof entry === 'object' && typeof entry.path === 'string') entry.path = rename(entry.path);
    return push(chunk, encoding);
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
