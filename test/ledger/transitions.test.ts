import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fingerprintPayload, hashPayload, LedgerStateError, openLedger, type Ledger } from '../../src/ledger/index.js';
import { buildClock, buildIntent } from './builders.js';
import { buildOrderPayload } from '../support/order-payload.js';

let clock: ReturnType<typeof buildClock>;
let ledger: Ledger;
let runId: string;
beforeEach(() => {
  clock = buildClock();
  ledger = openLedger(':memory:', { now: clock.now });
  runId = ledger.startRun({ command: 'import', files: ['orders.csv'] });
});
afterEach(() => ledger.close());

describe('recordIntent', () => {
  it('records a new order as pending with its payload, hash and source', () => {
    const result = ledger.recordIntent(buildIntent('A-1'), runId);
    expect(result.action).toBe('send');
    expect(result.previous).toBeNull();
    expect(result.payloadChanged).toBe(false);
    const record = ledger.get('A-1')!;
    expect(record).toMatchObject({
      customerOrderId: 'A-1',
      state: 'pending',
      attempts: 0,
      runId,
      sourceFile: 'orders.csv',
      sourceSha256: 'abc',
      sourceRows: [2, 3],
      marketplaceOrderId: 'MP-A-1',
      sourceOfSale: 'OtherMarketplace',
      recordedAt: '2031-05-06T07:08:09.000Z',
      firstSubmittedAt: null,
      submittedAt: null,
    });
    expect(record.payload).toEqual(buildIntent('A-1').payload);
    expect(record.payloadHash).toMatch(/^[0-9a-f]{64}$/);
    expect(result.record).toEqual(record);
  });

  it('reports an accepted order as already submitted and leaves it untouched', () => {
    ledger.recordIntent(buildIntent('A-1'), runId);
    ledger.markSending('A-1');
    ledger.markAccepted('A-1', { httpStatus: 201, requestId: 'r1' });
    const before = ledger.get('A-1');
    const nextRun = ledger.startRun({ command: 'import', files: [] });
    const same = ledger.recordIntent(buildIntent('A-1'), nextRun);
    expect(same.action).toBe('already_submitted');
    expect(same.payloadChanged).toBe(false);
    expect(ledger.get('A-1')).toEqual(before);
  });

  it('says when an accepted order comes back with a different payload', () => {
    ledger.recordIntent(buildIntent('A-1', 10), runId);
    ledger.markSending('A-1');
    ledger.markAccepted('A-1', { httpStatus: 201 });
    const changed = ledger.recordIntent(buildIntent('A-1', 12), ledger.startRun({ command: 'import', files: [] }));
    expect(changed.action).toBe('already_submitted');
    expect(changed.payloadChanged).toBe(true);
    expect(ledger.get('A-1')!.payload.orderDetails.lineItems[0]!.unitPrice).toBe(10);
  });

  it('replaces a rejected order with the corrected payload and clears the old answer', () => {
    ledger.recordIntent(buildIntent('A-1', 10), runId);
    ledger.markSending('A-1');
    ledger.markRejected('A-1', { httpStatus: 400, requestId: 'r1', message: 'bad product' });
    const rerun = ledger.startRun({ command: 'import', files: [] });
    const result = ledger.recordIntent(buildIntent('A-1', 12), rerun);
    expect(result.action).toBe('send');
    expect(result.payloadChanged).toBe(true);
    expect(result.previous?.state).toBe('rejected');
    expect(result.record).toMatchObject({ state: 'pending', httpStatus: null, message: null, runId: rerun, attempts: 1 });
    expect(result.record.payload.orderDetails.lineItems[0]!.unitPrice).toBe(12);
  });

  it('claims an unknown order for the new run and asks for a lookup without changing its payload', () => {
    ledger.recordIntent(buildIntent('A-1', 10), runId);
    ledger.markSending('A-1');
    ledger.markUnknown('A-1', { message: 'socket hang up' });
    const rerun = ledger.startRun({ command: 'import', files: [] });
    const result = ledger.recordIntent(buildIntent('A-1', 12), rerun);
    expect(result).toMatchObject({ action: 'lookup', payloadChanged: true });
    expect(result.record).toMatchObject({ state: 'unknown', runId: rerun });
    expect(result.record.payload.orderDetails.lineItems[0]!.unitPrice).toBe(10);
  });

  it('flags the same id twice in one run instead of sending it twice', () => {
    ledger.recordIntent(buildIntent('A-1'), runId);
    expect(ledger.recordIntent(buildIntent('A-1'), runId).action).toBe('duplicate_in_run');
    ledger.markSending('A-1');
    expect(ledger.recordIntent(buildIntent('A-1'), runId).action).toBe('duplicate_in_run');
  });

  it('records a whole batch in one call, deciding each order', () => {
    ledger.recordIntent(buildIntent('B-2'), runId);
    ledger.markSending('B-2');
    ledger.markAccepted('B-2');
    const rerun = ledger.startRun({ command: 'import', files: [] });
    const results = ledger.recordIntents([buildIntent('B-1'), buildIntent('B-2'), buildIntent('B-3'), buildIntent('B-1')], rerun);
    expect(results.map((r) => r.action)).toEqual(['send', 'already_submitted', 'send', 'duplicate_in_run']);
    expect(ledger.countByState()).toMatchObject({ pending: 2, accepted: 1 });
  });
});

