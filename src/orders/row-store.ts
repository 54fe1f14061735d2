/**
 * The sheet's rows, kept for the result file and for rebuilding orders, in bounded memory whatever the
 * sheet's size. Each row is encoded into one string (cells joined by a separator, non-text cells tagged),
 * every 1,024 rows are joined into one buffer (a chunk), and chunks past a window of memory (64 MB by
 * default) are appended to a temporary file and read back when asked for: a ten-million-row sheet costs
 * 8 bytes a row in memory (its row number and where its shared cells are), the rest is on disk.
 *
 * A row that comes with its cells joined by commas (RawRow.line: a CSV row from the parse worker) is kept as
 * that text, and given back with it, so that the result CSV writes it as it is: neither joined nor split again.
 * A whole row of numbers and text without commas (a workbook's usual row) is given back with its line too, made
 * from its encoding in two replacements rather than decoded cell by cell; its typed cells only if asked for.
 * Any other row whose order-level cells all repeat the previous row's (the usual shape of an order's second and
 * later lines) keeps only its other cells and points at the row holding the rest. A row that cannot be
 * encoded (a cell holding the separator) is kept as it came, in memory (rare by construction).
 *
 * The temporary file is unlinked as soon as it is created, so nothing is left behind even by a killed
 * run; close() gives its disk space back at once.
 */
import { Buffer } from 'node:buffer';
import { closeSync, readSync, writeSync } from 'node:fs';
import type { CellValue } from '../sheet/types.js';
import { decodeRow, encodeRow, encodesAsLine, lineOfEncoded } from './row-encoding.js';
import { growBits, growRows, hasBit, setBit } from './row-bits.js';
import { openTemporaryFile } from './temporary-file.js';
import type { KeptRow, RowStore } from './types.js';

const BEYOND_LATIN1 = /[^\u0000-\u00ff]/;
/** What joins the cells of a row kept as its line (RawRow.line). */
const LINE_SEPARATOR = ',';

export interface RowStoreOptions {
  /** Columns whose cells usually repeat from row to row (order-level ones). */
  sharedColumns?: readonly number[];
  /** The sheet's column count (rows of another length are always kept whole). */
  width?: number;
  /** Bytes of chunks kept in memory before the oldest go to disk (default 64 MB; tests lower it). */
  memoryBytes?: number;
  /** Rows per chunk (default 1,024; tests lower it). */
  chunkRows?: number;
  /** Folder of the temporary file (default the system's temporary folder). */
  dir?: string;
}

export const DEFAULT_ROW_MEMORY_BYTES = 64 * 1024 * 1024;
const DEFAULT_CHUNK_ROWS = 1_024;
/** A chunk is sealed at this many characters whatever its rows: rows of thousands of cells come in small chunks. */
const CHUNK_CHARS = 1024 * 1024;
const MAX_SHARING_WIDTH = 1_024;
/** Chunks read back from disk kept in memory, most recent first: an order's rows are mostly near each other. */
const READ_CACHE_CHUNKS = 8;

/** A chunk: in memory (bytes), or on disk (at, length) once spilled. */
interface Chunk {
  /** Index of its first row. */
  first: number;
  bytes: Buffer | null;
  at: number;
  length: number;
  /** UTF-16 rather than Latin-1 (offsets count characters, so the encoding must have a fixed width). */
  isWide: boolean;
  /** Start of each row within the chunk, in characters, and the end of the last. */
  offsets: Int32Array;
}

export class CompactRowStore implements RowStore {
  private count = 0;
  private rowNumbers = new Int32Array(1024);
  /** The row holding each row's shared cells: itself, or an earlier row it repeats. */
  private sources = new Int32Array(1024);
  /** A bit for each row kept as its comma-joined line. */
  private lineRows = new Uint8Array(1024 / 8);
  /** A bit for each row kept whole, encoded, whose encoding turns into its line (lineOfEncoded). */
  private encodedLineRows = new Uint8Array(1024 / 8);
  /** Columns that are not shared, for rows that repeat their source's shared cells. */
  private readonly ownColumns: number[] | null;
  /** The sheet's column count (-1 when not given): a row kept as its line has this many cells. */
  readonly width: number;
  private readonly chunkRows: number;
  private readonly memoryBytes: number;
  private readonly dir: string | undefined;
  private lastFullWidth = -1;
  private readonly scratch: CellValue[] = [];
  private readonly chunks: Chunk[] = [];
  /** Encoded rows of the chunk being filled, and their characters. */
  private pending: string[] = [];
  private pendingChars = 0;
  /** The chunk last read from: rows are mostly read in order. */
  private lastChunk = 0;
  /** The index indexOf found last. */
  private lastFound = -1;
  /** Bytes of the chunks in memory, and the first chunk that may still be in memory. */
  private residentBytes = 0;
  private firstResident = 0;
  /** Rows kept as they came, by index. */
  private readonly unencoded = new Map<number, CellValue[]>();
  private file: { fd: number; size: number } | null = null;
  private readonly readCache: { index: number; bytes: Buffer }[] = [];

