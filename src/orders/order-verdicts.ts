/**
 * What checking found for each order of a sheet, in bounded memory: a status byte, where its rows are (the first
 * row's index and how many follow: an order's rows are nearly always together), and, only for an order with
 * issues or with rows apart, a record of them. Records are kept as JSON text in memory up to a budget (16 MB by
 * default), then appended to an unlinked temporary file and read back when asked for. A valid order whose rows
 * are together costs 17 bytes and no record.
 */
import { Buffer } from 'node:buffer';
import { closeSync, readSync, writeSync } from 'node:fs';
import type { Issue } from '../issues/index.js';
import { openTemporaryFile } from './temporary-file.js';
import type { ValidationStatus } from './types.js';

export interface OrderVerdictsOptions {
  /** Bytes of records kept in memory before they go to disk (default 16 MB; tests lower it). */
  memoryBytes?: number;
  /** Folder of the temporary file (default the system's temporary folder). */
  dir?: string;
}

export const DEFAULT_VERDICT_MEMORY_BYTES = 16 * 1024 * 1024;
/** Bytes read from the file at a time: records are mostly asked for in order. */
const READ_BLOCK = 1024 * 1024;

const OPEN = 0;
const VALID = 1;
const INVALID = 2;

interface OrderRecord {
  issues: Issue[];
  /** Row numbers, when the order's rows are not one after the other. */
  rows?: number[];
}

export class OrderVerdicts {
  private statuses = new Uint8Array(1024);
  private firstRows = new Int32Array(1024);
  private rowCounts = new Int32Array(1024);
  /** Where each order's record starts in the record stream (-1: none), and its length in bytes. */
  private recordAt = new Float64Array(1024).fill(-1);
  private recordLength = new Int32Array(1024);
  private count = 0;
  /** Records not yet written to the file; `flushed` bytes of the stream are in the file. */
  private pending: Buffer[] = [];
  /** Where each pending record starts, from the first pending byte: found by bisection, not by walking them all. */
  private pendingStarts: number[] = [];
  private pendingBytes = 0;
  private flushed = 0;
  private fd = -1;
  private block: { at: number; bytes: Buffer } | null = null;
  private readonly memoryBytes: number;
  private readonly dir: string | undefined;

  constructor(options: OrderVerdictsOptions = {}) {
    this.memoryBytes = options.memoryBytes ?? DEFAULT_VERDICT_MEMORY_BYTES;
    this.dir = options.dir;
  }

  get size(): number {
    return this.count;
  }

  /** A new order, whose first row is at this row index. */
  begin(order: number, firstRow: number): void {
    if (order >= this.statuses.length) this.growTo(order + 1);
    this.count = Math.max(this.count, order + 1);
    this.firstRows[order] = firstRow;
  }

  /** The order's verdict; `rows` (row numbers) only when its rows are not one after the other. */
  finish(order: number, status: ValidationStatus, issues: Issue[], rowCount: number, rows: readonly number[] | null): void {
    this.statuses[order] = status === 'valid' ? VALID : INVALID;
    this.rowCounts[order] = rowCount;
    if (issues.length === 0 && rows === null) {
      this.recordAt[order] = -1;
      return;
    }
    const record: OrderRecord = rows === null ? { issues } : { issues, rows: [...rows] };
    const bytes = Buffer.from(JSON.stringify(record), 'utf8');
    this.recordAt[order] = this.flushed + this.pendingBytes;
    this.recordLength[order] = bytes.length;
    this.pending.push(bytes);
    this.pendingStarts.push(this.pendingBytes);
    this.pendingBytes += bytes.length;
    if (this.pendingBytes > this.memoryBytes) this.flush();
  }

  /** The order gets rows again after it was finished: its verdict is dropped until it is finished anew. */
  reopen(order: number): void {
    this.statuses[order] = OPEN;
    this.recordAt[order] = -1;
  }

  isFinished(order: number): boolean {
    return this.statuses[order] !== OPEN;
  }

  statusOf(order: number): ValidationStatus {
    return this.statuses[order] === VALID ? 'valid' : 'invalid';
  }

  firstRowOf(order: number): number {
    return this.firstRows[order]!;
  }

  rowCountOf(order: number): number {
    return this.rowCounts[order]!;
  }

  /** A fresh copy of the order's issues. */
  issuesOf(order: number): Issue[] {
    return this.recordOf(order)?.issues ?? [];
  }

  /** The order's row numbers, when they are not one after the other (null: `rowCountOf` rows from `firstRowOf`). */
  scatteredRowsOf(order: number): number[] | null {
    return this.recordOf(order)?.rows ?? null;
  }

  /** Bytes of records written to the temporary file so far. */
  get spilledBytes(): number {
    return this.flushed;
  }

  close(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
    this.pending = [];
    this.pendingStarts = [];
    this.block = null;
  }

  private recordOf(order: number): OrderRecord | null {
    const at = this.recordAt[order]!;
    if (at < 0) return null;
    return JSON.parse(this.readRecord(at, this.recordLength[order]!).toString('utf8')) as OrderRecord;
  }

  private readRecord(at: number, length: number): Buffer {
    if (at >= this.flushed) return this.fromPending(at - this.flushed, length);
    const block = this.block;
    if (block !== null && at >= block.at && at + length <= block.at + block.bytes.length) return block.bytes.subarray(at - block.at, at - block.at + length);
    const size = Math.min(Math.max(READ_BLOCK, length), this.flushed - at);
    const bytes = Buffer.allocUnsafe(size);
    let read = 0;
    while (read < size) {
      const n = readSync(this.fd, bytes, read, size - read, at + read);
      if (n === 0) throw new Error('the temporary file of the order verdicts ended early');
      read += n;
    }
    this.block = { at, bytes };
    return bytes.subarray(0, length);
  }

  /** A record kept in memory: tens of thousands may be pending, and the result asks for each in turn. */
  private fromPending(offset: number, length: number): Buffer {
    const starts = this.pendingStarts;
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >>> 1;
      if (starts[mid]! <= offset) low = mid;
      else high = mid - 1;
    }
    const part = this.pending[low];
    const at = starts[low]!;
    if (part === undefined || offset >= at + part.length) throw new Error('no such order record');
    return part.subarray(offset - at, offset - at + length);
  }

  private flush(): void {
    if (this.fd < 0) this.fd = openTemporaryFile(this.dir);
    const bytes = Buffer.concat(this.pending, this.pendingBytes);
    let written = 0;
    while (written < bytes.length) written += writeSync(this.fd, bytes, written, bytes.length - written, this.flushed + written);
    this.flushed += bytes.length;
    this.pending = [];
    this.pendingStarts = [];
    this.pendingBytes = 0;
  }

  private growTo(size: number): void {
    let length = this.statuses.length;
    while (length < size) length *= 2;
    const statuses = new Uint8Array(length);
    statuses.set(this.statuses);
    this.statuses = statuses;
    this.firstRows = copyInto(new Int32Array(length), this.firstRows);
    this.rowCounts = copyInto(new Int32Array(length), this.rowCounts);
    this.recordAt = copyInto(new Float64Array(length).fill(-1), this.recordAt);
    this.recordLength = copyInto(new Int32Array(length), this.recordLength);
  }
}

function copyInto<T extends Int32Array<ArrayBuffer> | Float64Array<ArrayBuffer>>(target: T, source: T): T {
  target.set(source as never);
  return target;
}
