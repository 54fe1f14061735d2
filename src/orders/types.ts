/** What checking a sheet produces: orders (with their payloads when valid) and the rows they came from. */
import type { CreateOrderPayload } from '../contract/schemas.js';
import type { Issue } from '../issues/index.js';
import type { Field } from '../sheet/columns.js';
import type { CellValue, SheetFormat } from '../sheet/types.js';

export interface CheckContext {
  /** The instant date rules are evaluated at (--now; never the wall clock inside a rule). */
  now: Date;
  /** IANA zone for dates written without an offset (--timezone; default UTC). */
  timezone: string;
  /** Allowed sourceOfSale values (configuration; default ["OtherMarketplace"]). */
  sourcesOfSale: readonly string[];
  /** How `05/11/2026` is read: month first (the default) or day first (--date-order, a mapping profile). */
  dateOrder?: DateOrder;
  /** A named date form the sheet writes besides the usual ones (a mapping profile's dateFormat, e.g. eBay's `Nov-18-26`). */
  dateFormat?: NamedDateFormat;
}

export type DateOrder = 'mdy' | 'dmy';
/**
 * Date forms read only when a profile names them: `MMM-DD-YY` is eBay's Sale Date (`Nov-18-26`),
 * `MMM-DD-YYYY` the same with the full year. English month abbreviations, any case.
 */
export const NAMED_DATE_FORMATS = ['MMM-DD-YY', 'MMM-DD-YYYY'] as const;
export type NamedDateFormat = (typeof NAMED_DATE_FORMATS)[number];

export type ValidationStatus = 'valid' | 'invalid';

export interface CheckedOrder {
  /** Trimmed customerOrderId; null for a row that names none (it forms an invalid order of its own). */
  customerOrderId: string | null;
  /** Spreadsheet row numbers of the order's lines, in sheet order. */
  rows: number[];
  status: ValidationStatus;
  /** Every issue of the order, errors and warnings, each with its row (and column where one cell is at fault). */
  issues: Issue[];
  /** The API payload, present when status is valid. */
  payload?: CreateOrderPayload;
  /**
   * The payload the order's rows give when the rules are evaluated as of `nowMs` instead of the
   * run's now (undefined when the order is invalid then too). Only the orderDate window depends on
   * the instant: an order invalid today only because its date has aged since it was sent is the
   * same order it was then (import compares it with the ledger's). Built afresh on every call.
   */
  payloadAsOf?(nowMs: number): CreateOrderPayload | undefined;
}

/**
 * A sheet's checked orders, in the order of their first rows. A checked sheet reads them from disk and builds
 * each one afresh when asked (a plain array of orders is one too, for tests and small callers).
 */
export interface OrderList extends Iterable<CheckedOrder> {
  readonly length: number;
  at(index: number): CheckedOrder | undefined;
  map<T>(fn: (order: CheckedOrder, index: number) => T): T[];
  forEach(fn: (order: CheckedOrder, index: number) => void): void;
  flatMap<T>(fn: (order: CheckedOrder, index: number) => T | readonly T[]): T[];
  filter(fn: (order: CheckedOrder, index: number) => boolean): CheckedOrder[];
  find(fn: (order: CheckedOrder, index: number) => boolean): CheckedOrder | undefined;
  some(fn: (order: CheckedOrder, index: number) => boolean): boolean;
  every(fn: (order: CheckedOrder, index: number) => boolean): boolean;
  /** An order's status, without building the order (when the list can). */
  statusAt?(index: number): ValidationStatus;
  /** An order's issues (a fresh array), without building the order (when the list can). */
  issuesAt?(index: number): Issue[];
}

/** Raw rows kept for writing the result file, in sheet order. */
export interface RowStore {
  readonly size: number;
  /** Columns of the sheet as checked: a row kept as its line holds that many cells. */
  readonly width: number;
  /** Rows in sheet order. */
  [Symbol.iterator](): Iterator<{ rowNumber: number; cells: CellValue[] }>;
  /** Rows in sheet order as they are kept: a row kept as its line comes as that text alone, split only if asked for. */
  asKept(): Iterable<KeptRow>;
}

/**
 * A row as the store keeps it: its cells, or its line (RawRow.line: one cell per column of the sheet as
 * checked, joined by commas, none holding one). A line whose cells are not all text (a workbook's numbers, each
 * written as its String()) comes with `typedCells`, which decodes them as they were read.
 */
export type KeptRow = { rowNumber: number; line: string; cells: null; typedCells?: () => CellValue[] } | { rowNumber: number; line: null; cells: CellValue[] };

export interface CheckedSheet {
  file: string;
  format: SheetFormat;
  sheetName?: string;
  sha256: string;
  headers: string[];
  headerRow: number;
  /** Size of the file in bytes (for the room its result file needs). */
  sizeBytes?: number;
  /** The field each column maps to (null for an unknown column). */
  columns: (Field | null)[];
  /** File-level issues: missing_column (error), unknown_column (warning). */
  fileIssues: Issue[];
  rows: RowStore;
  /** Orders in the order of their first row. */
  orders: OrderList;
  /** Index into `orders` for each data row number. */
  orderIndexOfRow(rowNumber: number): number | undefined;
  /** Gives back the disk space of what the sheet kept on disk (rows, order verdicts); nothing is readable afterwards. */
  release?(): void;
}
