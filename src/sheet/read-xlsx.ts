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
 * The workarounds for exceljs and unzipper defects live in xlsx-stream-fixes.ts.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Transform, type TransformCallback } from 'node:stream';
import ExcelJS from 'exceljs';
import { InputError } from '../errors.js';
import { isBlankRow, type RowSource, type SourceOptions } from './row-source.js';
import { createDamagedWorkbookError, createFileSystemError } from './sniff.js';
import type { RawRow } from './types.js';
import { readRowCells, type StreamRow } from './xlsx-cells.js';
import { discardSource, FailureSignal, hookZipParser, patchWorkbookReader, type ChunkSource } from './xlsx-stream-fixes.js';

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

interface Target {
  name: string;
  /** N of xl/worksheets/sheetN.xml; null when the rels could not tell (then the first sheet is read). */
  sheetNo: string | null;
}

type SheetEvents = AsyncIterator<{ eventType: string; value: unknown }[]>;

export function openXlsxSource(file: string, options: SourceOptions & { sheet?: string }): RowSource {
  const hash = createHash('sha256');
  let bytes = 0;
  let digest: string | null = null;
  let sheetName: string | undefined;

  const input = createReadStream(file, { highWaterMark: 1024 * 1024 });
  const tap = new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      hash.update(chunk);
      bytes += chunk.length;
      callback(null, chunk);
    },
    flush(callback: TransformCallback) {
      digest = hash.digest('hex');
      callback();
    },
  });
  // exceljs waits on promises that a damaged zip never settles (an inflate error is emitted on the
  // zip parser, not on the entry exceljs is copying), so every wait below is guarded by the
  // parser's own 'error' event.
  const signal = new FailureSignal();
  input.on('error', (error) => signal.fail(createFileSystemError(file, error)));
  hookZipParser(tap, (error) => signal.fail(createDamagedWorkbookError(file, error)));
  input.pipe(tap);

  const reader = new ExcelJS.stream.xlsx.WorkbookReader(tap, {
    sharedStrings: 'cache',
    styles: 'cache', // date cells are told apart from numbers by their number format
    hyperlinks: 'ignore', // a hyperlink cell then reads as its text
    worksheets: 'emit',
    entries: 'emit',
  });
  const internals = reader as unknown as ReaderInternals;
  let current: { sheetNo: string; source: ChunkSource } | null = null;
  patchWorkbookReader(reader, (sheetNo, source) => {
    current = { sheetNo, source };
  });

  const close = (): void => {
    input.destroy();
    tap.destroy();
  };

  async function* readBatches(): AsyncGenerator<RawRow[], void, undefined> {
    let target: Target | null = null;
    let isFound = false;
    for await (const worksheet of signal.guard(reader)) {
      const emitted = current as { sheetNo: string; source: ChunkSource } | null;
      target ??= chooseTarget(file, internals, options.sheet, (worksheet as unknown as { name: string }).name);
      const isTarget = !isFound && (target.sheetNo === null || emitted?.sheetNo === target.sheetNo);
      if (!isTarget) {
        if (emitted) discardSource(emitted.source);
        continue;
      }
      isFound = true;
      sheetName = target.name;
      yield* readWorksheet(worksheet as unknown as { parse(): SheetEvents });
    }
    if (!target) throw new InputError(file, 'empty_file', `${file} has no worksheets: put the orders on a worksheet and save it again`);
    if (!isFound) throw createDamagedWorkbookError(file);
  }

  async function* readWorksheet(worksheet: { parse(): SheetEvents }): AsyncGenerator<RawRow[], void, undefined> {
    const date1904 = internals.properties?.model?.date1904 === true;
    let batch: RawRow[] = [];
    // The header rides in the first batch, so that one holds a row more: data batches stay full.
    let limit = options.batchSize + 1;
    for await (const events of signal.guard(worksheet.parse())) {
      for (let i = 0; i < events.length; i++) {
        const event = events[i]!;
        if (event.eventType !== 'row') continue;
        const row = event.value as StreamRow;
        const cells = readRowCells(row, date1904);
        if (isBlankRow(cells)) continue;
        batch.push({ rowNumber: row.number, cells });
        if (batch.length >= limit) {
          yield batch;
          batch = [];
          limit = options.batchSize;
        }
      }
    }
    if (batch.length > 0) yield batch;
  }

  async function* batches(): AsyncGenerator<RawRow[], void, undefined> {
    try {
      yield* readBatches();
    } catch (error) {
      if (error instanceof InputError) throw error;
      throw createDamagedWorkbookError(file, error);
    } finally {
      close();
    }
  }

  return {
    batches: batches(),
    sheetName: () => sheetName,
    bytesRead: () => bytes,
    sha256: () => digest,
    close,
  };
}

const WORKSHEET_TARGET = /(?:^|\/)worksheets\/sheet(\d+)\.xml$/i;

/** The named worksheet, or the first visible one in tab order (hidden and veryHidden skipped). */
export function chooseTarget(file: string, internals: ReaderInternals, wanted: string | undefined, firstEmittedName: string): Target {
  const rels = new Map((internals.workbookRels ?? []).map((rel) => [rel.Id, rel.Target]));
  const sheets: { name: string; isVisible: boolean; sheetNo: string }[] = [];
  for (const sheet of internals.model?.sheets ?? []) {
    const sheetNo = WORKSHEET_TARGET.exec(rels.get(sheet.rId) ?? '')?.[1];
    // Chart sheets and dialog sheets have no rows: not candidates.
    if (sheetNo !== undefined) sheets.push({ name: sheet.name, isVisible: sheet.state !== 'hidden' && sheet.state !== 'veryHidden', sheetNo });
  }
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
  // A result workbook of this tool (Results, Fix, Summary) is uploaded again for its Fix sheet:
  // the rows to correct, in template form. Reading Results would resend every row.
  const isResultWorkbook = RESULT_SHEETS.every((name) => sheets.some((s) => s.name === name));
  const fix = isResultWorkbook ? sheets.find((s) => s.name === 'Fix') : undefined;
  const chosen = fix ?? sheets.find((s) => s.isVisible) ?? sheets[0]!;
  return { name: chosen.name, sheetNo: chosen.sheetNo };
}

const RESULT_SHEETS = ['Results', 'Fix', 'Summary'];

function unknownSheet(file: string, wanted: string, names: string[]): InputError {
  const list = names.map((n) => `"${n}"`).join(', ');
  return new InputError(file, 'unreadable_file', `${file} has no worksheet named "${wanted}": use --sheet with one of ${list}`);
}
