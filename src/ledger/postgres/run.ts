/**
 * One run's work on a PostgreSQL ledger: its claims, its transitions, and the lease that keeps them.
 *
 * The lease lives on the run's row and is timed by the database's clock (clock_timestamp(), never a
 * host's: hosts disagree). The run renews it every third of its length while it is open; every
 * commit before a POST (prepareSends, markSending) renews it too, in the same statement, and only
 * while it has not expired, so a POST always starts with a whole lease ahead of it. Every transition
 * commits only while the run still holds the order (orders.run_id is this run): another run takes an
 * order over only once this run's lease has expired.
 */
import type pg from 'pg';
import type { Logger } from '../../log.js';
import { LedgerClaimLostError, LedgerStateError } from '../errors.js';
import type { AcceptedInfo, AnswerInfo, IntentResult, LedgerRun, OrderIntent, OrderState } from '../types.js';
import { claimIntents, RENEW_LEASE } from './claims.js';
import { intentParams } from '../intent-columns.js';

export interface RunContext {
  pool: pg.Pool;
  location: string;
  now: () => Date;
  logger: Logger;
  leaseMs: number;
  /** Monotonic ms: how long ago the lease was last renewed. */
  leaseClock: () => number;
  /** Runs a piece of database work, turning a PostgreSQL failure into a LedgerError. */
  guard<T>(work: () => Promise<T>): Promise<T>;
  /** Runs `work` in one transaction on one connection (retried on a deadlock or serialization failure). */
  transaction<T>(work: (client: pg.ClientBase) => Promise<T>): Promise<T>;
}

const SENDABLE = `('pending', 'sending', 'unknown', 'failed')`;

export class PostgresRun implements LedgerRun {
  private renewal: NodeJS.Timeout | undefined;
  private done = false;
  /** When (leaseClock) the lease was last renewed on time: it lasts leaseMs from then on the database's clock. */
  private renewedAt: number;
  /** A renewal found the lease already expired: other runs may have taken some of its orders since. */
  private hasLapsed = false;

  constructor(
    readonly runId: string,
    private readonly ctx: RunContext,
    private readonly onEnd: (run: PostgresRun) => void,
  ) {
    this.renewedAt = ctx.leaseClock();
    // A third of the lease: two renewals may fail (a slow moment) before it can expire.
    this.renewal = setInterval(() => void this.renew(), Math.max(50, Math.floor(ctx.leaseMs / 3)));
    this.renewal.unref();
  }

  async recordIntents(intents: readonly OrderIntent[]): Promise<IntentResult[]> {
    return this.claim(intents, false);
  }

  async recordIntent(intent: OrderIntent): Promise<IntentResult> {
    return (await this.claim([intent], false))[0]!;
  }

  async prepareSends(intents: readonly OrderIntent[]): Promise<IntentResult[]> {
    return this.claim(intents, true);
  }

  async releaseUnsent(customerOrderIds: readonly string[]): Promise<void> {
    this.checkOpen();
    if (customerOrderIds.length === 0) return;
    await this.ctx.guard(() =>
      this.ctx.pool.query(
        `UPDATE orders SET state = 'pending', attempts = attempts - 1,
           first_submitted_at = CASE WHEN attempts = 1 THEN NULL ELSE first_submitted_at END, updated_at = $3
         WHERE customer_order_id = ANY($1::text[]) AND state = 'sending' AND attempts > 0 AND run_id = $2`,
        [customerOrderIds, this.runId, this.timestamp()],
      ),
    );
  }

