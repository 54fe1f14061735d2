/**
 * Checking a whole sheet: rows are checked as they stream in, grouped by customerOrderId (rows of
 * one order may be anywhere), kept compactly for the result file, and each order is finished once
 * every row has been read.
 *
 * Memory stays bounded whatever the sheet's size: rows go to the row store (on disk past its window), the
 * orders being read are a window of drafts (50,000 by default), and an order not seen while that many
 * others came is finished and its verdict stored (order-verdicts.ts). Should a row of it come later (a
 * sheet sorted by something else than the order), the order is taken up again from its stored rows and
 * finished anew: the verdicts are those of a sheet read whole, only slower for such a sheet.
 */
import { UsageError } from '../errors.js';
import type { Issue } from '../issues/index.js';
import type { Field } from '../sheet/columns.js';
import type { CellValue, OpenedSheet, RawRow } from '../sheet/types.js';
import type { CheckContext, CheckedSheet, ValidationStatus } from './types.js';
import { isValidTimezone } from './dates.js';
import { OrderDraft, closeDraft, openDraft } from './draft.js';
import { mergeRow } from './merge-row.js';
import { finishDraft } from './finish.js';
import { OrderIds } from './order-ids.js';
import { OrderVerdicts, type OrderVerdictsOptions } from './order-verdicts.js';
import { planColumns, type PlanOptions, type SheetPlan } from './plan.js';
import { CompactRowStore, DEFAULT_ROW_MEMORY_BYTES, type RowStoreOptions } from './row-store.js';
import { SheetOrders } from './sheet-orders.js';
import { formatDiskSize, freeDiskBytes, temporaryFolder } from './temporary-file.js';
import { detach } from './text.js';

export interface CheckSheetOptions {
  /** Called after each batch of rows with the number of data rows read so far. */
  onProgress?: (rowsDone: number) => void;
  /** How the rows are kept (memory window, temporary folder): see row-store.ts. */
  rowStore?: Pick<RowStoreOptions, 'memoryBytes' | 'chunkRows' | 'dir'>;
  /** How the orders' verdicts are kept (memory budget, temporary folder): see order-verdicts.ts. */
  verdicts?: OrderVerdictsOptions;
  /** Orders being read kept in memory at once (default 50,000; tests lower it). */
  openOrders?: number;
  /**
   * How numbers with a comma are read (see CheckerDeps.numberFormat). Default: in a CSV separated by
   * semicolons or tabs, by each value's own mark, `1,234` refused; elsewhere the point is the decimal mark.
   */
  numberFormat?: PlanOptions['numberFormat'];
  /**
   * Turns each order's verdict into the one kept, as the order is finished (a sheet read through a profile: see
   * mapped-sheet.ts); `cellsOf` gives a row's cells as the checker read them. An order finished again (its rows
   * scattered) is revised again, from its verdict afresh.
   */
  reviseOrder?: (verdict: OrderVerdict, cellsOf: (rowNumber: number) => CellValue[]) => OrderVerdict;
}

/** An order's verdict as checking finishes it. */
export interface OrderVerdict {
  /** Spreadsheet row numbers of the order's rows, in sheet order. */
  rows: readonly number[];
  status: ValidationStatus;
  issues: Issue[];
}

export const DEFAULT_OPEN_ORDERS = 50_000;

/**
 * Disk a sheet's rows take while it is checked, per byte of the file: about one for a CSV (its text, in one or
 * two bytes a character), more for a workbook, whose XML is packed.
 */
const SPILL_BYTES_PER_FILE_BYTE = { csv: 1.1, xlsx: 4 } as const;

/**
 * Refuses, before anything is read, a sheet whose rows would not fit on the disk of the temporary folder once
 * past the memory window; a sheet that fits in memory needs no disk.
 */
export function checkRoomForRows(opened: Pick<OpenedSheet, 'file' | 'format' | 'sizeBytes'>, options: Pick<CheckSheetOptions, 'rowStore'> = {}, freeBytesIn = freeDiskBytes): void {
  const needed = Math.ceil(opened.sizeBytes * SPILL_BYTES_PER_FILE_BYTE[opened.format]);
  if (needed <= (options.rowStore?.memoryBytes ?? DEFAULT_ROW_MEMORY_BYTES)) return;
  const folder = temporaryFolder(options.rowStore?.dir);
  const free = freeBytesIn(folder);
  if (free === null || free >= needed) return;
  throw new UsageError(
    `Not enough free disk to check ${opened.file}: its rows are kept in ${folder} while its orders are checked, about ${formatDiskSize(needed)}, ` +
      `and ${formatDiskSize(free, 'down')} is free there. Free some space, or set TMPDIR to a folder on a disk with room, and run the command again.`,
  );
}

