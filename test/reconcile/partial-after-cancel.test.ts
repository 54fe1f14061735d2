/**
 * A line partly canceled by the network (a canceled line it added for the units it could not supply)
 * and shipped in full otherwise is not a partial shipment: what is owed is ordered less canceled.
 * (QA A4: QA-002 line 1, PRD-1181 x4, 1 canceled as line 1-R1, 3 shipped.)
 */
import { describe, expect, it } from 'vitest';
import type { OrderLineItemRead } from '../../src/contract/schemas.js';
import { reconcileOrder } from '../../src/reconcile/match.js';
import { expected, nowAt, pkg, readOf } from './builders.js';

const order = expected('QA-002', [
  { id: '1', productId: 'PRD-1181', quantity: 4 },
  { id: '2', productId: 'PRD-1002', quantity: 1 },
]);

const canceledLine: OrderLineItemRead = {
  productId: 'PRD-1181',
  name: 'x',
  customerLineItemId: '1-R1',
  quantity: 1,
  unitPrice: 0,
  discount: 0,
  disposition: 'out_of_stock',
  status: 'Order Canceled',
};

function reconcileWith(shippedOfLine1: number[]) {
  const read = readOf(order, 'Shipped');
  read.lineItems.push(canceledLine);
  const packages = shippedOfLine1.map((quantity, i) =>
    pkg({ id: `P${i + 1}`, order: 'QA-002', delivered: true, items: [{ line: '1', productId: 'PRD-1181', quantity }, ...(i === 0 ? [{ line: '2', productId: 'PRD-1002', quantity: 1 }] : [])] }),
  );
  return reconcileOrder({ expected: order, read, packages, now: nowAt(24 * 9), lateAfterDays: 3 });
}

describe('a line partly canceled and the rest shipped', () => {
  it('raises no partial_shipment when live packages hold every unit not canceled', () => {
    const out = reconcileWith([2, 1]);
    const line = out.lines.find((l) => l.customerLineItemId === '1')!;
    expect([line.ordered, line.canceledUnits, line.shipped]).toEqual([4, 1, 3]);
    expect(out.exceptions.map((e) => [e.type, e.customerLineItemId])).toEqual([['canceled_line', '1']]);
    expect(out.exceptions[0]!.detail).toBe('1 unit of the 4 of line 1 (PRD-1181) canceled: out_of_stock (the product was unavailable when the order was processed) (line 1-R1).');
  });

  it('still raises partial_shipment when fewer than the units not canceled are in live packages', () => {
    const out = reconcileWith([2]);
    expect(out.exceptions.filter((e) => e.type === 'partial_shipment').map((e) => e.detail)).toEqual([
      'line 1 (PRD-1181) is marked Shipped, but live packages hold 2 of the 4 units ordered (1 canceled).',
    ]);
  });
});
