/**
 * Checking a whole sheet: rows are checked as they stream in, grouped by customerOrderId (rows of
 * one order may be anywhere), kept compactly for the result file, and each order is finished
 * once every row has been read. Pure apart from consuming the sheet's row stream.
 */
import type { CreateOrderPayload } from '../contract/schemas.js';
import { UsageError } from '../errors.js';
import type { Issue } from '../issues/index.js';
import type { Field } from '../sheet/columns.js';
import type { HasCellText } from '../sheet/csv-cell-text.js';
import type { OpenedSheet, RawRow } from '../sheet/types.js';
import type { CheckContext, CheckedOrder, CheckedSheet, ValidationStatus } from './types.js';
import { isValidTimezone } from './dates.js';
import { OrderDraft, closeDraft, openDraft } from './draft.js';
import { mergeRow } from './merge-row.js';
import { finishDraft } from './finish.js';
import { buildPayload } from './payload.js';
import { planColumns, type PlanOptions, type SheetPlan } from './plan.js';
import { CompactRowStore } from './row-store.js';
import { detach } from './text.js';

export interface CheckSheetOptions {
  /** Called after each batch of rows with the number of data rows read so far. */
  onProgress?: (rowsDone: number) => void;
  /**
   * How numbers with a comma are read (see CheckerDeps.numberFormat). Default: in a CSV separated by
   * semicolons or tabs, by each value's own mark, `1,234` refused; elsewhere the point is the decimal mark.
   */
  numberFormat?: PlanOptions['numberFormat'];
}

export interface MappedColumns {
  /** The field of each column (null for an unknown one), from mapHeaders. */
  columns: (Field | null)[];
  /** Header issues: missing_column (error), unknown_column (warning). */
  issues: Issue[];
  /** Order-level amounts that the rows of an order add up to (PlanOptions.summed). */
  summed?: readonly Field[];
}

/**
 * Checks every row and order of an opened sheet. Never throws for what is in the sheet: a missing
 * required column makes every order invalid (and says so in `fileIssues` and in each order's issues). Throws UsageError for
 * an unknown time zone, which is a setting, not sheet content.
 */
export async function checkSheet(opened: OpenedSheet & HasCellText, mapped: MappedColumns, ctx: CheckContext, options: CheckSheetOptions = {}): Promise<CheckedSheet> {
  if (!isValidTimezone(ctx.timezone)) throw new UsageError(`Unknown time zone "${ctx.timezone}": use an IANA name like America/New_York or UTC.`);
  const numberFormat = options.numberFormat ?? (isLocaleDelimiter(opened.csvDelimiter) ? { mark: null } : undefined);
  const plan = planColumns(opened.headers, mapped.columns, ctx, { ...(numberFormat && { numberFormat }), ...(mapped.summed && { summed: mapped.summed }) });
  const store = new CompactRowStore(sharedColumns(plan), opened.headers.length, opened.cellText);
  const drafts: (OrderDraft | undefined)[] = [];
  const byId = new Map<string, OrderDraft>();
  let orderOfRow = new Int32Array(1024);
  let open: OrderDraft | null = null;
  let rowsDone = 0;

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
        d = new OrderDraft(null, drafts.length, plan.slotCount, false);
        drafts.push(d);
      } else {
        const key = id.value as string;
        d = byId.get(key);
        if (d === undefined) {
          d = new OrderDraft(detach(key), drafts.length, plan.slotCount, false);
          drafts.push(d);
          byId.set(d.customerOrderId!, d);
        }
      }
      if (d !== open) {
        if (open !== null) closeDraft(open, plan);
        openDraft(d, plan, store);
        open = d;
      }
      const isRepeat = mergeRow(d, raw.rowNumber, raw.cells, plan);
      store.push(raw.rowNumber, raw.cells, isSameId && isRepeat);
      if (index === orderOfRow.length) orderOfRow = grow(orderOfRow);
      orderOfRow[index] = d.index;
    }
    rowsDone += batch.length;
    batch.length = 0;
    options.onProgress?.(rowsDone);
  }
  byId.clear();

  const payloads = new PayloadSource(plan, store, ctx.now.getTime());
  const orders: CheckedOrder[] = new Array<CheckedOrder>(drafts.length);
  for (let i = 0; i < drafts.length; i++) {
    const d = drafts[i]!;
    const finished = finishDraft(d, plan, ctx.now.getTime());
    const status: ValidationStatus = finished.isValid ? 'valid' : 'invalid';
    const issues = plan.missingRequired.length === 0 ? finished.issues : [...missingColumnIssues(plan, d.rows[0] ?? null), ...finished.issues];
    orders[i] = new SheetOrder(d.customerOrderId, d.rows, status, issues, payloads);
    drafts[i] = undefined; // let the draft go as soon as its order is finished
  }

  const finalOrderOfRow = orderOfRow;
  return {
    file: opened.file,
    format: opened.format,
    ...(opened.sheetName !== undefined && { sheetName: opened.sheetName }),
    sha256: opened.sha256(),
    headers: opened.headers,
    headerRow: opened.headerRow,
    columns: mapped.columns,
    fileIssues: withMissingColumns(mapped.issues, plan),
    rows: store,
    orders,
    orderIndexOfRow(rowNumber) {
      const index = store.indexOf(rowNumber);
      return index < 0 ? undefined : finalOrderOfRow[index];
    },
  };
}

/**
 * A checked order. Its payload is built when read, from the stored rows, so that a million-row
 * `validate` does not hold 300,000 payloads it never uses. Each read builds a fresh object. Every
 * order shares the sheet's one PayloadSource (one reference each, no payload kept): an invalid one
 * may still be rebuilt as of another instant (payloadAsOf).
 */
class SheetOrder implements CheckedOrder {
  readonly #payloads: PayloadSource;

  constructor(
    public customerOrderId: string | null,
    public rows: number[],
    public status: ValidationStatus,
    public issues: Issue[],
    payloads: PayloadSource,
  ) {
    this.#payloads = payloads;
  }

  get payload(): CreateOrderPayload | undefined {
    return this.status === 'valid' ? this.#payloads.build(this.customerOrderId, this.rows) : undefined;
  }

  payloadAsOf(nowMs: number): CreateOrderPayload | undefined {
    return this.#payloads.build(this.customerOrderId, this.rows, nowMs);
  }
}

/** Rebuilds an order from its stored rows, with the same checks (as of the run's now, or another instant), and turns it into its payload. */
class PayloadSource {
  constructor(
    private readonly plan: SheetPlan,
    private readonly store: CompactRowStore,
    private readonly nowMs: number,
  ) {}

  build(customerOrderId: string | null, rows: readonly number[], nowMs = this.nowMs): CreateOrderPayload | undefined {
    const d = new OrderDraft(customerOrderId, 0, this.plan.slotCount, true);
    for (const row of rows) mergeRow(d, row, this.store.cellsOf(row), this.plan);
    const finished = finishDraft(d, this.plan, nowMs);
    return finished.isValid && finished.totals !== null ? buildPayload(d, this.plan, finished.totals) : undefined;
  }
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
