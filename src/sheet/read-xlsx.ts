/**
 * XLSX rows with exceljs's streaming WorkbookReader: one worksheet (the first visible one, or the
 * one named by --sheet), typed cells positioned by column letter, blank rows skipped.
 *
 * Sheet order and visibility come from xl/workbook.xml (`<sheet name state r:id>`), which exceljs
 * parses into `reader.model.sheets`. It is known when the first worksheet is handed out: Excel and
 * LibreOffice store workbook.xml before the worksheets, and exceljs parks worksheets in temp files
 * until shared strings and rels are read (exceljs's own writer stores workbook.xml last, after
 * them). Worksheets arrive in zip order, which need not be tab order, so each one is matched by
 * its file number (xl/worksheets/sheet<N>.xml) through xl/_rels/workbook.xml.rels.
 *
 * Without --sheet, the other visible worksheets are looked at as they stream past (their first two
 * non-blank rows): one that holds orders, which would otherwise go unread without a word, is reported
 * (unread_sheet), and a first worksheet without orders names the others.
 *
 * The workarounds for exceljs and unzipper defects live in xlsx-stream-fixes.ts.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Transform, type TransformCallback } from 'node:stream';
import ExcelJS from 'exceljs';
import { InputError } from '../errors.js';
import { listQuoted, type OtherSheet, type RowSource, type SourceOptions } from './row-source.js';
import { createDamagedWorkbookError, createFileSystemError, createReaderFaultError, isProgrammingError } from './sniff.js';
import { createSharedStringsTooLargeError, type SheetLimits } from './limits.js';
import type { RawRow, ReaderIssue, ResultSheetChoice } from './types.js';
import { progressBytes, type Emitted } from './xlsx-progress.js';
import { readPackageLayout, type PackageLayout } from './xlsx-package.js';
import { discardSource, FailureSignal, hookZipParser, patchWorkbookReader, renameEntries } from './xlsx-stream-fixes.js';
import { holdsOrders, readWorksheetRows, type StreamedWorksheet } from './xlsx-worksheet-rows.js';
import { countInflatedBytes, createInflatedTooMuchError, inflateBudget, judgeZipParts, readZipParts, XLSX_LIMITS, type XlsxLimits } from './xlsx-size-guard.js';

interface SheetEntry {
  name: string;
  state?: string;
  rId: string;
}

/** What exceljs's WorkbookReader keeps after reading workbook.xml and its rels (untyped in index.d.ts). */
interface ReaderInternals {
  model?: { sheets?: SheetEntry[] };
  workbookRels?: { Id: string; Target: string }[];
  properties?: { model?: { date1904?: boolean } };
}

interface ListedSheet {
  name: string;
  isVisible: boolean;
  /** N of xl/worksheets/sheetN.xml. */
  sheetNo: string;
}

interface Target {
  name: string;
  /** N of xl/worksheets/sheetN.xml; null when the rels could not tell (then the first sheet is read). */
  sheetNo: string | null;
  /** Chosen by the result-workbook rule rather than named or first visible. */
  isResultRule?: boolean;
}

