/**
 * The Ledger contract (src/ledger/types.ts), the same for every backend: each test runs against each
 * entry of BACKENDS. Tests of what only one concurrency model does say so with runIf.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LedgerBusyError, LedgerClaimLostError, LedgerStateError } from '../../src/ledger/errors.js';
import { fingerprintPayload, hashPayload } from '../../src/ledger/hash.js';
import type { Ledger, LedgerOptions, LedgerRun } from '../../src/ledger/types.js';
import { BACKENDS, type LedgerUnderTest } from './backends.js';
import { buildOrderPayload, ORDER_DATE } from '../support/order-payload.js';
import { buildClock, buildIntent, collect } from './builders.js';

describe.each(BACKENDS)('the $name ledger', (backend) => {
  let store: LedgerUnderTest;
  let clock: ReturnType<typeof buildClock>;
  let opened: Ledger[];
  /** Another connection to the test's ledger, as another process would open it. */
  const open = async (options: LedgerOptions = {}): Promise<Ledger> => {
    const ledger = await store.open({ now: clock.now, ...options });
    opened.push(ledger);
    return ledger;
  };
  const startImport = (ledger: Ledger): Promise<LedgerRun> => ledger.startRun({ command: 'import', files: ['orders.csv'] });

  beforeEach(async () => {
    clock = buildClock();
    opened = [];
    store = await backend.create();
  });
  afterEach(async () => {
    for (const ledger of opened) await ledger.close();
    await store.drop();
  });

  describe('deciding what each run sends', () => {
    it('records new orders and marks those it sends as sending in the same commit', async () => {
      const ledger = await open();
      const run = await startImport(ledger);
      const results = await run.prepareSends([buildIntent('A-1'), buildIntent('A-2')]);
      expect(results.map((r) => r.action)).toEqual(['send', 'send']);
      const record = await ledger.get('A-1');
      expect(record).toMatchObject({ state: 'sending', attempts: 1, runId: run.runId, firstSubmittedAt: '2031-05-06T07:08:09.000Z', sourceRows: [2, 3] });
      expect(results[0]!.record).toEqual(record);
    });

    it('holds an order once per run: a second copy in the same run is a duplicate, not a second send', async () => {
      const run = await startImport(await open());
      const results = await run.prepareSends([buildIntent('A-1'), buildIntent('A-1')]);
      expect(results.map((r) => r.action)).toEqual(['send', 'duplicate_in_run']);
    });

    it('never sends an accepted order again, and says when the sheet now holds other contents', async () => {
      const ledger = await open();
      const first = await startImport(ledger);
      await first.prepareSends([buildIntent('A-1', 10)]);
      await first.markAccepted('A-1', { httpStatus: 201, requestId: 'r-1' });
      await first.finish({ summary: { accepted: 1 } });
      const before = await ledger.get('A-1');
      const next = await startImport(ledger);
      const [same, changed] = [(await next.prepareSends([buildIntent('A-1', 10)]))[0]!, (await next.recordIntents([buildIntent('A-1', 12)]))[0]!];
      expect(same).toMatchObject({ action: 'already_submitted', payloadChanged: false });
      expect(changed).toMatchObject({ action: 'already_submitted', payloadChanged: true });
      expect(await ledger.get('A-1')).toEqual(before);
    });

    it('has the next run look up what a finished run left unanswered, and send again what it never sent', async () => {
      const ledger = await open();
      const first = await startImport(ledger);
      await first.prepareSends([buildIntent('U-1'), buildIntent('R-1'), buildIntent('P-1')]);
      await first.markUnknown('U-1', { message: 'socket hang up' });
      await first.markRejected('R-1', { httpStatus: 400, message: 'bad product' });
      await first.releaseUnsent(['P-1']);
      await first.finish({ summary: {} });
      const next = await startImport(ledger);
      const results = await next.prepareSends([buildIntent('U-1'), buildIntent('R-1', 12), buildIntent('P-1')]);
      expect(results.map((r) => r.action)).toEqual(['lookup', 'send', 'send']);
      // A lookup changes nothing but the holder until the GET has answered.
      expect(await ledger.get('U-1')).toMatchObject({ state: 'unknown', attempts: 1, runId: next.runId });
      expect(await ledger.get('R-1')).toMatchObject({ state: 'sending', attempts: 2, httpStatus: null, message: null, runId: next.runId });
      expect(await ledger.get('P-1')).toMatchObject({ state: 'sending', attempts: 1 });
      // The lookup found nothing: the sheet's payload goes out.
      await next.markSending('U-1', buildIntent('U-1', 15));
      const resent = await ledger.get('U-1');
      expect(resent).toMatchObject({ state: 'sending', attempts: 2 });
      expect(resent!.payload.orderDetails.lineItems[0]!.unitPrice).toBe(15);
    });

    it('records nothing more for a run once it has finished', async () => {
      const ledger = await open();
      const run = await startImport(ledger);
      await run.prepareSends([buildIntent('A-1')]);
      await run.finish({ summary: {} });
      await expect(run.markAccepted('A-1')).rejects.toThrow();
      expect((await ledger.get('A-1'))!.state).toBe('sending');
    });
  });

  describe('transitions', () => {
    let ledger: Ledger;
    let run: LedgerRun;
    beforeEach(async () => {
      ledger = await open();
      run = await startImport(ledger);
    });

    it('records a new order as pending with its payload, hash and source', async () => {
      const result = await run.recordIntent(buildIntent('A-1'));
      expect(result).toMatchObject({ action: 'send', previous: null, payloadChanged: false });
      const record = (await ledger.get('A-1'))!;
      expect(record).toMatchObject({
        customerOrderId: 'A-1',
        state: 'pending',
        attempts: 0,
        runId: run.runId,
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
      expect(record.payloadHash).toBe(hashPayload(record.payload));
      expect(result.record).toEqual(record);
    });

    it('records a whole batch in one call, deciding each order', async () => {
      await run.recordIntent(buildIntent('B-2'));
      await run.markSending('B-2');
      await run.markAccepted('B-2');
      await run.finish({ summary: {} });
      const rerun = await startImport(ledger);
      const results = await rerun.recordIntents([buildIntent('B-1'), buildIntent('B-2'), buildIntent('B-3'), buildIntent('B-1')]);
      expect(results.map((r) => r.action)).toEqual(['send', 'already_submitted', 'send', 'duplicate_in_run']);
      expect(await ledger.countByState()).toEqual({ pending: 2, sending: 0, unknown: 0, accepted: 1, rejected: 0, failed: 0 });
    });

    it("records a fingerprint made ahead, but only one made of the intent's own payload object", async () => {
      const own = buildIntent('F-own');
      // Made ahead, it is recorded as it is (a hash the ledger would not make itself shows it was used).
      const fingerprint = { payload: own.payload, json: JSON.stringify(own.payload), hash: 'f'.repeat(64) };
      await run.prepareSends([{ ...own, fingerprint }]);
      expect(await ledger.get('F-own')).toMatchObject({ payloadHash: 'f'.repeat(64), payload: own.payload });
      // A fingerprint of another payload (a caller's slip) is not taken on trust: the ledger makes its own.
      const other = buildIntent('F-other', 99);
      const stranger = fingerprintPayload(buildOrderPayload('F-other', { lines: [{ unitPrice: 10 }] }));
      await run.prepareSends([{ ...other, fingerprint: stranger }]);
      expect(await ledger.get('F-other')).toMatchObject({ payloadHash: hashPayload(other.payload), payload: other.payload });
    });

    it('releases an order it marked but never POSTed back to pending, without the attempt; an answered one keeps its answer', async () => {
      await run.prepareSends([buildIntent('C-1'), buildIntent('C-2')]);
      await run.releaseUnsent(['C-1']);
      expect(await ledger.get('C-1')).toMatchObject({ state: 'pending', attempts: 0, firstSubmittedAt: null });
      expect(await ledger.get('C-2')).toMatchObject({ state: 'sending', attempts: 1 });
      await run.markAccepted('C-2', { httpStatus: 201 });
      await run.releaseUnsent(['C-2']);
      expect((await ledger.get('C-2'))!.state).toBe('accepted');
    });

    it('records many accepted answers in one call, each with its own details', async () => {
      await run.prepareSends([buildIntent('D-1'), buildIntent('D-2')]);
      await run.markAcceptedMany([
        { customerOrderId: 'D-1', info: { httpStatus: 201, requestId: 'r-1', submittedAt: '2031-05-06T07:00:00.000Z' } },
        { customerOrderId: 'D-2', info: { httpStatus: 201, requestId: 'r-2' } },
      ]);
      expect(await ledger.get('D-1')).toMatchObject({ state: 'accepted', requestId: 'r-1', submittedAt: '2031-05-06T07:00:00.000Z' });
      expect(await ledger.get('D-2')).toMatchObject({ state: 'accepted', requestId: 'r-2', submittedAt: '2031-05-06T07:08:09.000Z' });
    });

    it('counts each POST attempt and keeps the time of the first', async () => {
      await run.recordIntent(buildIntent('A-1'));
      await run.markSending('A-1');
      clock.advance(60_000);
      await run.markUnknown('A-1', { message: 'timeout' });
      await run.markSending('A-1');
      expect(await ledger.get('A-1')).toMatchObject({ state: 'sending', attempts: 2, firstSubmittedAt: '2031-05-06T07:08:09.000Z', updatedAt: '2031-05-06T07:09:09.000Z' });
    });

    it('keeps an accepted order accepted: accepting again changes nothing, rejecting, failing or sending it is refused', async () => {
      await run.recordIntent(buildIntent('A-1'));
      await run.markSending('A-1');
      clock.advance(1_500);
      await run.markAccepted('A-1', { httpStatus: 201, requestId: 'first' });
      clock.advance(1_000);
      await run.markAccepted('A-1', { httpStatus: 200, requestId: 'second' });
      expect(await ledger.get('A-1')).toMatchObject({ state: 'accepted', httpStatus: 201, requestId: 'first', submittedAt: '2031-05-06T07:08:10.500Z' });
      await expect(run.markRejected('A-1', { httpStatus: 409 })).rejects.toThrow(LedgerStateError);
      await expect(run.markUnknown('A-1')).rejects.toThrow(/it is accepted/);
      await expect(run.markFailed('A-1')).rejects.toThrow(LedgerStateError);
      await expect(run.markSending('A-1')).rejects.toThrow(LedgerStateError);
    });

    it('records rejected, unknown and failed answers with their status and message', async () => {
      await run.prepareSends([buildIntent('R'), buildIntent('U'), buildIntent('F')]);
      await run.markRejected('R', { httpStatus: 409, requestId: 'q1', message: "Order 'R' already exists." });
      await run.markUnknown('U', { message: 'connection reset' });
      await run.markFailed('F', { httpStatus: 503, message: 'Service Unavailable' });
      expect(await ledger.get('R')).toMatchObject({ state: 'rejected', httpStatus: 409, requestId: 'q1', message: "Order 'R' already exists." });
      expect(await ledger.get('U')).toMatchObject({ state: 'unknown', httpStatus: null, message: 'connection reset' });
      expect(await ledger.get('F')).toMatchObject({ state: 'failed', httpStatus: 503 });
    });

    it('refuses to send a rejected order until a new intent is recorded, and a payload of another order', async () => {
      await run.prepareSends([buildIntent('A-1')]);
      await run.markRejected('A-1', { httpStatus: 400 });
      await expect(run.markSending('A-1')).rejects.toThrow(/cannot mark as sending order 'A-1': it is rejected/);
      await run.prepareSends([buildIntent('A-2')]);
      await run.markUnknown('A-2');
      await expect(run.markSending('A-2', buildIntent('OTHER'))).rejects.toThrow(/payload of 'OTHER'/);
    });

    it('refuses transitions of an order it has no record of', async () => {
      await expect(run.markSending('nope')).rejects.toThrow(/no record of order 'nope'/);
      await expect(run.markAccepted('nope')).rejects.toThrow(LedgerStateError);
      await expect(run.markRejected('nope', {})).rejects.toThrow(LedgerStateError);
      expect(await ledger.get('nope')).toBeNull();
    });
  });

  describe('reading records', () => {
    let ledger: Ledger;
    let run: LedgerRun;
    beforeEach(async () => {
      ledger = await open();
      run = await startImport(ledger);
    });

    it('reads more than 999 records and their states at once, ignoring unknown and repeated ids', async () => {
      const ids = Array.from({ length: 2_345 }, (_, i) => `M-${i}`);
      await run.recordIntents(ids.map((id) => buildIntent(id)));
      await run.markSending('M-7');
      await run.markUnknown('M-7');
      const found = await ledger.getMany([...ids, 'missing-1', ids[0]!, 'missing-2']);
      expect(found.size).toBe(2_345);
      expect(found.get('M-2344')?.customerOrderId).toBe('M-2344');
      expect(found.has('missing-1')).toBe(false);
      expect((await ledger.getMany([])).size).toBe(0);
      const states = await ledger.statesOf([...ids, 'NOT-THERE', 'M-7']);
      expect(states.size).toBe(2_345);
      expect(states.get('M-7')).toBe('unknown');
      expect(states.get('M-0')).toBe('pending');
      expect(states.has('NOT-THERE')).toBe(false);
    });

    it('lists accepted orders submitted since an instant, oldest first, in pages, with their count and earliest submittedAt', async () => {
      // 7 orders sharing one submittedAt, 3 older ones, one not accepted.
      const ids = Array.from({ length: 11 }, (_, i) => `P-${String(i).padStart(2, '0')}`);
      await run.prepareSends(ids.map((id) => buildIntent(id)));
      for (const [i, id] of ids.entries()) {
        if (i !== 10) await run.markAccepted(id, { submittedAt: new Date(Date.UTC(2031, 0, i < 7 ? 20 : 10 + i)) });
      }
      const since = '2031-01-01T00:00:00Z';
      const all = await ledger.listSubmittedSince(since);
      expect(all.map((r) => r.customerOrderId)).toEqual(['P-07', 'P-08', 'P-09', 'P-00', 'P-01', 'P-02', 'P-03', 'P-04', 'P-05', 'P-06']);
      const pages = await collect(ledger.pagesSubmittedSince(since, 3));
      expect(pages.map((p) => p.length)).toEqual([3, 3, 3, 1]);
      expect(pages.flat()).toEqual(all.map((r) => ({ customerOrderId: r.customerOrderId, payload: r.payload, submittedAt: r.submittedAt })));
      expect(await ledger.summarizeSubmittedSince(since)).toEqual({ count: 10, earliestSubmittedAt: '2031-01-17T00:00:00.000Z' });
      expect(await ledger.summarizeSubmittedSince(since, 4)).toEqual({ count: 4, earliestSubmittedAt: '2031-01-17T00:00:00.000Z' });
      expect(await ledger.summarizeSubmittedSince('2031-01-20T00:00:00Z', 100)).toEqual({ count: 7, earliestSubmittedAt: '2031-01-20T00:00:00.000Z' });
      expect(await ledger.summarizeSubmittedSince('2031-02-01T00:00:00Z')).toEqual({ count: 0, earliestSubmittedAt: null });
      expect(await collect(ledger.pagesSubmittedSince('2031-02-01T00:00:00Z'))).toEqual([]);
      expect(await ledger.earliestOrderDateSince(since)).toBe(ORDER_DATE);
      expect(await ledger.earliestOrderDateSince('2031-02-01T00:00:00Z')).toBeNull();
    });

    it('iterates every record in pages while other writes go on', async () => {
      const ids = Array.from({ length: 25 }, (_, i) => `I-${String(i).padStart(2, '0')}`);
      await run.recordIntents(ids.map((id) => buildIntent(id)));
      await run.markSending('I-03');
      await run.markUnknown('I-03');
      const seen: string[] = [];
      for await (const record of ledger.iterateRecords({ pageSize: 7 })) {
        seen.push(record.customerOrderId);
        await ledger.setWatermark('reconcile', '2031-01-01T00:00:00Z');
      }
      expect(seen).toEqual(ids);
      expect((await collect(ledger.iterateRecords({ states: ['unknown', 'sending'] }))).map((r) => r.customerOrderId)).toEqual(['I-03']);
    });
  });

  describe('a run that dies', () => {
    it('leaves every order it may have sent to be looked up, and its run unfinished in history', async () => {
      const dying = await open();
      const run = await startImport(dying);
      await run.prepareSends([buildIntent('A-1'), buildIntent('A-2'), buildIntent('A-3')]);
      await run.markAccepted('A-1', { httpStatus: 201 });
      await run.releaseUnsent(['A-3']);
      // Closed without finishing: what a killed process leaves behind.
      await dying.close();
      const ledger = await open();
      const next = await startImport(ledger);
      const results = await next.prepareSends([buildIntent('A-1'), buildIntent('A-2'), buildIntent('A-3')]);
      expect(results.map((r) => r.action)).toEqual(['already_submitted', 'lookup', 'send']);
      expect(await ledger.getRun(run.runId)).toMatchObject({ command: 'import', finishedAt: null });
    });
  });

  describe.runIf(!backend.hasConcurrentRuns)('one run at a time', () => {
    it('keeps a second run out while one holds the ledger, and lets it in once that one is done', async () => {
      const first = await open();
      const second = await open();
      const lock = await first.acquireRunLock({ command: 'import' });
      await expect(second.acquireRunLock({ command: 'import' })).rejects.toThrow(LedgerBusyError);
      await lock.release();
      await (await second.acquireRunLock({ command: 'import' })).release();
    });
  });

  describe.runIf(backend.hasConcurrentRuns)('several runs at once', () => {
    it('lets every run start: claims, not a lock, keep them apart', async () => {
      const locks = [await (await open()).acquireRunLock({ command: 'import' }), await (await open()).acquireRunLock({ command: 'import' })];
      for (const lock of locks) await lock.release();
    });

    it('leaves an order another live run holds alone, whatever state that run has put it in', async () => {
      const holder = await startImport(await open());
      const ledger = await open();
      const other = await startImport(ledger);
      await holder.prepareSends([buildIntent('H-1'), buildIntent('H-2')]);
      await holder.markRejected('H-2', { httpStatus: 400 });
      const held = [await ledger.get('H-1'), await ledger.get('H-2')];
      const results = await other.prepareSends([buildIntent('H-1', 12), buildIntent('H-2', 12), buildIntent('F-1')]);
      expect(results.map((r) => r.action)).toEqual(['in_progress_elsewhere', 'in_progress_elsewhere', 'send']);
      expect(results[0]!.record.runId).toBe(holder.runId);
      expect([await ledger.get('H-1'), await ledger.get('H-2')]).toEqual(held);
      expect((await other.recordIntents([buildIntent('H-1')]))[0]!.action).toBe('in_progress_elsewhere');
    });

    it("frees a run's orders when it finishes: accepted ones are done, the rest go the usual way", async () => {
      const holder = await startImport(await open());
      await holder.prepareSends([buildIntent('A-1'), buildIntent('U-1')]);
      await holder.markAccepted('A-1', { httpStatus: 201 });
      await holder.markUnknown('U-1');
      const other = await startImport(await open());
      await holder.finish({ summary: {} });
      expect((await other.prepareSends([buildIntent('A-1'), buildIntent('U-1')])).map((r) => r.action)).toEqual(['already_submitted', 'lookup']);
    });

    it('takes over at once the orders of a run whose ledger was closed under it (its process died)', async () => {
      const dying = await open();
      const holder = await startImport(dying);
      await holder.prepareSends([buildIntent('D-1')]);
      const other = await startImport(await open());
      await dying.close();
      expect((await other.prepareSends([buildIntent('D-1')]))[0]!.action).toBe('lookup');
    });

    it('takes over the orders of a run whose lease expired, and refuses that run any further record of them', async () => {
      const stalled = await startImport(await open());
      await stalled.prepareSends([buildIntent('S-1'), buildIntent('S-2')]);
      await stalled.releaseUnsent(['S-2']);
      await store.expireLease!(stalled.runId);
      const ledger = await open();
      const other = await startImport(ledger);
      expect((await other.prepareSends([buildIntent('S-1'), buildIntent('S-2')])).map((r) => r.action)).toEqual(['lookup', 'send']);
      const taken = [await ledger.get('S-1'), await ledger.get('S-2')];
      await expect(stalled.markUnknown('S-1')).rejects.toThrow(LedgerClaimLostError);
      await expect(stalled.markSending('S-2')).rejects.toThrow(LedgerClaimLostError);
      await expect(stalled.prepareSends([buildIntent('S-2')])).resolves.toMatchObject([{ action: 'in_progress_elsewhere' }]);
      expect([await ledger.get('S-1'), await ledger.get('S-2')]).toEqual(taken);
    });

    it("records the stalled run's accepted answer whoever holds the order, so the run that took it over does not send it again", async () => {
      const stalled = await startImport(await open());
      await stalled.prepareSends([buildIntent('S-1')]);
      await store.expireLease!(stalled.runId);
      const ledger = await open();
      const other = await startImport(ledger);
      expect((await other.prepareSends([buildIntent('S-1')]))[0]!.action).toBe('lookup');
      await stalled.markAccepted('S-1', { httpStatus: 201, requestId: 'r-1' });
      expect(await ledger.get('S-1')).toMatchObject({ state: 'accepted', requestId: 'r-1', runId: other.runId });
      await expect(other.markSending('S-1')).rejects.toThrow(LedgerStateError);
    });

    it('confirms before a POST that the run still holds an order it marked ahead, once its lease may have lapsed', async () => {
      let leaseClock = 0;
      const stalled = await startImport(await open({ leaseClock: () => leaseClock, claimLeaseMs: 60_000 }));
      await stalled.prepareSends([buildIntent('S-1'), buildIntent('S-2')]);
      // Renewed a moment ago: no question asked.
      await expect(stalled.confirmHold('S-1')).resolves.toBeUndefined();
      await store.expireLease!(stalled.runId);
      const other = await startImport(await open());
      await other.prepareSends([buildIntent('S-1')]);
      leaseClock += 60_000;
      await expect(stalled.confirmHold('S-1')).rejects.toThrow(LedgerClaimLostError);
      // Not taken by anyone while the lease had lapsed: the run holds it again, its lease renewed.
      await expect(stalled.confirmHold('S-2')).resolves.toBeUndefined();
    });
  });

  describe('the send gate', () => {
    it('lets the run\'s share in at once, the next when one leaves, and no one once it is closed', async () => {
      const gate = await (await open()).openSendGate({ share: 2 });
      const leave = [await gate.enter(), await gate.enter()];
      let hasEntered = false;
      const entering = gate.enter().then((release) => {
        hasEntered = true;
        return release;
      });
      await nextTurn();
      expect(hasEntered).toBe(false);
      await leave[0]!();
      await leave[0]!(); // twice: still one place given back
      const third = await entering;
      const aborted = new AbortController();
      const waiting = gate.enter(aborted.signal);
      aborted.abort(new Error('interrupted'));
      await expect(waiting).rejects.toThrow('interrupted');
      await third();
      await leave[1]!();
      await gate.close();
      await expect(gate.enter()).rejects.toThrow(/closed/);
    });
  });

  describe('runs, settings and watermarks', () => {
    it('keeps runs newest first with their files, summary and result files', async () => {
      const ledger = await open();
      const first = await ledger.startRun({ command: 'import', files: [{ file: 'a.csv', sha256: 'aa', rows: 3, orders: 2 }] });
      clock.advance(5_000);
      await first.finish({ summary: { accepted: 2 }, resultFiles: ['a.result.xlsx'] });
      clock.advance(60_000);
      const second = await ledger.startRun({ command: 'reconcile', files: ['b.csv'] });
      const runs = await (await open()).listRuns();
      expect(runs.map((r) => r.runId)).toEqual([second.runId, first.runId]);
      expect(runs[1]).toMatchObject({
        command: 'import',
        files: [{ file: 'a.csv', sha256: 'aa', rows: 3, orders: 2 }],
        startedAt: '2031-05-06T07:08:09.000Z',
        finishedAt: '2031-05-06T07:08:14.000Z',
        summary: { accepted: 2 },
        resultFiles: ['a.result.xlsx'],
        pid: process.pid,
      });
      expect(runs[0]).toMatchObject({ command: 'reconcile', files: [{ file: 'b.csv' }], finishedAt: null, summary: null, resultFiles: [] });
      expect(await ledger.listRuns(1)).toHaveLength(1);
      expect(await ledger.getRun('no-such-run')).toBeNull();
    });

    it('stores settings and watermarks that every connection sees', async () => {
      const ledger = await open();
      expect(await ledger.getWatermark('reconcile.updated')).toBeNull();
      await ledger.setWatermark('reconcile.updated', '2031-01-01T00:00:00.000Z');
      await ledger.setWatermark('reconcile.updated', '2031-01-02T00:00:00.000Z');
      await ledger.setSetting('api', 'https://api.example.com');
      await ledger.setSetting('gone', 'soon');
      expect(await ledger.removeSetting('gone')).toBe(true);
      expect(await ledger.removeSetting('gone')).toBe(false);
      const other = await open();
      expect(await other.getSetting('gone')).toBeNull();
      expect(await other.getWatermark('reconcile.updated')).toBe('2031-01-02T00:00:00.000Z');
      expect(await other.getSetting('api')).toBe('https://api.example.com');
      expect(await other.getSetting('nothing')).toBeNull();
      await expect(other.setWatermark('x', 'yesterday')).rejects.toThrow(/ISO 8601/);
    });
  });
});
