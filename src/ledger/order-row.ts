/** An orders row as SQLite gives it, and the OrderRecord it reads as. */
import type { CreateOrderPayload } from '../contract/schemas.js';
import type { OrderRecord, OrderState } from './types.js';

export interface OrderRow {
  customer_order_id: string;
  payload_hash: string;
  payload: string;
  state: OrderState;
  attempts: number;
  http_status: number | null;
  request_id: string | null;
  message: string | null;
  recorded_at: string;
  first_submitted_at: string | null;
  submitted_at: string | null;
  updated_at: string;
  run_id: string | null;
  source_file: string | null;
  source_sha256: string | null;
  source_rows: string;
  marketplace_order_id: string | null;
  source_of_sale: string | null;
  /** The payload's orderDate as ISO 8601 UTC (schema version 3); null when it is not a date-time. */
  order_date: string | null;
}

export function toRecord(row: OrderRow): OrderRecord {
  return {
    customerOrderId: row.customer_order_id,
    payloadHash: row.payload_hash,
    payload: JSON.parse(row.payload) as CreateOrderPayload,
    state: row.state,
    attempts: row.attempts,
    httpStatus: row.http_status,
    requestId: row.request_id,
    message: row.message,
    recordedAt: row.recorded_at,
    firstSubmittedAt: row.first_submitted_at,
    submittedAt: row.submitted_at,
    updatedAt: row.updated_at,
    runId: row.run_id,
    sourceFile: row.source_file,
    sourceSha256: row.source_sha256,
    sourceRows: JSON.parse(row.source_rows) as number[],
    marketplaceOrderId: row.marketplace_order_id,
    sourceOfSale: row.source_of_sale,
  };
}