export function openXlsxSource(file: string, options: SourceOptions & { sheet?: string; resultSheet?: ResultSheetChoice; zipLimits?: Partial<XlsxLimits> }): RowSource {
  const limits: XlsxLimits = { ...XLSX_LIMITS, ...options.zipLimits };
  const sheetLimits = options.limits;
  const hash = createHash('sha256');
  let bytes = 0;
  let digest: string | null = null;
  let sheetName: string | undefined;
  const notices: string[] = [];
  // The visible worksheets other than the one read, in tab order, and what a look at each found (by sheetNo).
  let others: ListedSheet[] = [];
  const hasOrders = new Map<string, boolean>();

  const input = createReadStream(file, { highWaterMark: 1024 * 1024 });
  const tap = createHashingTap(
    (chunk) => {
      hash.update(chunk);
      bytes += chunk.length;
    },
    () => {
      digest = hash.digest('hex');
    },
  );
  // exceljs waits on promises that a damaged zip never settles (an inflate error is emitted on the
  // zip parser, not on the entry exceljs is copying), so every wait below is guarded by the
  // parser's own 'error' event.
  const signal = new FailureSignal();
  input.on('error', (error) => signal.fail(createFileSystemError(file, error)));
  // Until the file's size is known (before any byte is inflated), the workbook cap alone.
  let budget = limits.maxUnpackedBytes;
  let fileBytes = 0;
  // Where the package's relationships put its parts, known before exceljs sees the first entry.
  let layout: PackageLayout | null = null;
  guardInflation(tap, file, signal, sheetLimits, { budget: () => budget, fileBytes: () => fileBytes, layout: () => layout }, () => close());

  const { reader, internals, current } = createWorkbookReader(tap);
  // The worksheet being read, and its unpacked size from the zip's listing (by sheet number), for progress.
  let reading: Emitted | null = null;
  const unpackedBytesOf = new Map<string, number>();

  const close = (): void => {
    input.destroy();
    tap.destroy();
  };

  /** The zip's own listing, judged before exceljs inflates anything. */
  async function checkSizes(): Promise<void> {
    const listing = await judgeListing(file, limits, sheetLimits);
    fileBytes = listing.fileBytes;
    budget = listing.budget;
    layout = listing.layout;
    for (const [sheetNo, unpacked] of listing.unpackedBytesOf) unpackedBytesOf.set(sheetNo, unpacked);
  }

  async function* readBatches(): AsyncGenerator<RawRow[], void, undefined> {
    await checkSizes();
    // Only now do bytes flow into the zip reader: a workbook its listing refuses is never inflated at all.
    input.pipe(tap);
    let target: Target | null = null;
    let isFound = false;
    // Other worksheets are looked at only when the first visible one was taken by default.
    let isLooking = false;
    for await (const worksheet of signal.guard(reader)) {
      const emitted = current();
      if (!target) {
        target = chooseTarget(file, internals, options.sheet, (worksheet as unknown as { name: string }).name, options.resultSheet, layout?.sheetNoByRelId);
        if (target.isResultRule && target.name === 'Fix') {
          notices.push(`${file} is a result workbook of order-batch: its "Fix" worksheet (only the rows to correct) was read, not "Results" (to read another, name its worksheet: --sheet, or the Worksheet field of the web app).`);
        }
        others = listSheets(internals, layout?.sheetNoByRelId).filter((s) => s.isVisible && s.sheetNo !== target!.sheetNo);
        isLooking = options.sheet === undefined && !target.isResultRule && target.sheetNo !== null;
      }
      const isTarget = !isFound && (target.sheetNo === null || emitted?.sheetNo === target.sheetNo);
      if (!isTarget) {
        if (!emitted) continue;
        const other = isLooking ? others.find((s) => s.sheetNo === emitted.sheetNo && !isTemplateExamples(s.name)) : undefined;
        if (other) hasOrders.set(other.sheetNo, await holdsOrders(worksheet as unknown as StreamedWorksheet, emitted.source, signal, isDate1904(internals)));
        else discardSource(emitted.source);
        continue;
      }
      isFound = true;
      sheetName = target.name;
      reading = emitted;
      const date1904 = isDate1904(internals);
      yield* readWorksheetRows(worksheet as unknown as StreamedWorksheet, { file, sheetName, signal, date1904, batchSize: options.batchSize, limits: sheetLimits });
    }
    if (!target) throw new InputError(file, 'empty_file', `${file} has no worksheets: put the orders on a worksheet and save it again`);
    if (!isFound) throw createDamagedWorkbookError(file);
  }

  async function* batches(): AsyncGenerator<RawRow[], void, undefined> {
    try {
      yield* readBatches();
    } catch (error) {
      if (error instanceof InputError) throw error;
      // A TypeError in the reader is a fault of the reader on this file, not a sign the file is damaged.
      throw isProgrammingError(error) ? createReaderFaultError(file, error) : createDamagedWorkbookError(file, error);
    } finally {
      close();
    }
  }

  return {
    batches: batches(),
    sheetName: () => sheetName,
    notices: () => notices,
    otherSheets: (): OtherSheet[] => others.map((s) => ({ name: s.name, hasOrders: hasOrders.get(s.sheetNo) ?? null })),
    issues: () => {
      const unread = others.filter((s) => hasOrders.get(s.sheetNo) === true).map((s) => s.name);
      return unread.length === 0 || sheetName === undefined ? [] : [createUnreadSheetIssue(sheetName, unread)];
    },
    bytesRead: () => progressBytes(bytes, fileBytes, reading, reading && unpackedBytesOf.get(reading.sheetNo)),
    sha256: () => digest,
    close,
  };
}

