/**
 * Recording intents and claiming orders for a run, in one transaction per batch. Runs at once on one
 * ledger are kept apart row by row: new orders are inserted (a concurrent insert of the same id waits
 * for the first to commit, then finds it), existing ones are locked (FOR UPDATE, in id order, so two
 * runs never deadlock on each other's batch) and read with whether their holder's lease is alive on
 * the database's clock. An order held by another live run is left alone (`in_progress_elsewhere`);
 * one whose holder finished or died is taken over, with a lookup when a POST may have reached the API.
 */
import type pg from 'pg';
import { decideIntent } from '../intent.js';
import type { IntentResult, OrderIntent } from '../types.js';
import { intentParams, newRecord, type IntentParams } from '../intent-columns.js';
import { toRecord, type OrderRow } from '../order-row.js';

/** Whether the run that last worked on `o` is alive: unfinished, its lease not yet expired. */
export const HOLDER_ALIVE = `EXISTS (SELECT 1 FROM runs r WHERE r.run_id = o.run_id AND r.finished_at IS NULL AND r.lease_expires_at > clock_timestamp())`;

/** The columns of a batch, as arrays for unnest (one round trip whatever the batch's size). */
function columnArrays(batch: readonly IntentParams[]) {
  return [
    batch.map((c) => c.id),
    batch.map((c) => c.payloadHash),
    batch.map((c) => c.payload),
    batch.map((c) => c.sourceFile),
    batch.map((c) => c.sourceSha256),
    batch.map((c) => c.sourceRows),
    batch.map((c) => c.marketplaceOrderId),
    batch.map((c) => c.sourceOfSale),
    batch.map((c) => c.orderDate),
  ];
}

const UNNEST = `unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::timestamptz[])
  AS v(id, payload_hash, payload, source_file, source_sha256, source_rows, marketplace_order_id, source_of_sale, order_date)`;

/** What claiming needs of the ledger: single statements, and transactions on one connection. */
export interface ClaimDatabase {
  query: pg.ClientBase['query'];
  transaction<T>(work: (client: pg.ClientBase) => Promise<T>): Promise<T>;
}

/** Renews the run's lease ($1 run id, $2 lease in ms) while the run is unfinished; see run.ts. */
export const RENEW_LEASE = `UPDATE runs r SET lease_expires_at = clock_timestamp() + $2::int * interval '1 millisecond'
  FROM (SELECT lease_expires_at FROM runs WHERE run_id = $1) AS before
  WHERE r.run_id = $1 AND r.finished_at IS NULL RETURNING before.lease_expires_at < clock_timestamp() AS was_late`;

/**
 * Records `intents` for run `runId` and decides each one's fate; with `markSending`, those to send
 * come back 'sending' (attempt counted) in the same commit as their record. Orders new to the ledger,
 * the common case, take one statement (the lease renewed, the rows inserted); the rest, one
 * transaction that locks and judges them.
 */
export async function claimIntents(
  db: ClaimDatabase,
  intents: readonly OrderIntent[],
  run: { runId: string; leaseMs: number },
  now: string,
  markSending: boolean,
): Promise<IntentResult[]> {
  const { runId } = run;
  // One entry per id, in id order (the lock order); a repeated id is answered after its first copy.
  const firsts = new Map<string, { intent: OrderIntent; columns: IntentParams }>();
  for (const intent of intents) {
    const columns = intentParams(intent, runId);
    if (!firsts.has(columns.id)) firsts.set(columns.id, { intent, columns });
  }
  const batch = [...firsts.values()].map((f) => f.columns).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const results = new Map<string, IntentResult>();

  const { rows } = await db.query<{ renewed: boolean; ids: string[] }>(
    `WITH lease AS (${RENEW_LEASE.replaceAll('$1', '$14').replaceAll('$2', '$15')}),
     inserted AS (
       INSERT INTO orders (customer_order_id, payload_hash, payload, state, attempts, recorded_at, first_submitted_at, updated_at,
         run_id, source_file, source_sha256, source_rows, marketplace_order_id, source_of_sale, order_date)
       SELECT v.id, v.payload_hash, v.payload, $10, $11, $12, $13, $12, $14, v.source_file, v.source_sha256, v.source_rows::jsonb,
         v.marketplace_order_id, v.source_of_sale, v.order_date
       FROM ${UNNEST} WHERE EXISTS (SELECT 1 FROM lease) ORDER BY v.id
       ON CONFLICT (customer_order_id) DO NOTHING
       RETURNING customer_order_id)
     SELECT EXISTS (SELECT 1 FROM lease) AS renewed, ARRAY(SELECT customer_order_id FROM inserted) AS ids`,
    [...columnArrays(batch), markSending ? 'sending' : 'pending', markSending ? 1 : 0, now, markSending ? now : null, runId, run.leaseMs],
  );
  if (!rows[0]!.renewed) throw new Error(`Run ${runId} has finished already.`);
  for (const id of rows[0]!.ids) {
    const first = firsts.get(id)!;
    const pending = newRecord(first.columns, first.intent, now);
    const record = markSending ? { ...pending, state: 'sending' as const, attempts: 1, firstSubmittedAt: now } : pending;
    results.set(id, { action: decideIntent(null, runId), record, previous: null, payloadChanged: false });
  }

  const existing = batch.filter((c) => !results.has(c.id));
  if (existing.length > 0) {
    const judged = await db.transaction(async (client) => {
      await client.query(RENEW_LEASE, [runId, run.leaseMs]);
      return judgeExisting(client, existing, firsts, runId, now, markSending);
    });
    for (const [id, result] of judged) results.set(id, result);
  }

  const seen = new Set<string>();
  return intents.map((intent) => {
    const id = intent.payload.orderDetails.customerOrderId;
    const result = results.get(id)!;
    if (!seen.has(id)) {
      seen.add(id);
      return result;
    }
    // The same id again in this batch: this run holds it already, as a later batch would find.
    const hash = intentParams(intent, runId).payloadHash;
    return { action: 'duplicate_in_run', record: result.record, previous: result.record, payloadChanged: result.record.payloadHash !== hash };
  });
}

