import { describe, expect, it } from 'vitest';
import { reconcileOrder } from '../../src/reconcile/match.js';
import type { ReconciledOrder } from '../../src/reconcile/types.js';
import { expected, nowAt, pkg, readOf } from './builders.js';

const LATE = 3;
const twoLines = expected('A-1', [
  { id: 'L1', productId: 'PRD-1001', quantity: 2 },
  { id: 'L2', productId: 'PRD-1002', quantity: 1 },
]);

function types(order: ReconciledOrder): string[] {
  return order.exceptions.map((e) => e.type);
}

/** twoLines a day after the order, with L1 whole in package P1 and L2 in none, as `read` tells it. */
function withOnlyL1Packed(read: ReturnType<typeof readOf>): ReconciledOrder {
  return reconcileOrder({
    expected: twoLines,
    read,
    packages: [pkg({ id: 'P1', order: 'A-1', items: [{ line: 'L1', productId: 'PRD-1001', quantity: 2 }] })],
    now: nowAt(24),
    lateAfterDays: LATE,
  });
}

describe('roll-up status', () => {
  it('is waiting while nothing has shipped and the order is young', () => {
    const out = reconcileOrder({ expected: twoLines, read: readOf(twoLines), packages: [], now: nowAt(24), lateAfterDays: LATE });
    expect(out.status).toBe('waiting');
    expect(out.exceptions).toEqual([]);
    expect(out.lines.map((l) => [l.customerLineItemId, l.ordered, l.shipped, l.delivered])).toEqual([
      ['L1', 2, 0, 0],
      ['L2', 1, 0, 0],
    ]);
  });

  it('is partially_shipped when some lines have shipped and others wait', () => {
    const out = withOnlyL1Packed(readOf(twoLines, 'Waiting to Clear', { L1: { status: 'Shipped' } }));
    expect(out.status).toBe('partially_shipped');
    expect(out.trackingNumbers).toEqual(['TRK-P1']);
  });

  it('is shipped when every line is in a live package, split across packages', () => {
    const out = reconcileOrder({
      expected: twoLines,
      read: readOf(twoLines, 'Shipped'),
      packages: [
        pkg({ id: 'P1', order: 'A-1', items: [{ line: 'L1', productId: 'PRD-1001', quantity: 1 }] }),
        pkg({ id: 'P2', order: 'A-1', items: [{ line: 'L1', productId: 'PRD-1001', quantity: 1 }, { line: 'L2', productId: 'PRD-1002', quantity: 1 }] }),
      ],
      now: nowAt(24 * 10),
      lateAfterDays: LATE,
    });
    expect(out.status).toBe('shipped');
    expect(out.exceptions).toEqual([]);
    expect(out.trackingNumbers).toEqual(['TRK-P1', 'TRK-P2']);
    expect(out.lines.map((l) => l.shipped)).toEqual([2, 1]);
  });

  it('is delivered only when every live package carrying the lines has a delivered event', () => {
    const packages = [
      pkg({ id: 'P1', order: 'A-1', delivered: true, items: [{ line: 'L1', productId: 'PRD-1001', quantity: 2 }] }),
      pkg({ id: 'P2', order: 'A-1', delivered: false, items: [{ line: 'L2', productId: 'PRD-1002', quantity: 1 }] }),
    ];
    const input = { expected: twoLines, read: readOf(twoLines, 'Shipped'), now: nowAt(100), lateAfterDays: LATE };
    expect(reconcileOrder({ ...input, packages }).status).toBe('shipped');
    const all = [packages[0]!, pkg({ id: 'P2', order: 'A-1', delivered: true, items: [{ line: 'L2', productId: 'PRD-1002', quantity: 1 }] })];
    const out = reconcileOrder({ ...input, packages: all });
    expect(out.status).toBe('delivered');
    expect(out.lines.map((l) => l.delivered)).toEqual([2, 1]);
  });

  it('is canceled when every line is canceled, each listed as a canceled line', () => {
    const out = reconcileOrder({ expected: twoLines, read: readOf(twoLines, 'Order Canceled'), packages: [], now: nowAt(24 * 10), lateAfterDays: LATE });
    expect(out.status).toBe('canceled');
    expect(types(out)).toEqual(['canceled_line', 'canceled_line']);
  });

  it('is exception when one line is canceled and the other shipped', () => {
    const out = withOnlyL1Packed(readOf(twoLines, 'Shipped', { L2: { status: 'Order Canceled', disposition: 'out_of_stock' } }));
    expect(out.status).toBe('exception');
    expect(types(out)).toEqual(['canceled_line']);
    expect(out.exceptions[0]!.detail).toContain('out_of_stock (the product was unavailable when the order was processed)');
    expect(out.exceptions[0]!.customerLineItemId).toBe('L2');
  });

  it('is not_found with a missing_order exception when the API answers 404 for an order the ledger holds', () => {
    const out = reconcileOrder({ expected: twoLines, read: null, packages: [], now: nowAt(24 * 10), lateAfterDays: LATE });
    expect(out.status).toBe('not_found');
    expect(types(out)).toEqual(['missing_order']);
    expect(out.lines.map((l) => l.status)).toEqual([null, null]);
  });

  it('is not_found, not an unknown order, when the API answers 404 for an order an --orders file lists as sent that the ledger lacks', () => {
    const out = reconcileOrder({ read: null, packages: [], now: nowAt(24), lateAfterDays: LATE, customerOrderId: 'MISS-1', isListedAsSent: true });
    expect([out.customerOrderId, out.status, types(out)]).toEqual(['MISS-1', 'not_found', ['missing_order']]);
    expect(out.exceptions[0]!.detail).toBe('The API does not know this order (404), though the orders file lists it as accepted.');
  });

  it('does not claim a plain order sheet (no status column) said the order was accepted', () => {
    const out = reconcileOrder({ read: null, packages: [], now: nowAt(24), lateAfterDays: LATE, customerOrderId: 'MISS-2', isListedAsSent: true, isListedWithoutStatus: true });
    expect(out.status).toBe('not_found');
    expect(out.exceptions[0]!.detail).not.toContain('accepted.');
    expect(out.exceptions[0]!.detail).toContain('a sheet without a status column: was it ever imported?');
  });
});