  async markSending(customerOrderId: string, intent?: OrderIntent): Promise<void> {
    this.checkOpen();
    if (intent && intent.payload.orderDetails.customerOrderId !== customerOrderId) {
      throw new Error(`markSending('${customerOrderId}') was handed the payload of '${intent.payload.orderDetails.customerOrderId}'`);
    }
    const now = this.timestamp();
    const c = intent ? intentParams(intent, this.runId) : null;
    const replace = c
      ? `, payload_hash = $5, payload = $6, source_file = $7, source_sha256 = $8, source_rows = $9::jsonb,
         marketplace_order_id = $10, source_of_sale = $11, order_date = $12`
      : '';
    const params: unknown[] = [this.runId, this.ctx.leaseMs, customerOrderId, now];
    if (c) params.push(c.payloadHash, c.payload, c.sourceFile, c.sourceSha256, c.sourceRows, c.marketplaceOrderId, c.sourceOfSale, c.orderDate);
    const { rowCount } = await this.ctx.guard(() =>
      this.ctx.pool.query(
        `WITH lease AS (${RENEW_LEASE})
         UPDATE orders SET state = 'sending', attempts = attempts + 1, first_submitted_at = COALESCE(first_submitted_at, $4),
           updated_at = $4${replace}
         WHERE customer_order_id = $3 AND run_id = $1 AND state IN ${SENDABLE} AND EXISTS (SELECT 1 FROM lease)`,
        params,
      ),
    );
    if (rowCount === 0) await this.refuse(customerOrderId, 'mark as sending');
  }

  async confirmHold(customerOrderId: string): Promise<void> {
    this.checkOpen();
    // Renewed on time less than half a lease ago: the lease has not run out since, nobody can hold the order.
    if (!this.hasLapsed && this.ctx.leaseClock() - this.renewedAt < this.ctx.leaseMs / 2) return;
    await this.renew();
    const found = (await this.statesAndHolders([customerOrderId])).get(customerOrderId);
    if (found?.runId !== this.runId) throw new LedgerClaimLostError(this.ctx.location, customerOrderId, this.runId);
  }

  async markAccepted(customerOrderId: string, info: AcceptedInfo = {}): Promise<void> {
    await this.markAcceptedMany([{ customerOrderId, info }]);
  }

  async markAcceptedMany(accepted: readonly { customerOrderId: string; info?: AcceptedInfo }[]): Promise<void> {
    this.checkOpen();
    if (accepted.length === 0) return;
    const now = this.timestamp();
    const { rows } = await this.ctx.guard(() =>
      this.ctx.pool.query<{ customer_order_id: string }>(
        `UPDATE orders o SET state = 'accepted', submitted_at = v.submitted_at, http_status = v.http_status,
           request_id = v.request_id, message = v.message, updated_at = $6
         FROM unnest($1::text[], $2::timestamptz[], $3::int[], $4::text[], $5::text[]) AS v(id, submitted_at, http_status, request_id, message)
         WHERE o.customer_order_id = v.id AND o.state <> 'accepted'
         RETURNING o.customer_order_id`,
        [
          accepted.map((a) => a.customerOrderId),
          accepted.map((a) => (a.info?.submittedAt === undefined ? now : new Date(a.info.submittedAt).toISOString())),
          accepted.map((a) => a.info?.httpStatus ?? null),
          accepted.map((a) => a.info?.requestId ?? null),
          accepted.map((a) => a.info?.message ?? null),
          now,
        ],
      ),
    );
    if (rows.length === accepted.length) return;
    // Accepting an accepted order again changes nothing; anything else unmarked is refused.
    const marked = new Set(rows.map((r) => r.customer_order_id));
    const rest = accepted.map((a) => a.customerOrderId).filter((id) => !marked.has(id));
    const states = await this.statesAndHolders(rest);
    for (const id of rest) {
      if (states.get(id)?.state !== 'accepted') await this.refuse(id, 'accept', states);
    }
  }

  async markRejected(customerOrderId: string, info: AnswerInfo): Promise<void> {
    await this.markOutcome(customerOrderId, 'rejected', info);
  }

  async markUnknown(customerOrderId: string, info: AnswerInfo = {}): Promise<void> {
    await this.markOutcome(customerOrderId, 'unknown', info);
  }

  async markFailed(customerOrderId: string, info: AnswerInfo = {}): Promise<void> {
    await this.markOutcome(customerOrderId, 'failed', info);
  }

  async finish(result: { summary: unknown; resultFiles?: readonly string[] }): Promise<void> {
    this.checkOpen();
    this.stopRenewal();
    const { rowCount } = await this.ctx.guard(() =>
      this.ctx.pool.query('UPDATE runs SET finished_at = $2, summary = $3::jsonb, result_files = $4::jsonb WHERE run_id = $1', [
        this.runId,
        this.timestamp(),
        JSON.stringify(result.summary ?? null),
        JSON.stringify(result.resultFiles ?? []),
      ]),
    );
    if (rowCount === 0) throw new Error(`Ledger has no run '${this.runId}'.`);
  }