describe('prepareSends: intents and first-send marks in one commit', () => {
  it('marks the orders it decides to send as sending, and leaves the others as recordIntent would', () => {
    ledger.recordIntent(buildIntent('B-done'), runId);
    ledger.markSending('B-done');
    ledger.markAccepted('B-done', { httpStatus: 201 });
    ledger.recordIntent(buildIntent('B-lost'), runId);
    ledger.markSending('B-lost');
    const nextRun = ledger.startRun({ command: 'import', files: [] });
    const results = ledger.prepareSends([buildIntent('B-new'), buildIntent('B-done'), buildIntent('B-lost'), buildIntent('B-new')], nextRun);
    expect(results.map((r) => r.action)).toEqual(['send', 'already_submitted', 'lookup', 'duplicate_in_run']);
    const fresh = ledger.get('B-new')!;
    expect(fresh).toMatchObject({ state: 'sending', attempts: 1, firstSubmittedAt: '2031-05-06T07:08:09.000Z', runId: nextRun });
    expect(results[0]!.record).toEqual(fresh);
    // A lookup is marked only once the GET found nothing: the record still says what the last run left.
    expect(ledger.get('B-lost')).toMatchObject({ state: 'sending', attempts: 1, runId: nextRun });
    expect(ledger.get('B-done')!.state).toBe('accepted');
  });

  it("records a fingerprint made ahead, but only one made of the intent's own payload object", () => {
    const own = buildIntent('F-own');
    // Made ahead, it is recorded as it is (a hash the ledger would not make itself shows it was used).
    const fingerprint = { payload: own.payload, json: JSON.stringify(own.payload), hash: 'f'.repeat(64) };
    ledger.prepareSends([{ ...own, fingerprint }], runId);
    expect(ledger.get('F-own')).toMatchObject({ payloadHash: 'f'.repeat(64), payload: own.payload });
    expect(fingerprintPayload(own.payload)).toEqual({ payload: own.payload, json: JSON.stringify(own.payload), hash: hashPayload(own.payload) });
    // A fingerprint of another payload (a caller's slip) is not taken on trust: the ledger makes its own.
    const other = buildIntent('F-other', 99);
    const stranger = fingerprintPayload(buildOrderPayload('F-other', { lines: [{ unitPrice: 10 }] }));
    expect(stranger.hash).not.toBe(hashPayload(other.payload));
    ledger.prepareSends([{ ...other, fingerprint: stranger }], runId);
    expect(ledger.get('F-other')).toMatchObject({ payloadHash: hashPayload(other.payload), payload: other.payload });
  });

  it('releases an order it marked but that was never POSTed back to pending, without the attempt', () => {
    ledger.prepareSends([buildIntent('C-1'), buildIntent('C-2')], runId);
    ledger.releaseUnsent(['C-1']);
    expect(ledger.get('C-1')).toMatchObject({ state: 'pending', attempts: 0, firstSubmittedAt: null });
    expect(ledger.get('C-2')).toMatchObject({ state: 'sending', attempts: 1 });
    // Only a 'sending' record is released: an answered order keeps its answer.
    ledger.markAccepted('C-2', { httpStatus: 201 });
    ledger.releaseUnsent(['C-2']);
    expect(ledger.get('C-2')!.state).toBe('accepted');
    // A later run sends a released order without looking it up first.
    expect(ledger.prepareSends([buildIntent('C-1')], ledger.startRun({ command: 'import', files: [] }))[0]!.action).toBe('send');
  });

  it('records many accepted answers in one call, each with its own details', () => {
    ledger.prepareSends([buildIntent('D-1'), buildIntent('D-2')], runId);
    ledger.markAcceptedMany([
      { customerOrderId: 'D-1', info: { httpStatus: 201, requestId: 'r-1', submittedAt: '2031-05-06T07:00:00.000Z' } },
      { customerOrderId: 'D-2', info: { httpStatus: 201, requestId: 'r-2' } },
    ]);
    expect(ledger.get('D-1')).toMatchObject({ state: 'accepted', requestId: 'r-1', submittedAt: '2031-05-06T07:00:00.000Z' });
    expect(ledger.get('D-2')).toMatchObject({ state: 'accepted', requestId: 'r-2', submittedAt: '2031-05-06T07:08:09.000Z' });
  });
});

