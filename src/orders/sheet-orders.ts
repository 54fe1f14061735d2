/**
 * The checked orders of a sheet, read from where checking left them (order-ids.ts, order-verdicts.ts and the
 * row store) rather than held as objects: each order asked for is built afresh, so a sheet of three million
 * orders costs tens of megabytes however it is read. Its payload is built when read, from the stored rows.
 */
import type { CreateOrderPayload } from '../contract/schemas.js';
import type { Issue } from '../issues/index.js';
import { IterableItems } from '../iterable-items.js';
import { OrderDraft } from './draft.js';
import { finishDraft } from './finish.js';
import { mergeRow } from './merge-row.js';
import type { OrderIds } from './order-ids.js';
import type { OrderVerdicts } from './order-verdicts.js';
import { buildPayload } from './payload.js';
import type { SheetPlan } from './plan.js';
import type { CompactRowStore } from './row-store.js';
import type { CheckedOrder, OrderList, ValidationStatus } from './types.js';

export class SheetOrders extends IterableItems<CheckedOrder> implements OrderList {
  private readonly payloads: PayloadSource;

  constructor(
    private readonly ids: OrderIds,
    private readonly verdicts: OrderVerdicts,
    private readonly store: CompactRowStore,
    plan: SheetPlan,
    nowMs: number,
  ) {
    super();
    this.payloads = new PayloadSource(plan, store, nowMs);
  }

  get length(): number {
    return this.ids.size;
  }

  /** The order at this position (orders come in the order of their first rows); a fresh object each time. */
  at(index: number): CheckedOrder | undefined {
    if (!Number.isInteger(index) || index < 0 || index >= this.length) return undefined;
    return new SheetOrder(this.ids.idOf(index), this.rowsAt(index), this.verdicts.statusOf(index), this.verdicts.issuesOf(index), this.payloads);
  }

  statusAt(index: number): ValidationStatus {
    return this.verdicts.statusOf(index);
  }

  issuesAt(index: number): Issue[] {
    return this.verdicts.issuesOf(index);
  }

  /** The order's spreadsheet row numbers, in sheet order. */
  rowsAt(index: number): number[] {
    const scattered = this.verdicts.scatteredRowsOf(index);
    if (scattered !== null) return scattered;
    const first = this.verdicts.firstRowOf(index);
    const rows = new Array<number>(this.verdicts.rowCountOf(index));
    for (let k = 0; k < rows.length; k++) rows[k] = this.store.rowNumberAt(first + k);
    return rows;
  }

  *[Symbol.iterator](): Iterator<CheckedOrder> {
    for (let i = 0; i < this.length; i++) yield this.at(i)!;
  }
}

/**
 * A checked order. Its payload is built when read, from the stored rows, so that a million-row `validate`
 * does not hold 300,000 payloads it never uses. Each read builds a fresh object. An invalid order may still
 * be rebuilt as of another instant (payloadAsOf).
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
