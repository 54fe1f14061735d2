import { describe, expect, it } from 'vitest';
import { reconcileOrder } from '../../src/reconcile/match.js';
import { expected, nowAt, pkg, readOf } from './builders.js';

const LATE = 3;

describe('replaced packages', () => {
  const oneLine = expected('R-1', [{ id: 'L1', productId: 'PRD-1001', quantity: 2 }]);
  const read = readOf(oneLine, 'Shipped');
  const items = [{ line: 'L1', productId: 'PRD-1001', quantity: 2 }];

  it('follows a replacement to the live package: units counted once, only live tracking, status not blocked', () => {
    const out = reconcileOrder({
      expected: oneLine,
      read,
      packages: [pkg({ id: 'P1', order: 'R-1', items, replacedBy: 'P2' }), pkg({ id: 'P2', order: 'R-1', items, delivered: true })],
      now: nowAt(100),
      lateAfterDays: LATE,
    });
    expect(out.status).toBe('delivered');
    expect(out.trackingNumbers).toEqual(['TRK-P2']);
    expect(out.lines[0]!.shipped).toBe(2);
    expect(out.exceptions).toEqual([
      { type: 'replaced_package', packageId: 'P1', detail: `Package P1 (tracking TRK-P1) was replaced on ${out.packages[0]!.dateReplaced} by package P2 (tracking TRK-P2).` },
    ]);
    expect(out.packages.map((p) => [p.packageId, p.isLive, p.chain.join('>'), p.livePackageId])).toEqual([
      ['P1', false, 'P1>P2', 'P2'],
      ['P2', true, 'P1>P2', 'P2'],
    ]);
  });

  it('follows a chain of replacements to its end', () => {
    const out = reconcileOrder({
      expected: oneLine,
      read,
      packages: [pkg({ id: 'P3', order: 'R-1', items }), pkg({ id: 'P1', order: 'R-1', items, replacedBy: 'P2' }), pkg({ id: 'P2', order: 'R-1', items, replacedBy: 'P3' })],
      now: nowAt(50),
      lateAfterDays: LATE,
    });
    expect(out.status).toBe('shipped');
    expect(out.trackingNumbers).toEqual(['TRK-P3']);
    const p1 = out.packages.find((p) => p.packageId === 'P1')!;
    expect([p1.chain, p1.livePackageId]).toEqual([['P1', 'P2', 'P3'], 'P3']);
    expect(out.exceptions.map((e) => e.packageId)).toEqual(['P1', 'P2']);
    expect(out.exceptions[0]!.detail).toContain('Live package at the end of the chain: P3.');
  });

  it('stops at a loop of replacements and counts none of its units', () => {
    const out = reconcileOrder({
      expected: oneLine,
      read,
      packages: [pkg({ id: 'P1', order: 'R-1', items, replacedBy: 'P2' }), pkg({ id: 'P2', order: 'R-1', items, replacedBy: 'P1' })],
      now: nowAt(50),
      lateAfterDays: LATE,
    });
    expect(out.trackingNumbers).toEqual([]);
    expect(out.lines[0]!.shipped).toBe(0);
    expect(out.packages.map((p) => p.chainEnd)).toEqual(['loop', 'loop']);
    expect(out.exceptions.map((e) => e.type)).toEqual(['partial_shipment', 'replaced_package', 'replaced_package']);
    expect(out.exceptions[1]!.detail).toContain('loops');
  });

  it('says when the replacement package is not visible yet', () => {
    const out = reconcileOrder({ expected: oneLine, read, packages: [pkg({ id: 'P1', order: 'R-1', items, replacedBy: 'P2' })], now: nowAt(50), lateAfterDays: LATE });
    expect(out.exceptions.find((e) => e.type === 'replaced_package')!.detail).toContain('by package P2, which the API does not show yet.');
  });

  it('counts a package seen twice once, keeping its newer record', () => {
    const old = pkg({ id: 'P1', order: 'R-1', items, lastUpdated: '2030-03-01T12:00:00.000Z' });
    const newer = pkg({ id: 'P1', order: 'R-1', items, delivered: true, lastUpdated: '2030-03-03T12:00:00.000Z' });
    const out = reconcileOrder({ expected: oneLine, read, packages: [newer, old], now: nowAt(80), lateAfterDays: LATE });
    expect(out.lines[0]!.shipped).toBe(2);
    expect(out.status).toBe('delivered');
  });
});