export interface MappedColumns {
  /** The field of each column (null for an unknown one), from mapHeaders. */
  columns: (Field | null)[];
  /** Header issues: missing_column (error), unknown_column (warning). */
  issues: Issue[];
  /** Order-level amounts that the rows of an order add up to (PlanOptions.summed). */
  summed?: readonly Field[];
  /** Order-level fields read from an order's first row only (PlanOptions.firstOnly). */
  firstOnly?: readonly Field[];
}

/**
 * Checks every row and order of an opened sheet. Never throws for what is in the sheet: a missing
 * required column makes every order invalid (and says so in `fileIssues` and in each order's issues). Throws UsageError for
 * an unknown time zone, which is a setting, not sheet content.
 */
export async function checkSheet(opened: OpenedSheet, mapped: MappedColumns, ctx: CheckContext, options: CheckSheetOptions = {}): Promise<CheckedSheet> {
  if (!isValidTimezone(ctx.timezone)) throw new UsageError(`Unknown time zone "${ctx.timezone}": use an IANA name like America/New_York or UTC.`);
  const numberFormat = options.numberFormat ?? (isLocaleDelimiter(opened.csvDelimiter) ? { mark: null } : undefined);
  const plan = planColumns(opened.headers, mapped.columns, ctx, { ...(numberFormat && { numberFormat }), ...(mapped.summed && { summed: mapped.summed }), ...(mapped.firstOnly && { firstOnly: mapped.firstOnly }) });
  const store = new CompactRowStore({ ...options.rowStore, sharedColumns: sharedColumns(plan), width: opened.headers.length });
  const ids = new OrderIds();
  const verdicts = new OrderVerdicts(options.verdicts);
  const nowMs = ctx.now.getTime();
  const maxOpen = Math.max(1, options.openOrders ?? DEFAULT_OPEN_ORDERS);
  /** The drafts being read, and the order they were last touched in. */
  const window = new Map<number, OrderDraft>();
  const recency = new Recency();
  let orderOfRow = new Int32Array(1024);
  let open: OrderDraft | null = null;
  let rowsDone = 0;

  const cellsOf = (rowNumber: number): CellValue[] => store.cellsOf(rowNumber);
  const finish = (d: OrderDraft): void => {
    const finished = finishDraft(d, plan, nowMs);
    let verdict: OrderVerdict = {
      rows: d.rows,
      status: finished.isValid ? 'valid' : 'invalid',
      issues: plan.missingRequired.length === 0 ? finished.issues : [...missingColumnIssues(plan, d.rows[0] ?? null), ...finished.issues],
    };
    if (options.reviseOrder) verdict = options.reviseOrder(verdict, cellsOf);
    const last = verdicts.firstRowOf(d.index) + d.rows.length - 1;
    const isTogether = store.rowNumberAt(last) === d.rows[d.rows.length - 1];
    verdicts.finish(d.index, verdict.status, verdict.issues, d.rows.length, isTogether ? null : d.rows);
  };
  const admit = (d: OrderDraft): void => {
    window.set(d.index, d);
    recency.touch(d.index);
    if (window.size <= maxOpen) return;
    const oldest = recency.takeOldest((order) => window.has(order));
    const draft = window.get(oldest)!;
    window.delete(oldest);
    if (draft === open) open = null;
    finish(draft);
  };
  /** An order finished while its rows were still coming: its draft again, from its stored rows. */
  const takeUp = (order: number, id: string): OrderDraft => {
    const rows = verdicts.scatteredRowsOf(order) ?? rowNumbersFrom(store, verdicts.firstRowOf(order), verdicts.rowCountOf(order));
    verdicts.reopen(order);
    const d = new OrderDraft(id, order, plan.slotCount, false);
    for (const row of rows) mergeRow(d, row, store.cellsOf(row), plan);
    return d;
  };

  for await (const batch of opened.rows) {
    for (let b = 0; b < batch.length; b++) {
      const raw = batch[b]!;
      // A row is garbage once stored: letting go of it now spares the GC copying the batch's tail.
      (batch as (RawRow | undefined)[])[b] = undefined;
      const index = store.size;
      const id = plan.id.checker.check(raw.cells[plan.id.col]);
      const isSameId = plan.id.checker.isRepeat;
      let d: OrderDraft | undefined;
      if (isSameId && open !== null && open.customerOrderId !== null) {
        // The same ID as the row before: the same order, no lookup needed.
        d = open;
      } else if (id.isBlank) {
        // A row without an order ID is an order of its own, never a continuation of the row above.
        const order = ids.add(null);
        verdicts.begin(order, index);
        admit((d = new OrderDraft(null, order, plan.slotCount, false)));
      } else {
        const key = id.value as string;
        let order = ids.find(key);
        if (order < 0) {
          order = ids.add(key);
          verdicts.begin(order, index);
          admit((d = new OrderDraft(detach(key), order, plan.slotCount, false)));
        } else if ((d = window.get(order)) !== undefined) {
          recency.touch(order);
        } else {
          admit((d = takeUp(order, detach(key))));
        }
      }
      if (d !== open) {
        if (open !== null) closeDraft(open, plan);
        openDraft(d, plan, store);
        open = d;
      }
      const isRepeat = mergeRow(d, raw.rowNumber, raw.cells, plan);
      store.push(raw.rowNumber, raw.cells, isSameId && isRepeat, raw.line);
      if (index === orderOfRow.length) orderOfRow = grow(orderOfRow);
      orderOfRow[index] = d.index;
    }
    rowsDone += batch.length;
    batch.length = 0;
    options.onProgress?.(rowsDone);
  }
  for (const d of window.values()) finish(d);
  window.clear();

  const finalOrderOfRow = orderOfRow;
  return {
    file: opened.file,
    format: opened.format,
    ...(opened.sheetName !== undefined && { sheetName: opened.sheetName }),
    sha256: opened.sha256(),
    headers: opened.headers,
    headerRow: opened.headerRow,
    sizeBytes: opened.sizeBytes,
    columns: mapped.columns,
    fileIssues: withMissingColumns(mapped.issues, plan),
    rows: store,
    orders: new SheetOrders(ids, verdicts, store, plan, nowMs),
    orderIndexOfRow(rowNumber) {
      const index = store.indexOf(rowNumber);
      return index < 0 ? undefined : finalOrderOfRow[index];
    },
    release() {
      store.close();
      verdicts.close();
    },
  };
}

