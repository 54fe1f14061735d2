/**
 * Order records and their transitions. Every method is one SQLite transaction, committed before it
 * returns (better-sqlite3 is synchronous): nothing the guarantees rely on is buffered in memory.
 */
import type { Database, Statement, Transaction } from 'better-sqlite3';
import { LedgerStateError } from '../errors.js';
import { decideIntent } from '../intent.js';
import { intentParams, newRecord } from '../intent-columns.js';
import { type OrderRow, toRecord } from '../order-row.js';
import { SubmittedOrders } from './submitted-orders.js';
import type { AcceptedInfo, AnswerInfo, IntentResult, OrderIntent, OrderRecord, OrderState } from '../types.js';
import { ORDER_STATES } from '../types.js';

/** SQLite allows 32,766 bound parameters since 3.32, but older builds stop at 999: stay well below. */
const IN_CHUNK = 500;

const INTENT_COLUMNS = `payload_hash = @payloadHash, payload = @payload, source_file = @sourceFile,
  source_sha256 = @sourceSha256, source_rows = @sourceRows, marketplace_order_id = @marketplaceOrderId,
  source_of_sale = @sourceOfSale, order_date = @orderDate, updated_at = @now`;

const ANSWER_COLUMNS = 'http_status = @httpStatus, request_id = @requestId, message = @message, updated_at = @now';

export class OrderStore {
  private readonly selectOne: Statement<[string], OrderRow>;
  private readonly insert: Statement;
  private readonly insertSending: Statement;
  private readonly resetToPending: Statement;
  private readonly claimForRun: Statement;
  private readonly toSending: Statement;
  private readonly toSendingWithIntent: Statement;
  private readonly toUnsent: Statement;
  private readonly toAccepted: Statement;
  private readonly toOutcome: Statement;
  private readonly selectPage: Statement<[{ after: string; states: string | null; limit: number }], OrderRow>;
  private readonly selectCounts: Statement<[], { state: OrderState; n: number }>;
  /** `SELECT <columns> ... WHERE customer_order_id IN (?, ...)`, prepared once per columns and count of ids. */
  /** Reconcile's selection: accepted orders submitted since an instant. */
  readonly submitted: SubmittedOrders;
  private readonly byIdsStatements = new Map<string, Statement<string[], unknown>>();
  private readonly recordIntentsTx: Transaction<(intents: readonly OrderIntent[], runId: string) => IntentResult[]>;
  private readonly prepareSendsTx: Transaction<(intents: readonly OrderIntent[], runId: string) => IntentResult[]>;
  private readonly markAcceptedManyTx: Transaction<(accepted: readonly { customerOrderId: string; info?: AcceptedInfo }[]) => void>;

