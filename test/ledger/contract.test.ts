/**
 * The Ledger contract (src/ledger/types.ts), the same for every backend: each test runs against each
 * entry of BACKENDS. Tests of what only one concurrency model does say so with runIf.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LedgerBusyError, LedgerClaimLostError } from '../../src/ledger/errors.js';
import type { Ledger, LedgerOptions, LedgerRun } from '../../src/ledger/types.js';
import { BACKENDS, type LedgerUnderTest } from './backends.js';
import { buildClock, buildIntent } from './builders.js';

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
      await expect(stalled.markAccepted('S-1', { httpStatus: 201 })).rejects.toThrow(LedgerClaimLostError);
      await expect(stalled.markSending('S-2')).rejects.toThrow(LedgerClaimLostError);
      await expect(stalled.prepareSends([buildIntent('S-2')])).resolves.toMatchObject([{ action: 'in_progress_elsewhere' }]);
      expect([await ledger.get('S-1'), await ledger.get('S-2')]).toEqual(taken);
    });

    it('shares one send gate between the runs of every process', async () => {
      const first = await (await open()).openSendGate(2);
      const second = await (await open()).openSendGate(2);
      const leave = [await first.enter(), await first.enter()];
      let hasEntered = false;
      const entering = second.enter().then((release) => {
        hasEntered = true;
        return release;
      });
      // However long it is given, it cannot get in while both places are taken.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(hasEntered).toBe(false);
      await leave[0]!();
      await (await entering)();
      await leave[1]!();
      await first.close();
      await second.close();
    });
  });

  describe('the send gate', () => {
    it('lets `limit` in at once, the next when one leaves, and no one once it is closed', async () => {
      const gate = await (await open()).openSendGate(2);
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
      const other = await open();
      expect(await other.getWatermark('reconcile.updated')).toBe('2031-01-02T00:00:00.000Z');
      expect(await other.getSetting('api')).toBe('https://api.example.com');
      expect(await other.getSetting('nothing')).toBeNull();
      await expect(other.setWatermark('x', 'yesterday')).rejects.toThrow(/ISO 8601/);
    });
  });
});