/** Passes the file's bytes on unchanged, each chunk seen first (hashed and counted). */
function createHashingTap(onChunk: (chunk: Buffer) => void, onEnd: () => void): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      onChunk(chunk);
      callback(null, chunk);
    },
    flush(callback: TransformCallback) {
      onEnd();
      callback();
    },
  });
}

/**
 * Hooks the zip parser exceljs reads `tap` with: a damaged zip fails the read, inflating more than the budget
 * (or more shared strings than their limit) fails it and stops the file, and entries get the package layout's names.
 */
function guardInflation(
  tap: Transform,
  file: string,
  signal: FailureSignal,
  sheetLimits: SheetLimits,
  state: { budget(): number; fileBytes(): number; layout(): PackageLayout | null },
  close: () => void,
): void {
  hookZipParser(
    tap,
    (error) => signal.fail(createDamagedWorkbookError(file, error)),
    (parser) => {
      countInflatedBytes(
        parser,
        () => state.budget(),
        (part) => {
          signal.fail(createInflatedTooMuchError(file, state.budget(), state.fileBytes(), part));
          close();
        },
        // exceljs keeps the shared strings in memory whole: their own ceiling, however the listing reads.
        // The part is told by the name renameEntries gives it, which the entry carries by the time it is counted.
        { part: SHARED_STRINGS, budget: sheetLimits.maxSharedStringsBytes, onOver: () => {
          signal.fail(createSharedStringsTooLargeError(file, null, sheetLimits.maxSharedStringsBytes));
          close();
        } },
      );
      renameEntries(parser, () => state.layout()?.renameOf ?? null);
    },
  );
}

/** exceljs's streaming reader over `tap`, and the worksheet it handed out last (its sheet number and bytes parsed). */
function createWorkbookReader(tap: Transform): { reader: ExcelJS.stream.xlsx.WorkbookReader; internals: ReaderInternals; current(): Emitted | null } {
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(tap, {
    sharedStrings: 'cache',
    styles: 'cache', // date cells are told apart from numbers by their number format
    hyperlinks: 'ignore', // a hyperlink cell then reads as its text
    worksheets: 'emit',
    entries: 'emit',
  });
  let current: Emitted | null = null;
  patchWorkbookReader(reader, (sheetNo, source) => {
    const emitted: Emitted = { sheetNo, source, parsedBytes: 0 };
    current = emitted;
    return (n) => {
      emitted.parsedBytes += n;
    };
  });
  return { reader, internals: reader as unknown as ReaderInternals, current: () => current };
}

/** The zip's listing judged against the limits (throws the refusal), and what the read needs from it. */
async function judgeListing(file: string, limits: XlsxLimits, sheetLimits: SheetLimits): Promise<{ fileBytes: number; budget: number; layout: PackageLayout | null; unpackedBytesOf: Map<string, number> }> {
  let listed: Awaited<ReturnType<typeof readZipParts>>;
  try {
    listed = await readZipParts(file);
  } catch (error) {
    throw createFileSystemError(file, error);
  }
  const refusal = listed.parts && judgeZipParts(file, listed.parts, limits);
  if (refusal) throw refusal;
  // Without a layout exceljs reads the entries by Excel's names, as a damaged package leaves it to.
  const layout = listed.parts ? await readPackageLayout(file, listed.parts).catch(() => null) : null;
  const unpackedBytesOf = new Map<string, number>();
  for (const part of listed.parts ?? []) {
    const sheetNo = WORKSHEET_TARGET.exec(layout?.renameOf(part.name) ?? part.name)?.[1];
    if (sheetNo !== undefined) unpackedBytesOf.set(sheetNo, part.unpackedBytes);
  }
  const strings = listed.parts?.find((p) => (layout?.renameOf(p.name) ?? p.name).toLowerCase() === SHARED_STRINGS);
  if (strings && strings.unpackedBytes > sheetLimits.maxSharedStringsBytes) throw createSharedStringsTooLargeError(file, strings.unpackedBytes, sheetLimits.maxSharedStringsBytes);
  return { fileBytes: listed.fileBytes, budget: inflateBudget(listed.fileBytes, limits), layout, unpackedBytesOf };
}

function isDate1904(internals: ReaderInternals): boolean {
  return internals.properties?.model?.date1904 === true;
}

/** The shared-strings part, as the zip names it (lower case for the comparison). */
const SHARED_STRINGS = 'xl/sharedstrings.xml';

const WORKSHEET_TARGET = /(?:^|\/)worksheets\/sheet(\d+)\.xml$/i;

