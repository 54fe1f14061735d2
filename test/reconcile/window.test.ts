import { describe, expect, it } from 'vitest';
import { needsFreshRead, planTrackingWindow } from '../../src/reconcile/window.js';

const H = 3_600_000;
const t = (iso: string) => new Date(iso);

describe('the tracking window', () => {
  const base = { selectionStart: t('2030-03-01T00:00:00Z'), now: t('2030-03-10T02:00:00Z'), overlapMs: H };

  it('fetches the whole selection span on a first run', () => {
    const plan = planTrackingWindow({ ...base, coverage: null, watermark: null });
    expect(plan).toEqual({
      startDate: '2030-03-01T00:00:00.000Z',
      endDate: '2030-03-10T02:00:00.000Z',
      isIncremental: false,
      nextCoverage: { start: '2030-03-01T00:00:00.000Z', end: '2030-03-10T02:00:00.000Z' },
    });
  });

  it('fetches from the last successful run, less the overlap, when the store matches the ledger', () => {
    const coverage = { start: '2030-02-20T00:00:00.000Z', end: '2030-03-09T02:00:00.000Z' };
    const plan = planTrackingWindow({ ...base, coverage, watermark: coverage.end });
    expect([plan.startDate, plan.isIncremental]).toEqual(['2030-03-09T01:00:00.000Z', true]);
    expect(plan.nextCoverage).toEqual({ start: '2030-02-20T00:00:00.000Z', end: '2030-03-10T02:00:00.000Z' });
  });

  it('covers missed nights: the span starts where the last successful run ended', () => {
    const coverage = { start: '2030-02-20T00:00:00.000Z', end: '2030-03-06T02:00:00.000Z' };
    const plan = planTrackingWindow({ ...base, coverage, watermark: coverage.end });
    expect(plan.startDate).toBe('2030-03-06T01:00:00.000Z');
  });

  it('fetches everything again when the store and the ledger disagree (a store lost or from another ledger)', () => {
    const coverage = { start: '2030-02-20T00:00:00.000Z', end: '2030-03-09T02:00:00.000Z' };
    expect(planTrackingWindow({ ...base, coverage, watermark: '2030-03-08T02:00:00.000Z' }).isIncremental).toBe(false);
    expect(planTrackingWindow({ ...base, coverage: null, watermark: coverage.end }).isIncremental).toBe(false);
  });

  it('fetches everything again when the selection reaches back before what is stored', () => {
    const coverage = { start: '2030-03-05T00:00:00.000Z', end: '2030-03-09T02:00:00.000Z' };
    const plan = planTrackingWindow({ ...base, coverage, watermark: coverage.end });
    expect([plan.startDate, plan.isIncremental]).toEqual(['2030-03-01T00:00:00.000Z', false]);
  });

  it('fetches everything again when the clock went backwards past the watermark', () => {
    const coverage = { start: '2030-02-20T00:00:00.000Z', end: '2030-03-11T00:00:00.000Z' };
    expect(planTrackingWindow({ ...base, coverage, watermark: coverage.end }).isIncremental).toBe(false);
  });

  it('never starts before the selection, restarting the coverage when the selection has moved past it', () => {
    const coverage = { start: '2030-02-01T00:00:00.000Z', end: '2030-02-10T00:00:00.000Z' };
    const plan = planTrackingWindow({ ...base, coverage, watermark: coverage.end });
    expect(plan.startDate).toBe('2030-03-01T00:00:00.000Z');
    expect(plan.nextCoverage.start).toBe('2030-03-01T00:00:00.000Z');
  });
});

describe('whether an order is read again', () => {
  const settled = { read: { lineItems: [{ status: 'Shipped' }, { status: 'Order Canceled' }] }, status: 'exception' };

  it('reads an order never read, one whose packages changed, and one the API did not know', () => {
    expect(needsFreshRead(undefined, false)).toBe(true);
    expect(needsFreshRead(settled, true)).toBe(true);
    expect(needsFreshRead({ read: null, status: 'not_found' }, false)).toBe(true);
  });

  it('reads an order with a line still waiting, but not one whose lines are all final', () => {
    expect(needsFreshRead({ read: { lineItems: [{ status: 'Waiting to Clear' }] }, status: 'waiting' }, false)).toBe(true);
    expect(needsFreshRead(settled, false)).toBe(false);
  });
});