  get size(): number {
    return this.count;
  }

  /** Bytes written to the temporary file so far (0 while every row fits in memory). */
  get spilledBytes(): number {
    return this.file?.size ?? 0;
  }

  constructor(options: RowStoreOptions = {}) {
    const shared = new Set(options.sharedColumns ?? []);
    this.width = options.width ?? -1;
    // A sheet of thousands of columns (nearly all unknown) keeps its rows whole: a row that repeats another's
    // order cells saves little there, and the list of its own columns would be as long as the sheet is wide.
    const isSharing = shared.size > 0 && this.width > 0 && this.width <= MAX_SHARING_WIDTH;
    this.ownColumns = isSharing ? Array.from({ length: this.width }, (_, i) => i).filter((i) => !shared.has(i)) : null;
    this.chunkRows = Math.max(1, options.chunkRows ?? DEFAULT_CHUNK_ROWS);
    this.memoryBytes = options.memoryBytes ?? DEFAULT_ROW_MEMORY_BYTES;
    this.dir = options.dir;
  }

  /**
   * Keeps a row; returns its index. Rows must come in sheet order. `repeatsShared` says the
   * row's shared cells equal the previous row's (the caller compared them while checking); `line` is
   * the cells joined by commas, none holding one (RawRow.line), when the reader had it.
   */
  push(rowNumber: number, cells: CellValue[], repeatsShared = false, line?: string): number {
    const index = this.count++;
    if (index === this.rowNumbers.length) {
      this.rowNumbers = growRows(this.rowNumbers);
      this.sources = growRows(this.sources);
      this.lineRows = growBits(this.lineRows, this.rowNumbers.length);
      this.encodedLineRows = growBits(this.encodedLineRows, this.rowNumbers.length);
    }
    this.rowNumbers[index] = rowNumber;
    let encoded: string | null = null;
    const own = this.ownColumns;
    if (line !== undefined && cells.length === this.width) {
      // Kept whole as its line: the result CSV writes it as it is; rows after it may repeat its shared cells.
      encoded = line;
      this.sources[index] = index;
      this.lastFullWidth = cells.length;
      setBit(this.lineRows, index);
    } else if (repeatsShared && own !== null && index > 0 && cells.length === this.width && this.lastFullWidth === this.width) {
      const scratch = this.scratch;
      scratch.length = own.length;
      for (let k = 0; k < own.length; k++) scratch[k] = cells[own[k]!]!;
      encoded = encodeRow(scratch);
      if (encoded !== null) this.sources[index] = this.sources[index - 1]!;
    }
    if (encoded === null) {
      // Not repeating: kept whole.
      this.sources[index] = index;
      this.lastFullWidth = cells.length;
      encoded = encodeRow(cells);
      if (encoded !== null && cells.length === this.width && encodesAsLine(cells)) setBit(this.encodedLineRows, index);
    }
    if (encoded === null) {
      this.unencoded.set(index, cells);
      encoded = '';
    }
    this.pending.push(encoded);
    this.pendingChars += encoded.length;
    if (this.pending.length === this.chunkRows || this.pendingChars >= CHUNK_CHARS) this.sealPending();
    return index;
  }

  /** Index of a row by its spreadsheet row number, or -1. */
  indexOf(rowNumber: number): number {
    // Rows are mostly asked for in sheet order (the result file): the one after the last found, without a search.
    const next = this.lastFound + 1;
    if (next < this.count && this.rowNumbers[next] === rowNumber) return (this.lastFound = next);
    const found = this.searchRow(rowNumber);
    if (found >= 0) this.lastFound = found;
    return found;
  }

