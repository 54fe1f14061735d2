/** Rows as node-postgres gives them (timestamptz as Date, jsonb parsed), and the records they read as. */
import type { CreateOrderPayload } from '../../contract/schemas.js';
import { hashPayload } from '../hash.js';
import { orderDateColumn } from '../schema.js';
import type { OrderIntent, OrderRecord, OrderState, RunFile, RunRecord } from '../types.js';

export interface PgOrderRow {
  customer_order_id: string;
  payload_hash: string;
  payload: string;
  state: OrderState;
  attempts: number;
  http_status: number | null;
  request_id: string | null;
  message: string | null;
  recorded_at: Date;
  first_submitted_at: Date | null;
  submitted_at: Date | null;
  updated_at: Date;
  run_id: string | null;
  source_file: string | null;
  source_sha256: string | null;
  source_rows: number[];
  marketplace_order_id: string | null;
  source_of_sale: string | null;
}

export interface PgRunRow {
  run_id: string;
  command: string;
  files: RunFile[];
  started_at: Date;
  finished_at: Date | null;
  summary: unknown;
  result_files: string[];
  pid: number;
  host: string;
}

export function iso(value: Date | null): string | null {
  return value === null ? null : value.toISOString();
}

export function toOrderRecord(row: PgOrderRow): OrderRecord {
  return {
    customerOrderId: row.customer_order_id,
    payloadHash: row.payload_hash,
    payload: JSON.parse(row.payload) as CreateOrderPayload,
    state: row.state,
    attempts: row.attempts,
    httpStatus: row.http_status,
    requestId: row.request_id,
    message: row.message,
    recordedAt: row.recorded_at.toISOString(),
    firstSubmittedAt: iso(row.first_submitted_at),
    submittedAt: iso(row.submitted_at),
    updatedAt: row.updated_at.toISOString(),
    runId: row.run_id,
    sourceFile: row.source_file,
    sourceSha256: row.source_sha256,
    sourceRows: row.source_rows,
    marketplaceOrderId: row.marketplace_order_id,
    sourceOfSale: row.source_of_sale,
  };
}

export function toRunRecord(row: PgRunRow): RunRecord {
  return {
    runId: row.run_id,
    command: row.command,
    files: row.files,
    startedAt: row.started_at.toISOString(),
    finishedAt: iso(row.finished_at),
    summary: row.summary ?? null,
    resultFiles: row.result_files,
    pid: row.pid,
    host: row.host,
  };
}

/** The columns an intent sets, worked out once (the payload's JSON and hash are reused when the caller made them). */
export interface IntentColumns {
  id: string;
  payloadHash: string;
  payload: string;
  sourceFile: string | null;
  sourceSha256: string | null;
  sourceRows: string;
  marketplaceOrderId: string | null;
  sourceOfSale: string | null;
  orderDate: string | null;
}

export function intentColumns(intent: OrderIntent): IntentColumns {
  const payload: CreateOrderPayload = intent.payload;
  const made = intent.fingerprint?.payload === payload ? intent.fingerprint : undefined;
  return {
    id: payload.orderDetails.customerOrderId,
    payloadHash: made?.hash ?? hashPayload(payload),
    payload: made?.json ?? JSON.stringify(payload),
    sourceFile: intent.sourceFile ?? null,
    sourceSha256: intent.sourceSha256 ?? null,
    sourceRows: JSON.stringify(intent.sourceRows ?? []),
    marketplaceOrderId: payload.orderDetails.marketplaceOrderId ?? null,
    sourceOfSale: payload.orderDetails.sourceOfSale ?? null,
    orderDate: orderDateColumn(payload.orderDetails.orderDate),
  };
}

/** The record a fresh INSERT makes of these columns, without reading it back (it shares the intent's payload object). */
export function newOrderRecord(columns: IntentColumns, intent: OrderIntent, runId: string, now: string, sending: boolean): OrderRecord {
  return {
    customerOrderId: columns.id,
    payloadHash: columns.payloadHash,
    payload: intent.payload,
    state: sending ? 'sending' : 'pending',
    attempts: sending ? 1 : 0,
    httpStatus: null,
    requestId: null,
    message: null,
    recordedAt: now,
    firstSubmittedAt: sending ? now : null,
    submittedAt: null,
    updatedAt: now,
    runId,
    sourceFile: columns.sourceFile,
    sourceSha256: columns.sourceSha256,
    sourceRows: [...(intent.sourceRows ?? [])],
    marketplaceOrderId: columns.marketplaceOrderId,
    sourceOfSale: columns.sourceOfSale,
  };
}