describe('transitions', () => {
  it('counts each POST attempt and keeps the time of the first', () => {
    ledger.recordIntent(buildIntent('A-1'), runId);
    ledger.markSending('A-1');
    clock.advance(60_000);
    ledger.markUnknown('A-1', { message: 'timeout' });
    ledger.markSending('A-1');
    expect(ledger.get('A-1')).toMatchObject({
      state: 'sending',
      attempts: 2,
      firstSubmittedAt: '2031-05-06T07:08:09.000Z',
      updatedAt: '2031-05-06T07:09:09.000Z',
    });
  });

  it('accepts with status, request id and submission time', () => {
    ledger.recordIntent(buildIntent('A-1'), runId);
    ledger.markSending('A-1');
    clock.advance(1_500);
    ledger.markAccepted('A-1', { httpStatus: 201, requestId: 'req-9' });
    expect(ledger.get('A-1')).toMatchObject({
      state: 'accepted',
      httpStatus: 201,
      requestId: 'req-9',
      submittedAt: '2031-05-06T07:08:10.500Z',
    });
  });

  it('keeps an accepted order accepted: accepting again changes nothing, rejecting or failing it is refused', () => {
    ledger.recordIntent(buildIntent('A-1'), runId);
    ledger.markSending('A-1');
    ledger.markAccepted('A-1', { httpStatus: 201, requestId: 'first' });
    clock.advance(1_000);
    ledger.markAccepted('A-1', { httpStatus: 200, requestId: 'second' });
    expect(ledger.get('A-1')).toMatchObject({ requestId: 'first', submittedAt: '2031-05-06T07:08:09.000Z' });
    expect(() => ledger.markRejected('A-1', { httpStatus: 409 })).toThrow(LedgerStateError);
    expect(() => ledger.markUnknown('A-1')).toThrow(/it is accepted/);
    expect(() => ledger.markFailed('A-1')).toThrow(LedgerStateError);
    expect(() => ledger.markSending('A-1')).toThrow(LedgerStateError);
  });

  it('records rejected, unknown and failed answers with their status and message', () => {
    for (const id of ['R', 'U', 'F']) {
      ledger.recordIntent(buildIntent(id), runId);
      ledger.markSending(id);
    }
    ledger.markRejected('R', { httpStatus: 409, requestId: 'q1', message: "Order 'R' already exists." });
    ledger.markUnknown('U', { message: 'connection reset' });
    ledger.markFailed('F', { httpStatus: 503, message: 'Service Unavailable' });
    expect(ledger.get('R')).toMatchObject({ state: 'rejected', httpStatus: 409, requestId: 'q1', message: "Order 'R' already exists." });
    expect(ledger.get('U')).toMatchObject({ state: 'unknown', httpStatus: null, message: 'connection reset' });
    expect(ledger.get('F')).toMatchObject({ state: 'failed', httpStatus: 503 });
  });

  it('refuses to send a rejected order until a new intent is recorded', () => {
    ledger.recordIntent(buildIntent('A-1'), runId);
    ledger.markSending('A-1');
    ledger.markRejected('A-1', { httpStatus: 400 });
    expect(() => ledger.markSending('A-1')).toThrow(/cannot mark as sending order 'A-1': it is rejected/);
  });

  it('replaces the payload when a lookup found nothing and the new version goes out', () => {
    ledger.recordIntent(buildIntent('A-1', 10), runId);
    ledger.markSending('A-1');
    ledger.markUnknown('A-1');
    ledger.markSending('A-1', buildIntent('A-1', 12));
    const record = ledger.get('A-1')!;
    expect(record).toMatchObject({ state: 'sending', attempts: 2 });
    expect(record.payload.orderDetails.lineItems[0]!.unitPrice).toBe(12);
    expect(() => ledger.markSending('A-1', buildIntent('OTHER'))).toThrow(/payload of 'OTHER'/);
  });

  it('refuses transitions of an order it has no record of', () => {
    expect(() => ledger.markSending('nope')).toThrow(/no record of order 'nope'/);
    expect(() => ledger.markAccepted('nope')).toThrow(LedgerStateError);
    expect(() => ledger.markRejected('nope', {})).toThrow(LedgerStateError);
    expect(ledger.get('nope')).toBeNull();
  });
});

