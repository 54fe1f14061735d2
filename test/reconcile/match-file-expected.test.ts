/**
 * An order the ledger does not hold, matched against what its --orders file says was sent (QA A3).
 */
import { describe, expect, it } from 'vitest';
import { reconcileOrder } from '../../src/reconcile/match.js';
import { expected, nowAt, pkg, readOf } from './builders.js';

const sent = expected('F-1', [
  { id: '1', productId: 'PRD-1001', quantity: 2 },
  { id: '2', productId: 'PRD-1002', quantity: 1 },
]);
const read = readOf(sent, 'Shipped');
const packages = [
  pkg({
    id: 'P1',
    order: 'F-1',
    delivered: true,
    items: [
      { line: '1', productId: 'PRD-1001', quantity: 2 },
      { line: '2', productId: 'PRD-1002', quantity: 1 },
    ],
  }),
];

describe('an order matched against its --orders file', () => {
  it('takes the file for what was sent, and does not call the order one the ledger holds', () => {
    const out = reconcileOrder({ expected: { ...sent, source: 'orders-file' }, read, packages, now: nowAt(24 * 5), lateAfterDays: 3, isListedAsSent: true });
    expect([out.marketplaceOrderId, out.isInLedger, out.status, out.exceptions]).toEqual(['MP-F-1', false, 'delivered', []]);
  });

  it('checks the file lines: the API holding fewer units than the file says were sent is a partial shipment', () => {
    const fewer = readOf(sent, 'Shipped', { '1': { quantity: 1 } });
    const out = reconcileOrder({ expected: { ...sent, source: 'orders-file' }, read: fewer, packages, now: nowAt(24 * 5), lateAfterDays: 3, isListedAsSent: true });
    expect(out.exceptions.map((e) => e.detail)).toContain('line 1 (PRD-1001): the API holds 1 of the 2 units sent.');
  });

  it('takes the API lines as they are when the file cannot say which lines were sent', () => {
    const unknownLines = { ...sent, source: 'orders-file' as const, hasLines: false, lines: [] };
    const out = reconcileOrder({ expected: unknownLines, read, packages, now: nowAt(24 * 5), lateAfterDays: 3, isListedAsSent: true });
    expect(out.lines.map((l) => [l.customerLineItemId, l.ordered, l.shipped, l.isAddedByNetwork])).toEqual([
      ['1', 2, 2, false],
      ['2', 1, 1, false],
    ]);
    expect([out.marketplaceOrderId, out.status, out.exceptions]).toEqual(['MP-F-1', 'delivered', []]);
  });

  it('says a missing order is listed by the file, with when it was accepted', () => {
    const out = reconcileOrder({ expected: { ...sent, source: 'orders-file' }, read: null, packages: [], now: nowAt(24 * 5), lateAfterDays: 3, isListedAsSent: true });
    expect(out.status).toBe('not_found');
    expect(out.exceptions[0]!.detail).toBe(`The API does not know this order (404), though the orders file lists it as accepted on ${sent.submittedAt}.`);
  });
});
