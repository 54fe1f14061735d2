/**
 * A replaced_package exception names the line the network added to record THAT package's
 * re-shipment, where it can be told, not every replacement line of the order line (QA C1: both of
 * QA-001's replaced packages said "line 3-R1 ...; line 3-R2 ...").
 */
import { describe, expect, it } from 'vitest';
import type { OrderLineItemRead, PackageRecord } from '../../src/contract/schemas.js';
import { reconcileOrder } from '../../src/reconcile/match.js';
import { expected, nowAt, pkg, readOf } from './builders.js';

/** Line 1, one unit; line 3, one unit in P1 and `inP2` in P2. */
const orderOf = (inP2: number) =>
  expected('QA-001', [
    { id: '1', productId: 'PRD-1001', quantity: 1 },
    { id: '3', productId: 'PRD-1003', quantity: 1 + inP2 },
  ]);

const DAMAGED = 'damaged_shipment (the original line was damaged in transit by the carrier)';
const LOST = 'lost_pre_delivery_in_transit (the carrier lost the line before delivery)';

function added(id: string, productId: string, quantity: number, disposition: string): OrderLineItemRead {
  return { productId, name: 'x', customerLineItemId: id, quantity, unitPrice: 0, discount: 0, disposition, status: 'Shipped' };
}

/** Line 1 ships in P1 with one unit of line 3; P2 holds the rest of line 3; both replaced. */
function replacedTwice(p1: { delivered: boolean }, p2: { delivered: boolean; units: number }): PackageRecord[] {
  const inP1 = [{ line: '1', productId: 'PRD-1001', quantity: 1 }, { line: '3', productId: 'PRD-1003', quantity: 1 }];
  const inP2 = [{ line: '3', productId: 'PRD-1003', quantity: p2.units }];
  return [
    pkg({ id: 'P1', order: 'QA-001', items: inP1, replacedBy: 'P3', delivered: p1.delivered }),
    pkg({ id: 'P2', order: 'QA-001', items: inP2, replacedBy: 'P4', delivered: p2.delivered }),
    pkg({ id: 'P3', order: 'QA-001', items: inP1, delivered: true }),
    pkg({ id: 'P4', order: 'QA-001', items: inP2, delivered: true }),
  ];
}

function recordedAs(addedLines: OrderLineItemRead[], packages: PackageRecord[]): Record<string, string> {
  const order = orderOf(packages[1]!.packageContents[0]!.quantity);
  const read = readOf(order, 'Shipped');
  read.lineItems.push(...addedLines);
  const out = reconcileOrder({ expected: order, read, packages, now: nowAt(24 * 9), lateAfterDays: 3 });
  expect(out.status).toBe('delivered');
  const details: Record<string, string> = {};
  for (const e of out.exceptions) {
    expect(e.type).toBe('replaced_package');
    details[e.packageId!] = e.detail.replace(/^.*The network recorded it as /, '');
  }
  return details;
}

describe('the replacement line a replaced_package exception names', () => {
  it('is the one whose quantity is the units of the line in that package', () => {
    const details = recordedAs(
      [added('1-R1', 'PRD-1001', 1, 'damaged_shipment'), added('3-R1', 'PRD-1003', 2, 'damaged_shipment'), added('3-R2', 'PRD-1003', 1, 'damaged_shipment')],
      replacedTwice({ delivered: true }, { delivered: true, units: 2 }),
    );
    expect(details).toEqual({
      P1: `line 1-R1: ${DAMAGED}; line 3-R2: ${DAMAGED}.`,
      P2: `line 3-R1: ${DAMAGED}.`,
    });
  });

  it('is the one whose disposition the package delivery allows: a package delivered was not lost before delivery', () => {
    // Both re-shipments of line 3 are one unit each: only the delivered event tells them apart.
    const packages = replacedTwice({ delivered: false }, { delivered: true, units: 1 });
    const details = recordedAs(
      [added('1-R1', 'PRD-1001', 1, 'lost_pre_delivery_in_transit'), added('3-R1', 'PRD-1003', 1, 'damaged_shipment'), added('3-R2', 'PRD-1003', 1, 'lost_pre_delivery_in_transit')],
      packages,
    );
    expect(details).toEqual({
      P1: `line 1-R1: ${LOST}; line 3-R2: ${LOST}.`,
      P2: `line 3-R1: ${DAMAGED}.`,
    });
  });

  it('says "one of" where two re-shipments are alike in every way', () => {
    const packages = replacedTwice({ delivered: true }, { delivered: true, units: 1 });
    const details = recordedAs([added('1-R1', 'PRD-1001', 1, 'damaged_shipment'), added('3-R1', 'PRD-1003', 1, 'damaged_shipment'), added('3-R2', 'PRD-1003', 1, 'damaged_shipment')], packages);
    expect(details).toEqual({
      P1: `line 1-R1: ${DAMAGED}; one of line 3-R1, line 3-R2: ${DAMAGED}.`,
      P2: `one of line 3-R1, line 3-R2: ${DAMAGED}.`,
    });
  });
});