/**
 * Which order was touched least recently: a queue of touches, each order's latest one remembered, stale
 * touches skipped when the oldest is asked for. (A Map re-inserted on every touch gives the same order, but
 * reading its oldest entry walks every entry deleted before it: seconds for a million-row sheet.)
 */
class Recency {
  private queue = new Int32Array(1024);
  private head = 0;
  private tail = 0;
  /** Position in the queue of each order's latest touch. */
  private latest = new Float64Array(1024);
  /** Touches dropped from the queue's front so far (positions are counted from the first touch ever). */
  private dropped = 0;

  touch(order: number): void {
    if (this.tail === this.queue.length) this.makeRoom();
    if (order >= this.latest.length) {
      const grown = new Float64Array(Math.max(order + 1, this.latest.length * 2));
      grown.set(this.latest);
      this.latest = grown;
    }
    this.latest[order] = this.dropped + this.tail;
    this.queue[this.tail++] = order;
  }

  /** The order touched least recently among those `isOpen` says are still there; taken out of the queue. */
  takeOldest(isOpen: (order: number) => boolean): number {
    while (this.head < this.tail) {
      const at = this.head++;
      const order = this.queue[at]!;
      if (this.latest[order] === this.dropped + at && isOpen(order)) return order;
    }
    throw new Error('no open order to finish');
  }

  private makeRoom(): void {
    const live = this.tail - this.head;
    if (live * 2 > this.queue.length) {
      const grown = new Int32Array(this.queue.length * 2);
      grown.set(this.queue.subarray(this.head, this.tail));
      this.queue = grown;
    } else {
      this.queue.copyWithin(0, this.head, this.tail);
    }
    this.dropped += this.head;
    this.head = 0;
    this.tail = live;
  }
}

function rowNumbersFrom(store: CompactRowStore, first: number, count: number): number[] {
  const rows = new Array<number>(count);
  for (let k = 0; k < count; k++) rows[k] = store.rowNumberAt(first + k);
  return rows;
}

function withMissingColumns(issues: Issue[], plan: SheetPlan): Issue[] {
  if (plan.missingRequired.length === 0 || issues.some((i) => i.code === 'missing_column')) return issues;
  const missing: Issue[] = plan.missingRequired.map((field) => ({
    row: null,
    column: field,
    code: 'missing_column',
    severity: 'error',
    message: `The sheet has no ${field} column, which every order needs: add it (see the template).`,
  }));
  return [...issues, ...missing];
}

/**
 * A missing required column makes every order invalid, and each order says so: an order marked
 * invalid must carry the error that makes it so, in the JSON report, the result file's issues column
 * and its Fix sheet alike.
 */
function missingColumnIssues(plan: SheetPlan, row: number | null): Issue[] {
  return plan.missingRequired.map((field) => ({
    row,
    column: field,
    code: 'missing_column',
    severity: 'error',
    message: `This order cannot be sent: the sheet has no ${field} column, which every order needs. Add the column and fill it in.`,
  }));
}

/**
 * A CSV separated by semicolons or tabs: what Excel saves where the comma is the decimal mark (and what
 * marketplaces export), so numbers there are read by their decimal mark (decimal-mark.ts).
 */
export function isLocaleDelimiter(delimiter: string | undefined): boolean {
  return delimiter === ';' || delimiter === '\t';
}

/** Columns of the order-level fields: on an order's later rows they usually repeat the first's. */
function sharedColumns(plan: SheetPlan): number[] {
  return [plan.id, plan.postal, ...plan.orderFields].filter((f) => f.col >= 0).map((f) => f.col);
}

function grow(array: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
  const grown = new Int32Array(array.length * 2);
  grown.set(array);
  return grown;
}