describe('bundles', () => {
  const order = expected('B-1', [
    { id: 'L1', productId: 'BND-2002', quantity: 2 },
    { id: 'L2', productId: 'PRD-1003', quantity: 1 },
  ]);
  const components = [
    { line: 'L1', productId: 'PRD-1003', quantity: 2, lineItemProductId: 'BND-2002' },
    { line: 'L1', productId: 'PRD-1004', quantity: 4, lineItemProductId: 'BND-2002' },
  ];

  it('never counts components as units of the bundle or of a line ordering the component product', () => {
    const out = reconcileOrder({
      expected: order,
      read: readOf(order, 'Shipped'),
      packages: [pkg({ id: 'P1', order: 'B-1', items: [...components, { line: 'L2', productId: 'PRD-1003', quantity: 1 }] })],
      now: nowAt(24),
      lateAfterDays: LATE,
    });
    const [bundle, plain] = out.lines;
    expect([bundle!.isBundle, bundle!.shipped, bundle!.components]).toEqual([
      true,
      2,
      [
        { productId: 'PRD-1003', quantity: 2 },
        { productId: 'PRD-1004', quantity: 4 },
      ],
    ]);
    expect([plain!.isBundle, plain!.shipped]).toEqual([false, 1]);
    expect(out.exceptions).toEqual([]);
    expect(out.status).toBe('shipped');
  });

  it('counts a bundle as not shipped while the API has not marked its line Shipped', () => {
    const read = readOf(order, 'Shipped', { L1: { status: 'Waiting to Clear' } });
    const items = [...components, { line: 'L2', productId: 'PRD-1003', quantity: 1 }];
    const out = reconcileOrder({ expected: order, read, packages: [pkg({ id: 'P1', order: 'B-1', items })], now: nowAt(24), lateAfterDays: LATE });
    expect(out.lines[0]!.shipped).toBe(0);
    expect(out.exceptions).toEqual([]);
    expect(out.status).toBe('partially_shipped');
  });

  it('counts a bundle delivered only when every package holding its components is delivered', () => {
    const split = [
      pkg({ id: 'P1', order: 'B-1', delivered: true, items: [components[0]!, { line: 'L2', productId: 'PRD-1003', quantity: 1 }] }),
      pkg({ id: 'P2', order: 'B-1', delivered: false, items: [components[1]!] }),
    ];
    const read = readOf(order, 'Shipped');
    const partly = reconcileOrder({ expected: order, read, packages: split, now: nowAt(80), lateAfterDays: LATE });
    expect(partly.lines.map((l) => l.delivered)).toEqual([0, 1]);
    expect(partly.status).toBe('shipped');
    split[1] = pkg({ id: 'P2', order: 'B-1', delivered: true, items: [components[1]!] });
    const done = reconcileOrder({ expected: order, read, packages: split, now: nowAt(80), lateAfterDays: LATE });
    expect(done.lines.map((l) => l.delivered)).toEqual([2, 1]);
    expect(done.status).toBe('delivered');
  });
});

