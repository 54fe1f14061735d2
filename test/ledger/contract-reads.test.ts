/**
 * Reading a ledger, the same for every backend (BACKENDS): records by id, states, reconcile's
 * selection (accepted since an instant, in pages), counts, run history.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Ledger, LedgerRun, OrderRecord } from '../../src/ledger/types.js';
import { BACKENDS, type LedgerUnderTest } from './backends.js';
import { ORDER_DATE } from '../support/order-payload.js';
import { buildClock, buildIntent } from './builders.js';

describe.each(BACKENDS)('reading the $name ledger', (backend) => {
  let store: LedgerUnderTest;
  let ledger: Ledger;
  let run: LedgerRun;
  let clock: ReturnType<typeof buildClock>;

  beforeEach(async () => {
    clock = buildClock('2031-05-06T00:00:00.000Z');
    store = await backend.create();
    ledger = await store.open({ now: clock.now });
    run = await ledger.startRun({ command: 'import', files: [] });
    // Seven orders accepted an hour apart, two not accepted.
    const ids = ['B-7', 'A-1', 'A-2', 'A-3', 'A-4', 'A-5', 'A-6'];
    await run.prepareSends([...ids, 'X-1', 'X-2'].map((id) => buildIntent(id)));
    for (const [k, id] of ids.entries()) {
      await run.markAccepted(id, { httpStatus: 201, submittedAt: new Date(Date.parse('2031-05-06T00:00:00.000Z') + k * 3_600_000) });
    }
    await run.markRejected('X-1', { httpStatus: 400 });
  });
  afterEach(async () => {
    await ledger.close();
    await store.drop();
  });

  it('gives records and states by id, leaving out the ids it does not hold', async () => {
    const many = await ledger.getMany(['A-1', 'X-1', 'nope', 'A-1']);
    expect([...many.keys()].sort()).toEqual(['A-1', 'X-1']);
    expect(many.get('A-1')).toEqual(await ledger.get('A-1'));
    expect(await ledger.statesOf(['A-2', 'X-1', 'X-2', 'nope'])).toEqual(new Map([['A-2', 'accepted'], ['X-1', 'rejected'], ['X-2', 'sending']]));
    expect(await ledger.get('nope')).toBeNull();
  });

  it("gives reconcile's selection oldest first, whole or in pages, with its count and earliest times", async () => {
    const since = '2031-05-06T02:00:00.000Z';
    const listed = (await ledger.listSubmittedSince(since)).map((r) => r.customerOrderId);
    expect(listed).toEqual(['A-2', 'A-3', 'A-4', 'A-5', 'A-6']);
    const pages: string[][] = [];
    for await (const page of ledger.pagesSubmittedSince(since, 2)) pages.push(page.map((o) => o.customerOrderId));
    expect(pages).toEqual([['A-2', 'A-3'], ['A-4', 'A-5'], ['A-6']]);
    expect(await ledger.summarizeSubmittedSince(since)).toEqual({ count: 5, earliestSubmittedAt: '2031-05-06T02:00:00.000Z' });
    expect(await ledger.summarizeSubmittedSince(since, 3)).toEqual({ count: 3, earliestSubmittedAt: '2031-05-06T02:00:00.000Z' });
    expect(await ledger.earliestOrderDateSince(since)).toBe(ORDER_DATE);
    expect(await ledger.summarizeSubmittedSince('2031-06-01T00:00:00.000Z')).toEqual({ count: 0, earliestSubmittedAt: null });
    expect(await ledger.earliestOrderDateSince('2031-06-01T00:00:00.000Z')).toBeNull();
  });

  it('walks every record in id order, of some states if asked, and counts them by state', async () => {
    const all: OrderRecord[] = [];
    for await (const record of ledger.iterateRecords({ pageSize: 3 })) all.push(record);
    expect(all.map((r) => r.customerOrderId)).toEqual(['A-1', 'A-2', 'A-3', 'A-4', 'A-5', 'A-6', 'B-7', 'X-1', 'X-2']);
    const open: string[] = [];
    for await (const record of ledger.iterateRecords({ states: ['rejected', 'sending'] })) open.push(record.customerOrderId);
    expect(open).toEqual(['X-1', 'X-2']);
    expect(await ledger.countByState()).toEqual({ pending: 0, sending: 1, unknown: 0, accepted: 7, rejected: 1, failed: 0 });
  });
});