describe('exceptions', () => {
  it('raises unknown_order for an api order the ledger never sent, but not for a marketplace order', () => {
    const read = readOf(twoLines, 'Shipped');
    const packages = [pkg({ id: 'P1', order: 'A-1', items: [{ line: 'L1', productId: 'PRD-1001', quantity: 2 }, { line: 'L2', productId: 'PRD-1002', quantity: 1 }] })];
    const unknown = reconcileOrder({ read, packages, now: nowAt(24), lateAfterDays: LATE });
    expect(unknown.status).toBe('exception');
    expect(types(unknown)).toEqual(['unknown_order']);
    expect(unknown.isInLedger).toBe(false);
    const marketplace = reconcileOrder({ read: { ...read, disposition: 'marketplace' }, packages, now: nowAt(24), lateAfterDays: LATE });
    expect(marketplace.status).toBe('shipped');
    const noLedger = reconcileOrder({ read, packages, now: nowAt(24), lateAfterDays: LATE, isLedgerConsulted: false });
    expect(noLedger.exceptions).toEqual([]);
  });

  it('raises unknown_order for packages of an order neither the ledger nor the API read holds', () => {
    const packages = [pkg({ id: 'P9', order: 'X-9', items: [{ line: 'L1', productId: 'PRD-1001', quantity: 1 }] })];
    const out = reconcileOrder({ packages, now: nowAt(24), lateAfterDays: LATE });
    expect(out.customerOrderId).toBe('X-9');
    expect(types(out)).toContain('unknown_order');
  });

  it('raises late_shipment for unshipped units past the configured number of days, not before', () => {
    const read = readOf(twoLines, 'Waiting to Clear', { L1: { status: 'Shipped' } });
    const packages = [pkg({ id: 'P1', order: 'A-1', items: [{ line: 'L1', productId: 'PRD-1001', quantity: 2 }] })];
    const early = reconcileOrder({ expected: twoLines, read, packages, now: nowAt(24 * 2.9), lateAfterDays: LATE });
    expect(early.status).toBe('partially_shipped');
    const late = reconcileOrder({ expected: twoLines, read, packages, now: nowAt(24 * 4), lateAfterDays: LATE });
    expect(late.status).toBe('exception');
    expect(late.exceptions).toEqual([
      { type: 'late_shipment', customerLineItemId: 'L2', detail: 'line L2 (PRD-1002): 1 of 1 unit not shipped 4.0 days after the order date (limit 3).' },
    ]);
  });

  it('does not call a canceled line late', () => {
    const read = readOf(twoLines, 'Order Canceled');
    const out = reconcileOrder({ expected: twoLines, read, packages: [], now: nowAt(24 * 20), lateAfterDays: LATE });
    expect(types(out)).not.toContain('late_shipment');
  });

  it('raises partial_shipment when a line marked Shipped has fewer units in live packages than ordered', () => {
    const out = reconcileOrder({
      expected: twoLines,
      read: readOf(twoLines, 'Shipped'),
      packages: [pkg({ id: 'P1', order: 'A-1', items: [{ line: 'L1', productId: 'PRD-1001', quantity: 1 }, { line: 'L2', productId: 'PRD-1002', quantity: 1 }] })],
      now: nowAt(24),
      lateAfterDays: LATE,
    });
    expect(out.status).toBe('exception');
    expect(types(out)).toEqual(['partial_shipment']);
    expect(out.exceptions[0]!.detail).toBe('line L1 (PRD-1001) is marked Shipped, but live packages hold 1 of the 2 units ordered.');
  });

  it('raises partial_shipment once when the API holds fewer units of a line than were sent', () => {
    const out = reconcileOrder({
      expected: twoLines,
      read: readOf(twoLines, 'Shipped', { L1: { quantity: 1 } }),
      packages: [pkg({ id: 'P1', order: 'A-1', items: [{ line: 'L1', productId: 'PRD-1001', quantity: 1 }, { line: 'L2', productId: 'PRD-1002', quantity: 1 }] })],
      now: nowAt(24),
      lateAfterDays: LATE,
    });
    expect(types(out)).toEqual(['partial_shipment']);
    expect(out.exceptions[0]!.detail).toContain('the API holds 1 of the 2 units sent');
  });

  it('raises over_shipment for more units than ordered and for a package item of a line the order lacks', () => {
    const out = reconcileOrder({
      expected: twoLines,
      read: readOf(twoLines, 'Shipped'),
      packages: [
        pkg({ id: 'P1', order: 'A-1', items: [{ line: 'L1', productId: 'PRD-1001', quantity: 3 }, { line: 'L2', productId: 'PRD-1002', quantity: 1 }] }),
        pkg({ id: 'P2', order: 'A-1', items: [{ line: 'L7', productId: 'PRD-1007', quantity: 1 }] }),
      ],
      now: nowAt(24),
      lateAfterDays: LATE,
    });
    expect(out.status).toBe('exception');
    expect(out.exceptions.map((e) => [e.type, e.customerLineItemId, e.packageId])).toEqual([
      ['over_shipment', 'L1', undefined],
      ['over_shipment', 'L7', 'P2'],
    ]);
  });

  it('raises unexpected_disposition for a line the network added with a disposition, next to the canceled line it replaces', () => {
    const read = readOf(twoLines, 'Shipped', { L2: { status: 'Order Canceled', disposition: 'out_of_stock_in_location' } });
    read.lineItems.push({ productId: 'PRD-1002', name: 'x', customerLineItemId: 'L2-R', quantity: 1, unitPrice: 10, disposition: 'out_of_stock_in_location', status: 'Shipped' });
    const out = reconcileOrder({
      expected: twoLines,
      read,
      packages: [pkg({ id: 'P1', order: 'A-1', items: [{ line: 'L1', productId: 'PRD-1001', quantity: 2 }, { line: 'L2-R', productId: 'PRD-1002', quantity: 1 }] })],
      now: nowAt(24),
      lateAfterDays: LATE,
    });
    expect(types(out)).toEqual(['canceled_line', 'unexpected_disposition']);
    expect(out.exceptions[0]!.detail).toContain('The network added line L2-R for the same product.');
    const added = out.lines.find((l) => l.customerLineItemId === 'L2-R')!;
    expect([added.isAddedByNetwork, added.ordered, added.shipped]).toEqual([true, 1, 1]);
    expect(out.status).toBe('exception');
  });

  it('raises unexpected_disposition when an order we sent comes back with another order disposition', () => {
    const read = { ...readOf(twoLines), disposition: 'reshipment' };
    const out = reconcileOrder({ expected: twoLines, read, packages: [], now: nowAt(1), lateAfterDays: LATE });
    expect(types(out)).toEqual(['unexpected_disposition']);
  });

  it('raises amount_mismatch when the API reads an amount back other than PRODUCT.md section 6 says', () => {
    const read = { ...readOf(twoLines), grandTotal: 99 };
    const out = reconcileOrder({ expected: twoLines, read, packages: [], now: nowAt(1), lateAfterDays: LATE });
    expect(types(out)).toEqual(['amount_mismatch']);
    expect(out.status).toBe('exception');
  });
});