  /** The run ends as a death would: its lease expires now, so other runs may take its orders over at once. */
  async abandon(): Promise<void> {
    if (this.done) return;
    this.stopRenewal();
    await this.ctx.pool.query('UPDATE runs SET lease_expires_at = clock_timestamp() WHERE run_id = $1 AND finished_at IS NULL', [this.runId]);
  }

  private stopRenewal(): void {
    this.done = true;
    clearInterval(this.renewal);
    this.renewal = undefined;
    this.onEnd(this);
  }

  private async renew(): Promise<void> {
    const startedAt = this.ctx.leaseClock();
    try {
      const { rows } = await this.ctx.pool.query<{ was_late: boolean }>(RENEW_LEASE, [this.runId, this.ctx.leaseMs]);
      if (rows[0] && !rows[0].was_late) this.renewedAt = Math.max(this.renewedAt, startedAt);
      if (rows[0]?.was_late) this.hasLapsed = true;
      if (rows[0]?.was_late && !this.done) {
        this.ctx.logger.warn({ runId: this.runId, ledger: this.ctx.location }, 'the run lease had expired before it was renewed: other runs may have taken over some of its orders');
      }
    } catch (error) {
      // The next transition meets the same trouble and stops the run; a renewal only reports it.
      this.ctx.logger.warn({ runId: this.runId, ledger: this.ctx.location, err: (error as Error).message }, 'could not renew the run lease');
    }
  }

  private async claim(intents: readonly OrderIntent[], markSending: boolean): Promise<IntentResult[]> {
    this.checkOpen();
    if (intents.length === 0) return [];
    const db = { query: this.ctx.pool.query.bind(this.ctx.pool) as pg.ClientBase['query'], transaction: this.ctx.transaction };
    return this.ctx.guard(() => claimIntents(db, intents, { runId: this.runId, leaseMs: this.ctx.leaseMs }, this.timestamp(), markSending));
  }

  private async markOutcome(customerOrderId: string, state: 'rejected' | 'unknown' | 'failed', info: AnswerInfo): Promise<void> {
    this.checkOpen();
    const { rowCount } = await this.ctx.guard(() =>
      this.ctx.pool.query(
        `UPDATE orders SET state = $3, http_status = $4, request_id = $5, message = $6, updated_at = $7
         WHERE customer_order_id = $1 AND run_id = $2 AND state <> 'accepted'`,
        [customerOrderId, this.runId, state, info.httpStatus ?? null, info.requestId ?? null, info.message ?? null, this.timestamp()],
      ),
    );
    if (rowCount === 0) await this.refuse(customerOrderId, `mark as ${state}`);
  }

  private async statesAndHolders(ids: readonly string[]): Promise<Map<string, { state: OrderState; runId: string | null }>> {
    const { rows } = await this.ctx.guard(() =>
      this.ctx.pool.query<{ customer_order_id: string; state: OrderState; run_id: string | null }>(
        'SELECT customer_order_id, state, run_id FROM orders WHERE customer_order_id = ANY($1::text[])',
        [ids],
      ),
    );
    return new Map(rows.map((r) => [r.customer_order_id, { state: r.state, runId: r.run_id }]));
  }

  /** Why a transition changed nothing: another run took the order over, or the state forbids it. */
  private async refuse(id: string, transition: string, known?: Map<string, { state: OrderState; runId: string | null }>): Promise<never> {
    const found = (known ?? (await this.statesAndHolders([id]))).get(id);
    if (found && found.runId !== this.runId) throw new LedgerClaimLostError(this.ctx.location, id, this.runId);
    throw new LedgerStateError(id, found?.state ?? null, transition);
  }

  private checkOpen(): void {
    if (this.done) throw new Error(`Run ${this.runId} has ended: it records nothing more.`);
  }

  private timestamp(): string {
    return this.ctx.now().toISOString();
  }
}
