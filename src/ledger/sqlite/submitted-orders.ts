/**
 * Reconcile's selection from the ledger: the orders accepted since an instant, read in pages, counted,
 * and the earliest submittedAt and orderDate among them (where its tracking window starts), each from
 * an index where one serves.
 */
import type { Database, Statement } from 'better-sqlite3';
import type { CreateOrderPayload } from '../../contract/schemas.js';
import { type OrderRow, toRecord } from '../order-row.js';
import { orderDateColumn } from '../intent-columns.js';
import type { OrderRecord, SubmittedOrder } from '../types.js';

type SubmittedRow = Pick<OrderRow, 'customer_order_id' | 'payload' | 'submitted_at' | 'state'>;

/** Rows by id (each once, in chunks the SQLite build accepts), `columns` of each: OrderStore's. */
export type RowsByIds = <Row>(columns: string, ids: Iterable<string>) => Row[];

/** The most records a page of pagesSubmittedSince holds (as it always did: one query's worth of ids). */
const PAGE_MAX = 500;

export class SubmittedOrders {
  private readonly selectSince: Statement<[string], OrderRow>;
  private readonly selectIdsSince: Statement<[string], string>;
  private readonly earliestSince: Statement<[string], string>;
  private readonly countSince: Statement<[string, number], number>;
  private readonly earliestOrderDate: Statement<[string], string | null>;
  private readonly orderDatesUnrecorded: Statement<[string], unknown>;

  constructor(
    db: Database,
    private readonly rowsByIds: RowsByIds,
  ) {
    this.selectSince = db.prepare(`SELECT * FROM orders WHERE state = 'accepted' AND submitted_at >= ?
      ORDER BY submitted_at, customer_order_id`);
    this.selectIdsSince = db
      .prepare<[string], string>(`SELECT customer_order_id FROM orders WHERE state = 'accepted' AND submitted_at >= ?
        ORDER BY submitted_at, customer_order_id`)
      .pluck();
    // By the submitted_at index (`+state` keeps the planner off the state index, which made both
    // read every accepted order): the earliest is its first entry, and the count stops at the cap.
    this.earliestSince = db
      .prepare<[string], string>(`SELECT submitted_at FROM orders WHERE +state = 'accepted' AND submitted_at >= ?
        ORDER BY submitted_at LIMIT 1`)
      .pluck();
    this.countSince = db
      .prepare<[string, number], number>(`SELECT count(*) FROM (SELECT 1 FROM orders WHERE +state = 'accepted' AND submitted_at >= ? LIMIT ?)`)
      .pluck();
    // The whole selection is read, but from the accepted orders' index alone (it holds order_date).
    this.earliestOrderDate = db
      .prepare<[string], string | null>(`SELECT min(order_date) FROM orders INDEXED BY orders_accepted_by_submitted_at
        WHERE state = 'accepted' AND submitted_at >= ?`)
      .pluck();
    // Orders recorded before the column existed (schema version 2): their orderDate is in the payload.
    this.orderDatesUnrecorded = db
      .prepare<[string], unknown>(`SELECT json_extract(payload, '$.orderDetails.orderDate') FROM orders INDEXED BY orders_accepted_by_submitted_at
        WHERE state = 'accepted' AND submitted_at >= ? AND order_date IS NULL`)
      .pluck();
  }

  listSubmittedSince(since: Date | string): OrderRecord[] {
    return this.selectSince.all(new Date(since).toISOString()).map(toRecord);
  }

  /** listSubmittedSince in pages of `pageSize` records, each page one query: other calls may interleave. */
  *pagesSubmittedSince(since: Date | string, pageSize = 500): Generator<SubmittedOrder[]> {
    // The ids first (from the index, in order), then each page's rows by primary key: every row is
    // read once, however many share a submittedAt.
    const ids = this.selectIdsSince.all(new Date(since).toISOString());
    const size = Math.max(1, Math.min(pageSize, PAGE_MAX));
    for (let start = 0; start < ids.length; start += size) {
      const chunk = ids.slice(start, start + size);
      const byId = new Map<string, SubmittedRow>();
      for (const row of this.rowsByIds<SubmittedRow>('customer_order_id, payload, submitted_at, state', chunk)) byId.set(row.customer_order_id, row);
      // A record that changed state between the two reads is left out, as a later listSubmittedSince would.
      const page: SubmittedOrder[] = [];
      for (const id of chunk) {
        const row = byId.get(id);
        if (row && row.state === 'accepted') {
          page.push({ customerOrderId: row.customer_order_id, payload: JSON.parse(row.payload) as CreateOrderPayload, submittedAt: row.submitted_at });
        }
      }
      if (page.length > 0) yield page;
    }
  }

  /** How many records listSubmittedSince would give (at most countUpTo), and the earliest submittedAt among them, without reading them. */
  summarizeSubmittedSince(since: Date | string, countUpTo?: number): { count: number; earliestSubmittedAt: string | null } {
    const from = new Date(since).toISOString();
    // LIMIT -1: no limit.
    return { count: this.countSince.get(from, countUpTo ?? -1)!, earliestSubmittedAt: this.earliestSince.get(from) ?? null };
  }

  /** The earliest orderDate (as ISO 8601 UTC) of the records listSubmittedSince would give; null when none has one. */
  earliestOrderDateSince(since: Date | string): string | null {
    const from = new Date(since).toISOString();
    let earliest = this.earliestOrderDate.get(from) ?? null;
    for (const raw of this.orderDatesUnrecorded.all(from)) {
      const instant = orderDateColumn(raw);
      if (instant !== null && (earliest === null || instant < earliest)) earliest = instant;
    }
    return earliest;
  }
}