/**
 * The named worksheet, or the first visible one in tab order (hidden and veryHidden skipped), except in a
 * result workbook of this tool, where `resultSheet` (default Fix) is read.
 */
export function chooseTarget(
  file: string,
  internals: ReaderInternals,
  wanted: string | undefined,
  firstEmittedName: string,
  resultSheet: ResultSheetChoice = 'Fix',
  sheetNoByRelId?: ReadonlyMap<string, string>,
): Target {
  const sheets = listSheets(internals, sheetNoByRelId);
  if (sheets.length === 0) {
    if (wanted !== undefined && wanted !== firstEmittedName) throw unknownSheet(file, wanted, [firstEmittedName]);
    return { name: firstEmittedName, sheetNo: null };
  }
  if (wanted !== undefined) {
    const exact = sheets.find((s) => s.name === wanted);
    const loose = sheets.filter((s) => s.name.trim().toLowerCase() === wanted.trim().toLowerCase());
    const match = exact ?? (loose.length === 1 ? loose[0] : undefined);
    if (!match) throw unknownSheet(file, wanted, sheets.map((s) => s.name));
    return { name: match.name, sheetNo: match.sheetNo };
  }
  // A result workbook of this tool (Results, Fix, Summary) is uploaded again to validate or import for
  // its Fix sheet: the rows to correct, in template form (reading Results would resend every row). Its
  // Results sheet is what reconcile --orders wants: every order with the status import gave it.
  const isResultWorkbook = RESULT_SHEETS.every((name) => sheets.some((s) => s.name === name));
  const preferred = isResultWorkbook ? sheets.find((s) => s.name === resultSheet) : undefined;
  if (preferred) return { name: preferred.name, sheetNo: preferred.sheetNo, isResultRule: true };
  const chosen = sheets.find((s) => s.isVisible) ?? sheets[0]!;
  return { name: chosen.name, sheetNo: chosen.sheetNo };
}

const RESULT_SHEETS = ['Results', 'Fix', 'Summary'];

/**
 * The workbook's worksheets in tab order, from xl/workbook.xml and its rels (empty when they could not tell).
 * `sheetNoByRelId`: the sheet numbers the package layout gave the worksheets (xlsx-package.ts), when it was read.
 */
function listSheets(internals: ReaderInternals, sheetNoByRelId?: ReadonlyMap<string, string>): ListedSheet[] {
  const rels = new Map((internals.workbookRels ?? []).map((rel) => [rel.Id, rel.Target]));
  const sheets: ListedSheet[] = [];
  for (const sheet of internals.model?.sheets ?? []) {
    const sheetNo = sheetNoByRelId ? sheetNoByRelId.get(sheet.rId) : WORKSHEET_TARGET.exec(rels.get(sheet.rId) ?? '')?.[1];
    // Chart sheets and dialog sheets have no rows: not candidates.
    if (sheetNo !== undefined) sheets.push({ name: sheet.name, isVisible: sheet.state !== 'hidden' && sheet.state !== 'veryHidden', sheetNo });
  }
  return sheets;
}

/** The template's Examples sheet has the order columns and two made-up orders, and is never read (see write-template.ts). */
function isTemplateExamples(name: string): boolean {
  return name === 'Examples';
}

/** Orders on worksheets that were not read: never sent, so said loudly, with how to read them. */
function createUnreadSheetIssue(read: string, unread: readonly string[]): ReaderIssue {
  const list = listQuoted(unread);
  const how = unread.length === 1
    ? `run again with --sheet "${unread[0]}"`
    : `run again once for each, with --sheet ${unread.map((n) => `"${n}"`).join(', then --sheet ')}`;
  return {
    row: null,
    column: null,
    code: 'unread_sheet',
    severity: 'warning',
    message: `Only worksheet "${read}" was read: worksheet${unread.length === 1 ? '' : 's'} ${list} also ${unread.length === 1 ? 'has' : 'have'} order columns and rows, which were NOT read: their orders are neither checked nor sent. To check or import ${unread.length === 1 ? 'them' : 'those'}, ${how} (in the web app, the Worksheet field), or move them onto "${read}"`,
  };
}

function unknownSheet(file: string, wanted: string, names: string[]): InputError {
  const list = names.map((n) => `"${n}"`).join(', ');
  return new InputError(file, 'unreadable_file', `${file} has no worksheet named "${wanted}": use --sheet with one of ${list}`);
}
