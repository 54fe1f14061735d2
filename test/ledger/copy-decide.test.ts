import { describe, expect, it } from 'vitest';
import { decideMapping, decideOrder, decideRun, decideSetting, decideWatermark } from '../../src/ledger/copy/decide.js';
import type { CopiedOrder, TargetOrder } from '../../src/ledger/copy/types.js';
import type { OrderRecord, RunRecord } from '../../src/ledger/types.js';
import { buildOrderPayload as buildPayload } from '../support/order-payload.js';

function order(overrides: Partial<OrderRecord> = {}): CopiedOrder {
  const payload = buildPayload('A-1');
  return {
    customerOrderId: 'A-1', payloadHash: 'h1', payload, state: 'sending', attempts: 1, httpStatus: null, requestId: null, message: null,
    recordedAt: '2031-01-01T00:00:00.000Z', firstSubmittedAt: '2031-01-01T00:00:00.000Z', submittedAt: null, updatedAt: '2031-01-01T00:00:00.000Z',
    runId: 'run-1', sourceFile: null, sourceSha256: null, sourceRows: [2], marketplaceOrderId: null, sourceOfSale: null,
    payloadJson: JSON.stringify(payload), orderDate: null, ...overrides,
  };
}
const there = (record: CopiedOrder, isHeldByLiveRun = false): TargetOrder => ({ payloadHash: record.payloadHash, state: record.state, updatedAt: record.updatedAt, isHeldByLiveRun, record });

describe('what ledger copy does with each record', () => {
  it.each([
    ['a new order', order(), undefined, 'insert'],
    ['the same record', order(), there(order()), 'unchanged'],
    ['an order the source saw accepted', order({ state: 'accepted', updatedAt: '2031-01-01T00:00:01.000Z' }), there(order()), 'update'],
    ['a newer state in the source', order({ state: 'unknown', updatedAt: '2031-01-02T00:00:00.000Z' }), there(order()), 'update'],
    ['an older state in the source', order({ state: 'pending', attempts: 0 }), there(order({ updatedAt: '2031-01-03T00:00:00.000Z' })), 'kept'],
    ['an order accepted in the target', order({ state: 'unknown', updatedAt: '2031-02-01T00:00:00.000Z' }), there(order({ state: 'accepted' })), 'kept'],
  ])('%s: %s', (_name, source, target, action) => {
    expect(decideOrder(source, target)).toBe(action);
  });

  it('stops at another order of the same id, and at one a live run is sending', () => {
    expect(decideOrder(order(), there(order({ payloadHash: 'h2' })))).toEqual({ conflict: "order 'A-1' is another order there (its contents differ from the source's)" });
    expect(decideOrder(order({ updatedAt: '2031-02-01T00:00:00.000Z' }), there(order(), true))).toEqual({ conflict: "order 'A-1' is being sent by a run on the target right now" });
  });

  it('finishes a run the target saw unfinished, keeps the earlier watermark, and refuses another API', () => {
    const run: RunRecord = { runId: 'r', command: 'import', files: [], startedAt: 'x', finishedAt: null, summary: null, resultFiles: [], pid: 1, host: 'h' };
    expect(decideRun({ ...run, finishedAt: 'y', summary: {} }, run)).toBe('update');
    expect(decideRun(run, { ...run, finishedAt: 'y' })).toBe('kept');
    expect(decideWatermark({ name: 'w', value: '2031-01-01T00:00:00Z', updatedAt: '' }, { name: 'w', value: '2031-02-01T00:00:00Z', updatedAt: '' })).toBe('update');
    expect(decideWatermark({ name: 'w', value: '2031-03-01T00:00:00Z', updatedAt: '' }, { name: 'w', value: '2031-02-01T00:00:00Z', updatedAt: '' })).toBe('kept');
    expect(decideSetting({ name: 'endpoint', value: 'a', updatedAt: '' }, { name: 'endpoint', value: 'b', updatedAt: '' })).toHaveProperty('conflict');
  });

  it('keeps the later save of a mapping name', () => {
    const saved = (savedAt: string, profile = '{}') => ({ name: 'acme', profile, savedBy: 'ann', savedAt });
    expect(decideMapping(saved('2031-01-01T00:00:00.000Z'), undefined)).toBe('insert');
    expect(decideMapping(saved('2031-01-01T00:00:00.000Z'), saved('2031-01-01T00:00:00.000Z'))).toBe('unchanged');
    expect(decideMapping(saved('2031-01-02T00:00:00.000Z', '{"a":1}'), saved('2031-01-01T00:00:00.000Z'))).toBe('update');
    expect(decideMapping(saved('2031-01-01T00:00:00.000Z', '{"a":1}'), saved('2031-01-02T00:00:00.000Z'))).toBe('kept');
  });
});