  constructor(
    private readonly db: Database,
    private readonly now: () => Date,
  ) {
    this.selectOne = db.prepare('SELECT * FROM orders WHERE customer_order_id = ?');
    this.insert = db.prepare(`INSERT INTO orders (customer_order_id, payload_hash, payload, state, recorded_at, updated_at,
      run_id, source_file, source_sha256, source_rows, marketplace_order_id, source_of_sale, order_date)
      VALUES (@id, @payloadHash, @payload, 'pending', @now, @now, @runId, @sourceFile, @sourceSha256, @sourceRows,
      @marketplaceOrderId, @sourceOfSale, @orderDate)`);
    // prepareSends' common case, an order never seen: recorded and marked sending in one statement.
    this.insertSending = db.prepare(`INSERT INTO orders (customer_order_id, payload_hash, payload, state, attempts,
      recorded_at, first_submitted_at, updated_at, run_id, source_file, source_sha256, source_rows, marketplace_order_id,
      source_of_sale, order_date)
      VALUES (@id, @payloadHash, @payload, 'sending', 1, @now, @now, @now, @runId, @sourceFile, @sourceSha256, @sourceRows,
      @marketplaceOrderId, @sourceOfSale, @orderDate)
      ON CONFLICT (customer_order_id) DO NOTHING`);
    // A new intent replaces a pending or rejected record; the old answer no longer applies to it.
    this.resetToPending = db.prepare(`UPDATE orders SET state = 'pending', http_status = NULL, request_id = NULL,
      message = NULL, run_id = @runId, ${INTENT_COLUMNS} WHERE customer_order_id = @id`);
    this.claimForRun = db.prepare('UPDATE orders SET run_id = @runId, updated_at = @now WHERE customer_order_id = @id');
    const sending = `state = 'sending', attempts = attempts + 1, first_submitted_at = COALESCE(first_submitted_at, @now), updated_at = @now`;
    const sendable = `customer_order_id = @id AND state IN ('pending', 'sending', 'unknown', 'failed')`;
    this.toSending = db.prepare(`UPDATE orders SET ${sending} WHERE ${sendable}`);
    this.toSendingWithIntent = db.prepare(`UPDATE orders SET ${INTENT_COLUMNS}, ${sending} WHERE ${sendable}`);
    // SET reads the old values: the attempt prepareSends counted is taken back, and with it the first-send time it set.
    this.toUnsent = db.prepare(`UPDATE orders SET state = 'pending', attempts = attempts - 1,
      first_submitted_at = CASE WHEN attempts = 1 THEN NULL ELSE first_submitted_at END, updated_at = @now
      WHERE customer_order_id = @id AND state = 'sending' AND attempts > 0`);
    // Accepted is terminal: nothing moves an accepted record, and accepting it again changes nothing.
    this.toAccepted = db.prepare(`UPDATE orders SET state = 'accepted', submitted_at = @submittedAt, ${ANSWER_COLUMNS}
      WHERE customer_order_id = @id AND state <> 'accepted'`);
    this.toOutcome = db.prepare(`UPDATE orders SET state = @state, ${ANSWER_COLUMNS}
      WHERE customer_order_id = @id AND state <> 'accepted'`);
    this.submitted = new SubmittedOrders(db, (columns, ids) => this.rowsByIds(columns, ids));
    this.selectPage = db.prepare(`SELECT * FROM orders WHERE customer_order_id > @after
      AND (@states IS NULL OR state IN (SELECT value FROM json_each(@states))) ORDER BY customer_order_id LIMIT @limit`);
    this.selectCounts = db.prepare('SELECT state, count(*) AS n FROM orders GROUP BY state');
    this.recordIntentsTx = db.transaction((intents: readonly OrderIntent[], runId: string) =>
      intents.map((intent) => this.recordOne(intent, runId)),
    );
    this.prepareSendsTx = db.transaction((intents: readonly OrderIntent[], runId: string) =>
      intents.map((intent) => {
        const params = intentParams(intent, runId);
        const now = this.timestamp();
        if (this.insertSending.run({ ...params, now }).changes === 1) {
          const record: OrderRecord = { ...newRecord(params, intent, now), state: 'sending', attempts: 1, firstSubmittedAt: now };
          return { action: decideIntent(null, runId), record, previous: null, payloadChanged: false };
        }
        const result = this.recordOne(intent, runId, params);
        if (result.action !== 'send') return result;
        const { record } = result;
        if (this.toSending.run({ id: record.customerOrderId, now }).changes === 0) this.refuse(record.customerOrderId, 'mark as sending');
        const sending: OrderRecord = { ...record, state: 'sending', attempts: record.attempts + 1, firstSubmittedAt: record.firstSubmittedAt ?? now, updatedAt: now };
        return { ...result, record: sending };
      }),
    );
    this.markAcceptedManyTx = db.transaction((accepted: readonly { customerOrderId: string; info?: AcceptedInfo }[]) => {
      for (const { customerOrderId, info } of accepted) this.markAccepted(customerOrderId, info);
    });
  }

  recordIntent(intent: OrderIntent, runId: string): IntentResult {
    return this.recordIntents([intent], runId)[0]!;
  }

  recordIntents(intents: readonly OrderIntent[], runId: string): IntentResult[] {
    // IMMEDIATE: take the write lock before reading, so no other connection can slip in between.
    return this.recordIntentsTx.immediate(intents, runId);
  }

  /** One commit for a chunk of intents and the 'sending' marks of those to send. */
  prepareSends(intents: readonly OrderIntent[], runId: string): IntentResult[] {
    return this.prepareSendsTx.immediate(intents, runId);
  }

  releaseUnsent(customerOrderIds: readonly string[]): void {
    const now = this.timestamp();
    this.db.transaction(() => {
      for (const id of customerOrderIds) this.toUnsent.run({ id, now });
    })();
  }

  markAcceptedMany(accepted: readonly { customerOrderId: string; info?: AcceptedInfo }[]): void {
    if (accepted.length > 0) this.markAcceptedManyTx(accepted);
  }

  markSending(customerOrderId: string, intent?: OrderIntent): void {
    const now = this.timestamp();
    if (intent && intent.payload.orderDetails.customerOrderId !== customerOrderId) {
      throw new Error(`markSending('${customerOrderId}') was handed the payload of '${intent.payload.orderDetails.customerOrderId}'`);
    }
    const changes = intent
      ? this.toSendingWithIntent.run({ ...intentParams(intent, null), now }).changes
      : this.toSending.run({ id: customerOrderId, now }).changes;
    if (changes === 0) this.refuse(customerOrderId, 'mark as sending');
  }

  markAccepted(customerOrderId: string, info: AcceptedInfo = {}): void {
    const now = this.timestamp();
    const submittedAt = info.submittedAt === undefined ? now : new Date(info.submittedAt).toISOString();
    const { changes } = this.toAccepted.run({ ...answerParams(info), id: customerOrderId, submittedAt, now });
    if (changes === 0 && this.stateOf(customerOrderId) !== 'accepted') this.refuse(customerOrderId, 'accept');
  }