describe('reading records', () => {
  it('reads more than 999 records at once, ignoring unknown and repeated ids', () => {
    const ids = Array.from({ length: 2_345 }, (_, i) => `M-${i}`);
    ledger.recordIntents(ids.map((id) => buildIntent(id)), runId);
    const found = ledger.getMany([...ids, 'missing-1', ids[0]!, 'missing-2']);
    expect(found.size).toBe(2_345);
    expect(found.get('M-2344')?.customerOrderId).toBe('M-2344');
    expect(found.has('missing-1')).toBe(false);
    expect(ledger.getMany([]).size).toBe(0);
  });

  it('lists accepted orders submitted since an instant, oldest first', () => {
    for (const [i, id] of ['S-1', 'S-2', 'S-3', 'S-4'].entries()) {
      ledger.recordIntent(buildIntent(id), runId);
      ledger.markSending(id);
      if (i !== 3) ledger.markAccepted(id, { submittedAt: new Date(Date.UTC(2031, 0, 10 - i)) });
    }
    const since = ledger.listSubmittedSince('2031-01-09T00:00:00Z');
    expect(since.map((r) => r.customerOrderId)).toEqual(['S-2', 'S-1']);
    expect(ledger.listSubmittedSince(new Date(Date.UTC(2031, 0, 11)))).toEqual([]);
  });

  it('gives the same records in pages, and their count and earliest submittedAt at once', () => {
    // 7 orders sharing one submittedAt, 3 older ones, one not accepted.
    const ids = Array.from({ length: 11 }, (_, i) => `P-${String(i).padStart(2, '0')}`);
    for (const [i, id] of ids.entries()) {
      ledger.recordIntent(buildIntent(id), runId);
      ledger.markSending(id);
      if (i === 10) continue;
      ledger.markAccepted(id, { submittedAt: new Date(Date.UTC(2031, 0, i < 7 ? 20 : 10 + i)) });
    }
    const since = '2031-01-01T00:00:00Z';
    const all = ledger.listSubmittedSince(since);
    expect(all).toHaveLength(10);
    const pages = [...ledger.pagesSubmittedSince(since, 3)];
    expect(pages.map((p) => p.length)).toEqual([3, 3, 3, 1]);
    expect(pages.flat()).toEqual(all.map((r) => ({ customerOrderId: r.customerOrderId, payload: r.payload, submittedAt: r.submittedAt })));
    expect(ledger.summarizeSubmittedSince(since)).toEqual({ count: 10, earliestSubmittedAt: '2031-01-17T00:00:00.000Z' });
    expect(ledger.summarizeSubmittedSince(since, 4)).toEqual({ count: 4, earliestSubmittedAt: '2031-01-17T00:00:00.000Z' });
    expect(ledger.summarizeSubmittedSince('2031-01-20T00:00:00Z', 100)).toEqual({ count: 7, earliestSubmittedAt: '2031-01-20T00:00:00.000Z' });
    expect(ledger.summarizeSubmittedSince('2031-02-01T00:00:00Z')).toEqual({ count: 0, earliestSubmittedAt: null });
    expect([...ledger.pagesSubmittedSince('2031-02-01T00:00:00Z')]).toEqual([]);
  });

  it('iterates every record in pages while other writes go on', () => {
    const ids = Array.from({ length: 25 }, (_, i) => `I-${String(i).padStart(2, '0')}`);
    ledger.recordIntents(ids.map((id) => buildIntent(id)), runId);
    ledger.markSending('I-03');
    ledger.markUnknown('I-03');
    const seen: string[] = [];
    for (const record of ledger.iterateRecords({ pageSize: 7 })) {
      seen.push(record.customerOrderId);
      ledger.setWatermark('reconcile', '2031-01-01T00:00:00Z'); // would throw inside an open cursor
    }
    expect(seen).toEqual(ids);
    expect([...ledger.iterateRecords({ states: ['unknown', 'sending'] })].map((r) => r.customerOrderId)).toEqual(['I-03']);
  });
});