  private searchRow(rowNumber: number): number {
    let lo = 0;
    let hi = this.count - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const n = this.rowNumbers[mid]!;
      if (n === rowNumber) return mid;
      if (n < rowNumber) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /** Cells of the row at this index (empty cells come back as ''); a fresh array each time. */
  cellsAt(index: number): CellValue[] {
    if (index < 0 || index >= this.count) return [];
    const source = this.sources[index]!;
    if (source === index) return this.ownCells(index);
    return this.withSharedCells(this.ownCells(source), index);
  }

  /** Spreadsheet row number of the row at this index. */
  rowNumberAt(index: number): number {
    return this.rowNumbers[index]!;
  }

  /** Cells of a row by its spreadsheet row number ([] when unknown). */
  cellsOf(rowNumber: number): CellValue[] {
    return this.cellsAt(this.indexOf(rowNumber));
  }

  /** The rows in sheet order; fresh cells each. */
  *[Symbol.iterator](): Iterator<{ rowNumber: number; cells: CellValue[] }> {
    for (const row of this.asKept()) yield { rowNumber: row.rowNumber, cells: row.cells ?? row.typedCells?.() ?? row.line.split(LINE_SEPARATOR) };
  }

  /** The rows in sheet order as they are kept: a row kept as its line comes as that text alone (the result CSV writes it as it is). */
  *asKept(): Generator<KeptRow> {
    // Consecutive rows share a source: decode it once.
    let sourceIndex = -1;
    let sourceCells: CellValue[] = [];
    const texts = new ChunkTexts();
    const textOf = (index: number): string => texts.textOf(this, index);
    for (let i = 0; i < this.count; i++) {
      const source = this.sources[i]!;
      if (hasBit(this.lineRows, i)) {
        yield { rowNumber: this.rowNumbers[i]!, line: textOf(i), cells: null };
        continue;
      }
      if (hasBit(this.encodedLineRows, i)) {
        const text = textOf(i);
        yield { rowNumber: this.rowNumbers[i]!, line: lineOfEncoded(text), cells: null, typedCells: () => decodeRow(text) };
        continue;
      }
      let cells: CellValue[];
      if (source === i) {
        cells = this.ownCells(i, textOf);
      } else {
        if (source !== sourceIndex) {
          sourceIndex = source;
          sourceCells = this.ownCells(source, textOf);
        }
        cells = this.withSharedCells(sourceCells.slice(), i, textOf);
      }
      yield { rowNumber: this.rowNumbers[i]!, line: null, cells };
    }
  }

  /** Gives the temporary file's disk space back; the store is empty afterwards. */
  close(): void {
    if (this.file !== null) {
      closeSync(this.file.fd);
      this.file = null;
    }
    this.chunks.length = 0;
    this.pending = [];
    this.pendingChars = 0;
    this.lastChunk = 0;
    this.lineRows = new Uint8Array(0);
    this.encodedLineRows = new Uint8Array(0);
    this.readCache.length = 0;
    this.unencoded.clear();
    this.count = 0;
  }

  /** The cells a row stores itself: all of them, or only its own columns when it repeats another row. */
  private ownCells(index: number, textOf?: (index: number) => string): CellValue[] {
    const kept = this.unencoded.get(index);
    if (kept !== undefined) return kept.slice();
    const text = textOf === undefined ? this.ownText(index) : textOf(index);
    return hasBit(this.lineRows, index) ? text.split(LINE_SEPARATOR) : decodeRow(text);
  }

  /** The text a row is kept as (its line, or its encoded cells). */
  private ownText(index: number): string {
    const pending = this.pendingText(index);
    if (pending !== undefined) return pending;
    const chunkIndex = this.chunkOf(index);
    const chunk = this.chunks[chunkIndex]!;
    const inChunk = index - chunk.first;
    const bytes = chunk.bytes ?? this.readChunk(chunkIndex, chunk);
    const start = chunk.offsets[inChunk]!;
    const end = chunk.offsets[inChunk + 1]!;
    return chunk.isWide ? bytes.toString('utf16le', start * 2, end * 2) : bytes.toString('latin1', start, end);
  }

  /** The text of a row not yet in a chunk, else undefined. */
  pendingText(index: number): string | undefined {
    const pendingFirst = this.count - this.pending.length;
    return index >= pendingFirst ? this.pending[index - pendingFirst]! : undefined;
  }

  /** The sealed chunk holding a row, its bytes (read back if spilled) and where it starts. */
  chunkFor(index: number): { first: number; bytes: Buffer; isWide: boolean; offsets: Int32Array } {
    const chunkIndex = this.chunkOf(index);
    const chunk = this.chunks[chunkIndex]!;
    return { first: chunk.first, bytes: chunk.bytes ?? this.readChunk(chunkIndex, chunk), isWide: chunk.isWide, offsets: chunk.offsets };
  }

  /** A repeating row: its source's cells with its own columns put back. */
  private withSharedCells(sourceCells: CellValue[], index: number, textOf?: (index: number) => string): CellValue[] {
    const own = this.ownCells(index, textOf);
    const columns = this.ownColumns!;
    for (let k = 0; k < columns.length; k++) sourceCells[columns[k]!] = own[k] ?? null;
    return sourceCells;
  }

  /** The chunk holding a sealed row: the one last read from or the next, else a binary search. */
  private chunkOf(index: number): number {
    const chunks = this.chunks;
    const last = this.lastChunk;
    if (last < chunks.length && index >= chunks[last]!.first && (last + 1 === chunks.length || index < chunks[last + 1]!.first)) return last;
    const next = last + 1;
    if (next < chunks.length && index >= chunks[next]!.first && (next + 1 === chunks.length || index < chunks[next + 1]!.first)) return (this.lastChunk = next);
    let lo = 0;
    let hi = chunks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (chunks[mid]!.first <= index) lo = mid;
      else hi = mid - 1;
    }
    return (this.lastChunk = lo);
  }