  markOutcome(customerOrderId: string, state: 'rejected' | 'unknown' | 'failed', info: AnswerInfo): void {
    const { changes } = this.toOutcome.run({ ...answerParams(info), id: customerOrderId, state, now: this.timestamp() });
    if (changes === 0) this.refuse(customerOrderId, `mark as ${state}`);
  }

  get(customerOrderId: string): OrderRecord | null {
    const row = this.selectOne.get(customerOrderId);
    return row ? toRecord(row) : null;
  }

  getMany(customerOrderIds: Iterable<string>): Map<string, OrderRecord> {
    const found = new Map<string, OrderRecord>();
    for (const row of this.rowsByIds<OrderRow>('*', customerOrderIds)) found.set(row.customer_order_id, toRecord(row));
    return found;
  }

  /** Each known order's state, read alone (no payload parsed). */
  statesOf(customerOrderIds: Iterable<string>): Map<string, OrderState> {
    const found = new Map<string, OrderState>();
    for (const row of this.rowsByIds<Pick<OrderRow, 'customer_order_id' | 'state'>>('customer_order_id, state', customerOrderIds)) found.set(row.customer_order_id, row.state);
    return found;
  }

  /** Keyset pages rather than one open cursor: better-sqlite3 forbids writes on a connection while it iterates. */
  *iterateRecords(options: { states?: readonly OrderState[]; pageSize?: number } = {}): Generator<OrderRecord> {
    const states = options.states ? JSON.stringify(options.states) : null;
    const pageSize = options.pageSize ?? 500;
    let after = '';
    for (;;) {
      const rows = this.selectPage.all({ after, states, limit: pageSize });
      for (const row of rows) yield toRecord(row);
      if (rows.length < pageSize) return;
      after = rows[rows.length - 1]!.customer_order_id;
    }
  }

  countByState(): Record<OrderState, number> {
    const counts = Object.fromEntries(ORDER_STATES.map((s) => [s, 0])) as Record<OrderState, number>;
    for (const { state, n } of this.selectCounts.all()) counts[state] = n;
    return counts;
  }

  private recordOne(intent: OrderIntent, runId: string, params = intentParams(intent, runId)): IntentResult {
    const id = params.id;
    const before = this.selectOne.get(id);
    const previous = before ? toRecord(before) : null;
    const action = decideIntent(previous, runId);
    const now = this.timestamp();
    if (previous === null) {
      this.insert.run({ ...params, now });
      // What the insert wrote, without reading it back: the common case of a big first run.
      return { action, record: newRecord(params, intent, now), previous, payloadChanged: false };
    }
    if (action === 'send') this.resetToPending.run({ ...params, now });
    else if (action === 'lookup') this.claimForRun.run({ id, runId, now });
    const record = action === 'send' || action === 'lookup' ? toRecord(this.selectOne.get(id)!) : previous!;
    return { action, record, previous, payloadChanged: previous !== null && previous.payloadHash !== params.payloadHash };
  }

  /** The rows of these ids (each once), `columns` of each, IN_CHUNK ids a query. */
  private rowsByIds<Row>(columns: string, customerOrderIds: Iterable<string>): Row[] {
    const ids = [...new Set(customerOrderIds)];
    if (ids.length <= IN_CHUNK) return this.selectByIds<Row>(columns, ids.length).all(...ids);
    const rows: Row[] = [];
    for (let start = 0; start < ids.length; start += IN_CHUNK) {
      const chunk = ids.slice(start, start + IN_CHUNK);
      for (const row of this.selectByIds<Row>(columns, chunk.length).all(...chunk)) rows.push(row);
    }
    return rows;
  }


  private selectByIds<Row>(columns: string, size: number): Statement<string[], Row> {
    const key = `${columns}/${size}`;
    let statement = this.byIdsStatements.get(key);
    if (!statement) {
      statement = this.db.prepare(`SELECT ${columns} FROM orders WHERE customer_order_id IN (${Array(size).fill('?').join(', ')})`);
      this.byIdsStatements.set(key, statement);
    }
    return statement as Statement<string[], Row>;
  }

  private stateOf(customerOrderId: string): OrderState | null {
    return this.selectOne.get(customerOrderId)?.state ?? null;
  }

  private refuse(customerOrderId: string, transition: string): never {
    throw new LedgerStateError(customerOrderId, this.stateOf(customerOrderId), transition);
  }

  private timestamp(): string {
    return this.now().toISOString();
  }
}

function answerParams(info: AnswerInfo) {
  return { httpStatus: info.httpStatus ?? null, requestId: info.requestId ?? null, message: info.message ?? null };
}

