/**
 * An order invalid today only because its orderDate aged past the API's window is the same order it
 * was when it was sent: rebuilt as of another instant it gives that very payload, and import lets it
 * through only when the ledger holds that payload (by hash) in a state whose POST may have happened.
 */
import { describe, expect, it } from 'vitest';
import { payloadOfAgedOrder } from '../../src/validate/online-checks.js';
import { hashPayload } from '../../src/ledger/hash.js';
import type { OrderRecord, OrderState } from '../../src/ledger/types.js';
import type { CreateOrderPayload } from '../../src/contract/schemas.js';
import { checkOne, codes, contextAt, validRow } from './support.js';

const SENT_AT = new Date('2026-11-20T12:00:00Z');
const LATER = new Date('2026-12-30T12:00:00Z');
const ORDER_DATE_MS = Date.parse('2026-11-19T14:30:00Z');

function recordOf(payload: CreateOrderPayload, state: OrderState, hash = hashPayload(payload)): OrderRecord {
  return {
    customerOrderId: payload.orderDetails.customerOrderId, payloadHash: hash, payload, state, attempts: 1, httpStatus: null, requestId: null,
    message: null, recordedAt: SENT_AT.toISOString(), firstSubmittedAt: SENT_AT.toISOString(), submittedAt: null, updatedAt: SENT_AT.toISOString(),
    runId: 'run-1', sourceFile: null, sourceSha256: null, sourceRows: [2], marketplaceOrderId: null, sourceOfSale: null,
  };
}

describe('an order checked after its orderDate aged', () => {
  it('is invalid with no payload, yet rebuilt as of its orderDate gives the payload it was sent with', async () => {
    const sent = (await checkOne([validRow()], contextAt(SENT_AT))).payload!;
    const aged = await checkOne([validRow()], contextAt(LATER));
    expect(aged.status).toBe('invalid');
    expect(codes(aged)).toEqual(['order_date_too_old']);
    expect(aged.payload).toBeUndefined();
    expect(aged.payloadAsOf!(ORDER_DATE_MS)).toEqual(sent);
    expect(aged.payloadAsOf!(LATER.getTime())).toBeUndefined();
  });

  it('goes through only when the ledger holds that very payload in a state whose POST may have happened', async () => {
    const sent = (await checkOne([validRow()], contextAt(SENT_AT))).payload!;
    const aged = await checkOne([validRow()], contextAt(LATER));
    for (const state of ['accepted', 'sending', 'unknown', 'failed'] as const) expect(payloadOfAgedOrder(aged, recordOf(sent, state))).toEqual(sent);
    for (const state of ['pending', 'rejected'] as const) expect(payloadOfAgedOrder(aged, recordOf(sent, state))).toBeUndefined();
    expect(payloadOfAgedOrder(aged, undefined)).toBeUndefined();
    expect(payloadOfAgedOrder(aged, recordOf(sent, 'accepted', 'another-hash'))).toBeUndefined();
  });

  it('never when another error stands beside the date, or the sheet was edited since', async () => {
    const sent = (await checkOne([validRow()], contextAt(SENT_AT))).payload!;
    const wrongTotal = await checkOne([validRow({ grandTotal: '99.00' })], contextAt(LATER));
    expect(codes(wrongTotal)).toEqual(expect.arrayContaining(['order_date_too_old', 'grand_total_mismatch']));
    expect(payloadOfAgedOrder(wrongTotal, recordOf(sent, 'accepted'))).toBeUndefined();
    const edited = await checkOne([validRow({ addressLine1: '9 Elm St' })], contextAt(LATER));
    expect(payloadOfAgedOrder(edited, recordOf(sent, 'accepted'))).toBeUndefined();
  });
});
