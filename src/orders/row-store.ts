/**
 * The sheet's rows, kept for the result file. A million rows of 30 cells are 30 million small
 * strings if kept as they come; that is gigabytes and endless garbage collection. Instead each
 * row is encoded into one string (cells joined by a separator, non-text cells tagged), and every
 * 1,024 rows are joined and kept as one buffer, outside the JS heap: a million-row sheet is then
 * a thousand buffers that the garbage collector never has to walk or copy.
 * A row whose order-level cells all repeat the previous row's (the usual shape of an order's
 * second and later lines) keeps only its other cells and points at the row holding the rest.
 * A row that cannot be encoded (a cell holding the separator) is kept as it came.
 * When the CSV reader prepared the rows' result-CSV text (sheet/csv-cell-text.ts), a plain row is read back
 * from that text instead of being kept a second time: only the rare odd rows are encoded here.
 */
import { Buffer } from 'node:buffer';
import type { CsvCellText } from '../sheet/csv-cell-text.js';
import type { CellValue } from '../sheet/types.js';
import type { RowStore } from './types.js';

/** ASCII "unit separator": made for this, and practically never inside a spreadsheet cell. */
const SEPARATOR = '\u001f';
/** Tags for cells that are not text; a text cell starting with one of these is not encoded. */
const NUMBER_TAG = '\u0001';
const BOOLEAN_TAG = '\u0002';
const DATE_TAG = '\u0003';
const LAST_TAG_CODE = 3;
const CHUNK_ROWS = 1_024;
const BEYOND_LATIN1 = /[^\u0000-\u00ff]/;

export class CompactRowStore implements RowStore {
  private count = 0;
  private rowNumbers = new Int32Array(CHUNK_ROWS);
  /** Start of each row within its chunk. */
  private offsets = new Int32Array(CHUNK_ROWS);
  /** The row holding each row's shared cells: itself, or an earlier row it repeats. */
  private sources = new Int32Array(CHUNK_ROWS);
  /** Columns that are not shared, for rows that repeat their source's shared cells. */
  private readonly ownColumns: number[] | null;
  private lastFullWidth = -1;
  private readonly scratch: CellValue[] = [];
  private readonly chunks: Chunk[] = [];
  /** Encoded rows of the chunk being filled. */
  private pending: string[] = [];
  private pendingLength = 0;
  /** Rows kept as they came, by index. */
  private readonly unencoded = new Map<number, CellValue[]>();
  /** Every row's input cells as the result CSV writes them, when the CSV reader prepared them. */
  readonly cellText: CsvCellText | undefined;

  get size(): number {
    return this.count;
  }

  /**
   * @param sharedColumns columns whose cells usually repeat from row to row (order-level ones);
   * @param width the sheet's column count (rows of another length are always kept whole);
   * @param cellText the rows' prepared text, covering every row pushed here, index for index.
   */
  constructor(sharedColumns: readonly number[] = [], private readonly width = -1, cellText?: CsvCellText) {
    this.cellText = cellText;
    const shared = new Set(sharedColumns);
    this.ownColumns = shared.size > 0 && width > 0 ? Array.from({ length: width }, (_, i) => i).filter((i) => !shared.has(i)) : null;
  }

  /**
   * Keeps a row; returns its index. Rows must come in sheet order. `repeatsShared` says the
   * row's shared cells equal the previous row's (the caller compared them while checking).
   */
  push(rowNumber: number, cells: CellValue[], repeatsShared = false): number {
    const index = this.count++;
    if (index === this.rowNumbers.length) {
      this.rowNumbers = grow(this.rowNumbers);
      this.offsets = grow(this.offsets);
      this.sources = grow(this.sources);
    }
    this.rowNumbers[index] = rowNumber;
    this.offsets[index] = this.pendingLength;
    let encoded: string | null = null;
    const own = this.ownColumns;
    if (this.cellText !== undefined && this.cellText.isPlain(index)) {
      // Read back from the cell text; it is full width, so rows after it may repeat its shared cells.
      this.sources[index] = index;
      this.lastFullWidth = cells.length;
      encoded = '';
    } else if (repeatsShared && own !== null && index > 0 && cells.length === this.width && this.lastFullWidth === this.width) {
      const scratch = this.scratch;
      scratch.length = own.length;
      for (let k = 0; k < own.length; k++) scratch[k] = cells[own[k]!]!;
      encoded = encodeRow(scratch);
      if (encoded !== null) this.sources[index] = this.sources[index - 1]!;
    }
    if (encoded === null) {
      // Not plain and not repeating: kept whole.
      this.sources[index] = index;
      this.lastFullWidth = cells.length;
      encoded = encodeRow(cells);
    }
    if (encoded === null) {
      this.unencoded.set(index, cells);
      encoded = '';
    }
    this.pending.push(encoded);
    this.pendingLength += encoded.length;
    if (this.pending.length === CHUNK_ROWS) {
      this.chunks.push(toChunk(this.pending.join('')));
      this.pending = [];
      this.pendingLength = 0;
    }
    return index;
  }

