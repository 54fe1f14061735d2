/**
 * The columns an order intent writes, and the record its first INSERT makes: the same for the SQLite
 * and the PostgreSQL ledger.
 */
import { parseApiInstant } from '../contract/instant.js';
import type { CreateOrderPayload } from '../contract/schemas.js';
import { hashPayload } from './hash.js';
import type { OrderIntent, OrderRecord } from './types.js';

/**
 * The order_date column of a payload's orderDate: the instant as ISO 8601 UTC (the form of every
 * other time in the ledger, so they compare as text); null when it is not a date-time.
 */
export function orderDateColumn(orderDate: unknown): string | null {
  const ms = typeof orderDate === 'string' ? parseApiInstant(orderDate) : null;
  return ms === null ? null : new Date(ms).toISOString();
}

/** The columns an intent sets, worked out once (the payload's JSON and hash are reused when the caller made them). */
export function intentParams(intent: OrderIntent, runId: string | null) {
  const payload: CreateOrderPayload = intent.payload;
  const made = intent.fingerprint?.payload === payload ? intent.fingerprint : undefined;
  return {
    id: payload.orderDetails.customerOrderId,
    payloadHash: made?.hash ?? hashPayload(payload),
    payload: made?.json ?? JSON.stringify(payload),
    runId,
    sourceFile: intent.sourceFile ?? null,
    sourceSha256: intent.sourceSha256 ?? null,
    sourceRows: JSON.stringify(intent.sourceRows ?? []),
    marketplaceOrderId: payload.orderDetails.marketplaceOrderId ?? null,
    sourceOfSale: payload.orderDetails.sourceOfSale ?? null,
    orderDate: orderDateColumn(payload.orderDetails.orderDate),
  };
}

export type IntentParams = ReturnType<typeof intentParams>;

/** The record INSERT creates from `params` (the schema's defaults for the rest); it shares the intent's payload object. */
export function newRecord(params: IntentParams, intent: OrderIntent, now: string): OrderRecord {
  return {
    customerOrderId: params.id,
    payloadHash: params.payloadHash,
    payload: intent.payload,
    state: 'pending',
    attempts: 0,
    httpStatus: null,
    requestId: null,
    message: null,
    recordedAt: now,
    firstSubmittedAt: null,
    submittedAt: null,
    updatedAt: now,
    runId: params.runId,
    sourceFile: params.sourceFile,
    sourceSha256: params.sourceSha256,
    sourceRows: [...(intent.sourceRows ?? [])],
    marketplaceOrderId: params.marketplaceOrderId,
    sourceOfSale: params.sourceOfSale,
  };
}
