/**
 * The run report of PRODUCT.md section 4: what validate, import and reconcile found, as --json prints
 * it (text.ts words it for a person). The web app keeps it per job.
 */
import { IterableItems } from '../iterable-items.js';
import { issueToJson, type Issue } from '../issues/index.js';
import type { FileMapping } from '../mapping/choose.js';

export interface JsonInput {
  file: string;
  sha256: string | null;
  rows: number;
  orders: number;
  /** Present when the file could not be used at all (unreadable, unsupported, empty, missing column). */
  error?: { code: string; message: string };
  /** File-level warnings and errors (unknown_column, missing_column). */
  issues?: ReturnType<typeof issueToJson>[];
  /** How the file was read, when a user should know (a result workbook read on its Fix sheet, its decimal mark). */
  notices?: string[];
  /** The mapping profile the file was read with (detected from its headers, or named with --mapping). */
  mapping?: FileMapping;
}

export interface JsonOrder {
  customerOrderId: string | null;
  file?: string;
  rows: number[];
  status: string;
  httpStatus?: number;
  requestId?: string;
  submittedAt?: string;
  issues: ReturnType<typeof issueToJson>[];
}

/** A file the run could not write: a result file, or a sheet it could not move into the archive. */
export interface JsonOutputError {
  /** The input sheet it belongs to. */
  file: string;
  /** The file that could not be written or moved. */
  path: string;
  /** The system error code (EACCES, ENOSPC...), or null when the cause was not the file system. */
  code: string | null;
  message: string;
}

/** import --archive: where a sheet (and its result, unless that one could not be moved) went. */
export interface JsonArchived {
  /** The input sheet, as it was named. */
  file: string;
  /** Where the sheet is now. */
  sheet: string;
  /** Where its result file is now (also in `output`). */
  result?: string;
}

/** import --archive: a sheet left where it was, with its result, because it holds orders someone must still act on. */
export interface JsonKept {
  /** The input sheet, where it still is. */
  file: string;
  /** Its result file (its Fix sheet holds the orders to correct). */
  result: string;
  /** Why it stays, and what to do. */
  reason: string;
}

/** A file of a folder given as input that is not an order sheet, and why (a note, Excel's lock file, a result file). */
export interface JsonSkipped {
  file: string;
  reason: string;
}

export interface JsonReport<Orders extends ReportOrders = ReportOrders> {
  command: 'validate' | 'import' | 'reconcile';
  input: JsonInput[];
  summary: Record<string, number>;
  /**
   * import: orders reported already_submitted whose sheet contents differ from the version sent
   * (by an earlier run, or by this run from another file): the change was not applied. Present when
   * there are any (exit code 1).
   */
  contentsDiffer?: number;
  orders: Orders;
  /** The result files written, where they are now (in the archive after --archive); a file that could not be written is in outputErrors instead. */
  output: string | string[] | null;
  /** import --archive: the sheets moved into the archive, and where. */
  archived?: JsonArchived[];
  /** import --archive: the sheets left in place, and why. */
  kept?: JsonKept[];
  /** validate, import: the files of the folders given that were passed over as no order sheets. */
  skipped?: JsonSkipped[];
  /** Present only when some file could not be written (exit code 2); the orders' outcomes stand all the same. */
  outputErrors?: JsonOutputError[];
  /**
   * import: present when the ledger could not be used (a full disk, a damaged file; exit code 2): nothing
   * was sent after it failed, and the orders' outcomes say what was settled before.
   */
  ledgerError?: { ledger: string; message: string };
}

/**
 * The orders of a report: an array, or a list that builds each order when it is read (validate: a sheet of
 * three million orders is never held as objects). Either is printed order by order (writeJsonReport).
 */
export interface ReportOrders<T = unknown> extends Iterable<T> {
  readonly length: number;
  map<U>(fn: (order: T, index: number) => U): U[];
  filter(fn: (order: T, index: number) => boolean): T[];
  find(fn: (order: T, index: number) => boolean): T | undefined;
  every(fn: (order: T, index: number) => boolean): boolean;
  some(fn: (order: T, index: number) => boolean): boolean;
  slice(start?: number, end?: number): T[];
}

/** A ReportOrders that builds each order from its position when read; `parts` are read in turn. */
export class LazyOrders<T> extends IterableItems<T> implements ReportOrders<T> {
  readonly length: number;

  constructor(private readonly parts: readonly { length: number; at(index: number): T }[]) {
    super();
    this.length = parts.reduce((n, part) => n + part.length, 0);
  }

  *[Symbol.iterator](): Iterator<T> {
    for (const part of this.parts) for (let i = 0; i < part.length; i++) yield part.at(i);
  }

  /** JSON.stringify of a whole report (tests, small reports); the CLI prints with writeJsonReport instead. */
  toJSON(): T[] {
    return [...this];
  }
}

/** Text handed to the output at a time while a report is printed. */
const PRINT_CHUNK_CHARS = 64 * 1024;

/**
 * Prints a report as JSON.stringify(report, null, 2) would, its orders one by one, waiting for the output
 * to drain: a report of millions of orders never becomes one string (nor could it: V8 caps a string).
 */
export async function writeJsonReport(report: object, out: NodeJS.WritableStream): Promise<void> {
  const orders = (report as { orders?: unknown }).orders;
  if (orders === undefined || orders === null || typeof orders !== 'object' || !(Symbol.iterator in orders)) {
    await write(out, `${JSON.stringify(report, null, 2)}\n`);
    return;
  }
  const marker = `\u0000orders-${Math.random()}`;
  const [before, after] = JSON.stringify({ ...report, orders: marker }, null, 2).split(JSON.stringify(marker)) as [string, string];
  let text = `${before}[`;
  let count = 0;
  for (const order of orders as Iterable<unknown>) {
    text += `${count++ === 0 ? '' : ','}\n    ${JSON.stringify(order, null, 2).replaceAll('\n', '\n    ')}`;
    if (text.length >= PRINT_CHUNK_CHARS) {
      // A reader gone (`| head -1` closed the pipe): the rest has no one to read it.
      if (!(await write(out, text))) return;
      text = '';
    }
  }
  text += count === 0 ? ']' : '\n  ]';
  await write(out, `${text}${after}\n`);
}

/**
 * Writes text, waiting while the output is full. False once the output is gone (its reader closed the pipe: the
 * stream fails or closes, and will never drain), so that nothing waits for it forever.
 */
function write(out: NodeJS.WritableStream, text: string): Promise<boolean> {
  if ((out as { destroyed?: boolean }).destroyed === true) return Promise.resolve(false);
  if (out.write(text)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const settle = (isOpen: boolean) => () => {
      out.off('drain', onDrain);
      out.off('error', onGone);
      out.off('close', onGone);
      resolve(isOpen);
    };
    const onDrain = settle(true);
    const onGone = settle(false);
    out.once('drain', onDrain);
    out.once('error', onGone);
    out.once('close', onGone);
  });
}

export function toJsonIssues(issues: readonly Issue[]): ReturnType<typeof issueToJson>[] {
  return issues.map(issueToJson);
}

/** One output path for one file (the documented shape); a list when several files were processed. */
export function outputField(paths: readonly string[]): string | string[] | null {
  if (paths.length === 0) return null;
  if (paths.length === 1) return paths[0] ?? null;
  return [...paths];
}