  /** Index of a row by its spreadsheet row number, or -1. */
  indexOf(rowNumber: number): number {
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

  /** The cells a row stores itself: all of them, or only its own columns when it repeats another row. */
  private ownCells(index: number): CellValue[] {
    if (this.cellText !== undefined && this.cellText.isPlain(index)) return this.cellText.plainCellsAt(index);
    const kept = this.unencoded.get(index);
    if (kept !== undefined) return kept.slice();
    const chunk = Math.floor(index / CHUNK_ROWS);
    const inChunk = index - chunk * CHUNK_ROWS;
    const text = chunk < this.chunks.length ? this.sliceChunk(chunk, index, inChunk) : this.pending[inChunk]!;
    return decodeRow(text);
  }

  /** A repeating row: its source's cells with its own columns put back. */
  private withSharedCells(sourceCells: CellValue[], index: number): CellValue[] {
    const own = this.ownCells(index);
    const columns = this.ownColumns!;
    for (let k = 0; k < columns.length; k++) sourceCells[columns[k]!] = own[k] ?? null;
    return sourceCells;
  }

  /** Spreadsheet row number of the row at this index. */
  rowNumberAt(index: number): number {
    return this.rowNumbers[index]!;
  }

  /** Cells of a row by its spreadsheet row number ([] when unknown). */
  cellsOf(rowNumber: number): CellValue[] {
    return this.cellsAt(this.indexOf(rowNumber));
  }

  *[Symbol.iterator](): Iterator<{ rowNumber: number; cells: CellValue[] }> {
    // Consecutive rows share a source: decode it once.
    let sourceIndex = -1;
    let sourceCells: CellValue[] = [];
    for (let i = 0; i < this.count; i++) {
      const source = this.sources[i]!;
      let cells: CellValue[];
      if (source === i) {
        cells = this.ownCells(i);
      } else {
        if (source !== sourceIndex) {
          sourceIndex = source;
          sourceCells = this.ownCells(source);
        }
        cells = this.withSharedCells(sourceCells.slice(), i);
      }
      yield { rowNumber: this.rowNumbers[i]!, cells };
    }
  }

  private sliceChunk(chunk: number, index: number, inChunk: number): string {
    const { bytes, isWide } = this.chunks[chunk]!;
    const scale = isWide ? 2 : 1;
    const start = this.offsets[index]! * scale;
    const end = inChunk === CHUNK_ROWS - 1 ? bytes.length : this.offsets[index + 1]! * scale;
    return bytes.toString(isWide ? 'utf16le' : 'latin1', start, end);
  }
}

/** One string for a row, or null when a text cell holds the separator or starts with a tag. */
export function encodeRow(cells: readonly CellValue[]): string | null {
  if (cells.length === 0) return null;
  let isAllText = true;
  for (let i = 0; i < cells.length; i++) {
    const cell = cells[i];
    if (typeof cell === 'string') {
      if (cell.length !== 0 && (cell.charCodeAt(0) <= LAST_TAG_CODE || cell.includes(SEPARATOR))) return null;
    } else if (cell !== null && cell !== undefined) {
      isAllText = false;
    }
  }
  if (isAllText) return cells.join(SEPARATOR);
  let encoded = '';
  for (let i = 0; i < cells.length; i++) {
    if (i > 0) encoded += SEPARATOR;
    encoded += encodeCell(cells[i] ?? null);
  }
  return encoded;
}

function encodeCell(cell: CellValue): string {
  if (cell === null) return '';
  if (typeof cell === 'string') return cell;
  if (typeof cell === 'number') return NUMBER_TAG + String(cell);
  if (typeof cell === 'boolean') return BOOLEAN_TAG + (cell ? '1' : '0');
  return DATE_TAG + String(cell.getTime());
}

export function decodeRow(text: string): CellValue[] {
  const cells: CellValue[] = text.split(SEPARATOR);
  for (let i = 0; i < cells.length; i++) {
    const cell = cells[i] as string;
    if (cell.length === 0 || cell.charCodeAt(0) > LAST_TAG_CODE) continue;
    const body = cell.slice(1);
    const tag = cell[0];
    cells[i] = tag === NUMBER_TAG ? Number(body) : tag === BOOLEAN_TAG ? body === '1' : new Date(Number(body));
  }
  return cells;
}

/** Joined rows as bytes: one per character when every character fits (Latin-1), else UTF-16. */
interface Chunk {
  bytes: Buffer;
  isWide: boolean;
}

function toChunk(text: string): Chunk {
  // Offsets count characters, so the encoding must have a fixed width.
  const isWide = BEYOND_LATIN1.test(text);
  return { bytes: Buffer.from(text, isWide ? 'utf16le' : 'latin1'), isWide };
}

function grow(array: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
  const grown = new Int32Array(array.length * 2);
  grown.set(array);
  return grown;
}