  private sealPending(): void {
    const rows = this.pending;
    const offsets = new Int32Array(rows.length + 1);
    let total = 0;
    for (let k = 0; k < rows.length; k++) {
      offsets[k] = total;
      total += rows[k]!.length;
    }
    offsets[rows.length] = total;
    const text = rows.join('');
    const isWide = BEYOND_LATIN1.test(text);
    const bytes = Buffer.from(text, isWide ? 'utf16le' : 'latin1');
    this.chunks.push({ first: this.count - rows.length, bytes, at: -1, length: bytes.length, isWide, offsets });
    this.pending = [];
    this.pendingChars = 0;
    this.residentBytes += bytes.length;
    while (this.residentBytes > this.memoryBytes && this.firstResident < this.chunks.length) this.spill(this.chunks[this.firstResident++]!);
  }

  /** Moves a chunk's bytes to the temporary file. */
  private spill(chunk: Chunk): void {
    const bytes = chunk.bytes!;
    const file = (this.file ??= { fd: openTemporaryFile(this.dir), size: 0 });
    let written = 0;
    while (written < bytes.length) written += writeSync(file.fd, bytes, written, bytes.length - written, file.size + written);
    chunk.at = file.size;
    file.size += bytes.length;
    chunk.bytes = null;
    this.residentBytes -= bytes.length;
  }

  private readChunk(index: number, chunk: Chunk): Buffer {
    const cache = this.readCache;
    for (let k = 0; k < cache.length; k++) {
      if (cache[k]!.index !== index) continue;
      const hit = cache[k]!;
      if (k > 0) {
        cache.splice(k, 1);
        cache.unshift(hit);
      }
      return hit.bytes;
    }
    const bytes = Buffer.allocUnsafe(chunk.length);
    let read = 0;
    while (read < chunk.length) {
      const n = readSync(this.file!.fd, bytes, read, chunk.length - read, chunk.at + read);
      if (n === 0) throw new Error('the temporary file of the rows ended early');
      read += n;
    }
    cache.unshift({ index, bytes });
    if (cache.length > READ_CACHE_CHUNKS) cache.pop();
    return bytes;
  }
}

/**
 * Rows' texts read in sheet order: each chunk is decoded once, whole, and its rows are cut from that text,
 * rather than each row decoded from the bytes on its own.
 */
class ChunkTexts {
  private first = 0;
  private end = 0;
  private text = '';
  private offsets: Int32Array = new Int32Array(0);

  textOf(store: CompactRowStore, index: number): string {
    if (index < this.first || index >= this.end) {
      const pending = store.pendingText(index);
      if (pending !== undefined) return pending;
      const chunk = store.chunkFor(index);
      this.first = chunk.first;
      this.end = chunk.first + chunk.offsets.length - 1;
      this.offsets = chunk.offsets;
      this.text = chunk.bytes.toString(chunk.isWide ? 'utf16le' : 'latin1');
    }
    const at = index - this.first;
    return this.text.slice(this.offsets[at]!, this.offsets[at + 1]!);
  }
}