/**
 * Orders the ledger holds already: locked, then judged. Lock first, then read in a statement of its
 * own: under READ COMMITTED the read's snapshot is taken after the locks were granted, so it sees the
 * lease a holder renewed in the commit we waited for (one statement would judge the holder by its
 * snapshot from before the wait). An order another live run holds is left alone.
 */
async function judgeExisting(
  client: pg.ClientBase,
  existing: readonly IntentParams[],
  firsts: ReadonlyMap<string, { columns: IntentParams }>,
  runId: string,
  now: string,
  markSending: boolean,
): Promise<Map<string, IntentResult>> {
  const results = new Map<string, IntentResult>();
  const ids = existing.map((c) => c.id);
  await client.query('SELECT 1 FROM orders WHERE customer_order_id = ANY($1::text[]) ORDER BY customer_order_id FOR UPDATE', [ids]);
  const locked = await client.query<OrderRow & { held: boolean }>(`SELECT o.*, ${HOLDER_ALIVE} AS held FROM orders o WHERE o.customer_order_id = ANY($1::text[])`, [ids]);
  const toSend: IntentParams[] = [];
  const toLookUp: string[] = [];
  for (const row of locked.rows) {
    const previous = toRecord(row);
    const payloadChanged = previous.payloadHash !== firsts.get(previous.customerOrderId)!.columns.payloadHash;
    const heldElsewhere = row.held && previous.runId !== runId && previous.state !== 'accepted';
    const action = heldElsewhere ? 'in_progress_elsewhere' : decideIntent(previous, runId);
    results.set(previous.customerOrderId, { action, record: previous, previous, payloadChanged });
    if (action === 'send') toSend.push(firsts.get(previous.customerOrderId)!.columns);
    else if (action === 'lookup') toLookUp.push(previous.customerOrderId);
  }
  for (const row of await takeOver(client, toSend, toLookUp, runId, now, markSending)) {
    const record = toRecord(row);
    results.set(record.customerOrderId, { ...results.get(record.customerOrderId)!, record });
  }
  return results;
}

/**
 * The run takes over the orders to send (the new intent replaces the record, whose old answer no
 * longer applies) and those to look up (claimed; their state stays, it is what tells the lookup).
 */
async function takeOver(
  client: pg.ClientBase,
  toSend: readonly IntentParams[],
  toLookUp: readonly string[],
  runId: string,
  now: string,
  markSending: boolean,
): Promise<OrderRow[]> {
  const rows: OrderRow[] = [];
  if (toSend.length > 0) {
    const sending = markSending
      ? `state = 'sending', attempts = o.attempts + 1, first_submitted_at = COALESCE(o.first_submitted_at, $10)`
      : `state = 'pending'`;
    const { rows: sent } = await client.query<OrderRow>(
      `UPDATE orders o SET ${sending}, http_status = NULL, request_id = NULL, message = NULL, run_id = $11, updated_at = $10,
         payload_hash = v.payload_hash, payload = v.payload, source_file = v.source_file, source_sha256 = v.source_sha256,
         source_rows = v.source_rows::jsonb, marketplace_order_id = v.marketplace_order_id, source_of_sale = v.source_of_sale,
         order_date = v.order_date
       FROM ${UNNEST} WHERE o.customer_order_id = v.id
       RETURNING o.*`,
      [...columnArrays(toSend), now, runId],
    );
    rows.push(...sent);
  }
  if (toLookUp.length > 0) {
    const { rows: claimed } = await client.query<OrderRow>(
      'UPDATE orders o SET run_id = $2, updated_at = $3 WHERE o.customer_order_id = ANY($1::text[]) RETURNING o.*',
      [toLookUp, runId, now],
    );
    rows.push(...claimed);
  }
  return rows;
}
