/**
 * Reading a PostgreSQL ledger: records, states, reconcile's selection (accepted since an instant, by
 * the partial index on accepted orders), run history, settings and watermarks.
 */
import type pg from 'pg';
import { ORDER_STATES, type LedgerDescription, type OrderRecord, type OrderState, type RunRecord, type SubmittedOrder } from '../types.js';
import type { CreateOrderPayload } from '../../contract/schemas.js';
import { toRecord, type OrderRow } from '../order-row.js';
import { toRun, type RunRow } from '../run-row.js';
import { MIGRATIONS_TABLE } from './schema.js';

type Query = pg.Pool['query'];
type SubmittedRow = { customer_order_id: string; payload: string; submitted_at: string };

/** The most records a page of pagesSubmittedSince holds (the SQLite ledger's limit too). */
const PAGE_MAX = 500;

export class PostgresReads {
  constructor(private readonly query: Query) {}

  async get(customerOrderId: string): Promise<OrderRecord | null> {
    const { rows } = await this.query<OrderRow>('SELECT * FROM orders WHERE customer_order_id = $1', [customerOrderId]);
    return rows[0] ? toRecord(rows[0]) : null;
  }

  async getMany(customerOrderIds: Iterable<string>): Promise<Map<string, OrderRecord>> {
    const { rows } = await this.query<OrderRow>('SELECT * FROM orders WHERE customer_order_id = ANY($1::text[])', [[...new Set(customerOrderIds)]]);
    return new Map(rows.map((row) => [row.customer_order_id, toRecord(row)]));
  }

  async statesOf(customerOrderIds: Iterable<string>): Promise<Map<string, OrderState>> {
    const { rows } = await this.query<{ customer_order_id: string; state: OrderState }>(
      'SELECT customer_order_id, state FROM orders WHERE customer_order_id = ANY($1::text[])',
      [[...new Set(customerOrderIds)]],
    );
    return new Map(rows.map((row) => [row.customer_order_id, row.state]));
  }

  async listSubmittedSince(since: Date | string): Promise<OrderRecord[]> {
    const { rows } = await this.query<OrderRow>(
      `SELECT * FROM orders WHERE state = 'accepted' AND submitted_at >= $1 ORDER BY submitted_at, customer_order_id`,
      [new Date(since).toISOString()],
    );
    return rows.map(toRecord);
  }

  /** Keyset pages on (submitted_at, customer_order_id): each page one query, other calls may interleave. */
  async *pagesSubmittedSince(since: Date | string, pageSize = 500): AsyncGenerator<SubmittedOrder[]> {
    const size = Math.max(1, Math.min(pageSize, PAGE_MAX));
    const columns = `SELECT customer_order_id, payload, submitted_at FROM orders WHERE state = 'accepted'`;
    let next = () => this.query<SubmittedRow>(`${columns} AND submitted_at >= $1 ORDER BY submitted_at, customer_order_id LIMIT $2`, [new Date(since), size]);
    for (;;) {
      const { rows } = await next();
      if (rows.length > 0) {
        yield rows.map((row) => ({
          customerOrderId: row.customer_order_id,
          payload: JSON.parse(row.payload) as CreateOrderPayload,
          submittedAt: row.submitted_at,
        }));
      }
      if (rows.length < size) return;
      const last = rows[rows.length - 1]!;
      next = () =>
        this.query<SubmittedRow>(`${columns} AND (submitted_at, customer_order_id) > ($1, $2) ORDER BY submitted_at, customer_order_id LIMIT $3`, [
          last.submitted_at,
          last.customer_order_id,
          size,
        ]);
    }
  }

  async summarizeSubmittedSince(since: Date | string, countUpTo?: number): Promise<{ count: number; earliestSubmittedAt: string | null }> {
    const { rows } = await this.query<{ count: number; earliest: string | null }>(
      `SELECT (SELECT count(*)::int FROM (SELECT 1 FROM orders WHERE state = 'accepted' AND submitted_at >= $1 LIMIT $2) s) AS count,
         (SELECT min(submitted_at) FROM orders WHERE state = 'accepted' AND submitted_at >= $1) AS earliest`,
      [new Date(since).toISOString(), countUpTo ?? null],
    );
    return { count: rows[0]!.count, earliestSubmittedAt: rows[0]!.earliest };
  }

  async earliestOrderDateSince(since: Date | string): Promise<string | null> {
    const { rows } = await this.query<{ earliest: string | null }>(
      `SELECT min(order_date) AS earliest FROM orders WHERE state = 'accepted' AND submitted_at >= $1`,
      [new Date(since).toISOString()],
    );
    return rows[0]!.earliest;
  }

  async *iterateRecords(options: { states?: readonly OrderState[]; pageSize?: number } = {}): AsyncGenerator<OrderRecord> {
    const pageSize = options.pageSize ?? 500;
    let after = '';
    for (;;) {
      const { rows } = await this.query<OrderRow>(
        `SELECT * FROM orders WHERE customer_order_id > $1 AND ($2::text[] IS NULL OR state = ANY($2::text[]))
         ORDER BY customer_order_id LIMIT $3`,
        [after, options.states ? [...options.states] : null, pageSize],
      );
      for (const row of rows) yield toRecord(row);
      if (rows.length < pageSize) return;
      after = rows[rows.length - 1]!.customer_order_id;
    }
  }

  async countByState(): Promise<Record<OrderState, number>> {
    const counts = Object.fromEntries(ORDER_STATES.map((s) => [s, 0])) as Record<OrderState, number>;
    const { rows } = await this.query<{ state: OrderState; n: number }>('SELECT state, count(*)::int AS n FROM orders GROUP BY state');
    for (const { state, n } of rows) counts[state] = n;
    return counts;
  }

  async listRuns(limit = 20): Promise<RunRecord[]> {
    const { rows } = await this.query<RunRow>('SELECT * FROM runs ORDER BY seq DESC LIMIT $1', [limit]);
    return rows.map(toRun);
  }

  async getRun(runId: string): Promise<RunRecord | null> {
    const { rows } = await this.query<RunRow>('SELECT * FROM runs WHERE run_id = $1', [runId]);
    return rows[0] ? toRun(rows[0]) : null;
  }

  async getSetting(name: string): Promise<string | null> {
    const { rows } = await this.query<{ value: string }>('SELECT value FROM settings WHERE name = $1', [name]);
    return rows[0]?.value ?? null;
  }

  async getWatermark(name: string): Promise<string | null> {
    const { rows } = await this.query<{ value: string }>('SELECT value FROM watermarks WHERE name = $1', [name]);
    return rows[0]?.value ?? null;
  }

  async describe(): Promise<LedgerDescription> {
    const { rows } = await this.query<{ migrations: number; last: string | null; runs: number; live: number }>(
      `SELECT (SELECT count(*)::int FROM ${MIGRATIONS_TABLE}) AS migrations, (SELECT max(name) FROM ${MIGRATIONS_TABLE}) AS last,
        (SELECT count(*)::int FROM runs) AS runs,
        (SELECT count(*)::int FROM runs WHERE finished_at IS NULL AND lease_expires_at > clock_timestamp()) AS live`,
    );
    const row = rows[0]!;
    return { schemaVersion: row.last === null ? String(row.migrations) : `${row.migrations} (${row.last})`, runs: row.runs, liveRuns: row.live };
  }
}