describe('lines the network adds (as the sandbox does)', () => {
  const order = expected('N-1', [
    { id: 'L1', productId: 'PRD-1001', quantity: 3 },
    { id: 'L2', productId: 'PRD-1002', quantity: 1 },
  ]);
  const added = (id: string, productId: string, quantity: number, disposition: string, status: string) => ({
    productId,
    name: 'x',
    customerLineItemId: id,
    quantity,
    unitPrice: 0,
    discount: 0,
    disposition,
    status,
  });

  it('reports a canceled line once, explained by the canceled line the network added for it', () => {
    const read = readOf(order, 'Order Canceled');
    read.lineItems.push(added('L1-R1', 'PRD-1001', 3, 'out_of_stock_in_location', 'Order Canceled'));
    read.lineItems.push(added('L2-R1', 'PRD-1002', 1, 'out_of_stock', 'Order Canceled'));
    const out = reconcileOrder({ expected: order, read, packages: [], now: nowAt(24 * 9), lateAfterDays: LATE });
    expect(out.status).toBe('canceled');
    expect(out.exceptions.map((e) => e.detail)).toEqual([
      'line L1 (PRD-1001), 3 units, was canceled: out_of_stock_in_location (the product was unavailable when the order was picked) (line L1-R1).',
      'line L2 (PRD-1002), 1 unit, was canceled: out_of_stock (the product was unavailable when the order was processed) (line L2-R1).',
    ]);
  });

  it('books units the network could not supply as canceled: never a partial shipment, never late', () => {
    const read = readOf(order, 'Shipped');
    read.lineItems.push(added('L1-R1', 'PRD-1001', 1, 'out_of_stock', 'Order Canceled'));
    const packages = [pkg({ id: 'P1', order: 'N-1', items: [{ line: 'L1', productId: 'PRD-1001', quantity: 2 }, { line: 'L2', productId: 'PRD-1002', quantity: 1 }] })];
    const out = reconcileOrder({ expected: order, read, packages, now: nowAt(24 * 9), lateAfterDays: LATE });
    expect(out.exceptions.map((e) => [e.type, e.customerLineItemId, e.detail])).toEqual([
      ['canceled_line', 'L1', '1 unit of the 3 of line L1 (PRD-1001) canceled: out_of_stock (the product was unavailable when the order was processed) (line L1-R1).'],
    ]);
    expect(out.lines[0]!.canceledUnits).toBe(1);
    expect(out.status).toBe('exception');
  });

  it('folds the line recording a replacement shipment into the replaced_package exception', () => {
    const read = readOf(order, 'Shipped');
    read.lineItems.push(added('L1-R1', 'PRD-1001', 3, 'damaged_shipment', 'Shipped'));
    const items = [{ line: 'L1', productId: 'PRD-1001', quantity: 3 }];
    const packages = [
      pkg({ id: 'P1', order: 'N-1', items, replacedBy: 'P3', delivered: true }),
      pkg({ id: 'P2', order: 'N-1', items: [{ line: 'L2', productId: 'PRD-1002', quantity: 1 }], delivered: true }),
      pkg({ id: 'P3', order: 'N-1', items, delivered: true }),
    ];
    const out = reconcileOrder({ expected: order, read, packages, now: nowAt(24 * 9), lateAfterDays: LATE });
    expect(out.status).toBe('delivered');
    expect(out.trackingNumbers).toEqual(['TRK-P2', 'TRK-P3']);
    expect(out.exceptions.map((e) => e.type)).toEqual(['replaced_package']);
    expect(out.exceptions[0]!.detail).toContain('The network recorded it as line L1-R1: damaged_shipment (the original line was damaged in transit by the carrier).');
    const recorded = out.lines.find((l) => l.customerLineItemId === 'L1-R1')!;
    expect([recorded.relatedLineId, recorded.shipped]).toEqual(['L1', 0]);
  });

  it('still calls a line the network added with a disposition unexpected when no replacement explains it', () => {
    const read = readOf(order, 'Shipped');
    read.lineItems.push(added('X9', 'PRD-1001', 1, 'wrong_quantity_shipped', 'Shipped'));
    const packages = [pkg({ id: 'P1', order: 'N-1', items: [{ line: 'L1', productId: 'PRD-1001', quantity: 3 }, { line: 'L2', productId: 'PRD-1002', quantity: 1 }] })];
    const out = reconcileOrder({ expected: order, read, packages, now: nowAt(24), lateAfterDays: LATE });
    expect(out.exceptions.map((e) => e.type)).toEqual(['unexpected_disposition']);
    expect(out.status).toBe('exception');
  });
});
