import { describe, expect, it } from 'vitest';
import { DAY, HOUR, START_MS, startTestSandbox, type TestSandbox } from './helpers.js';
import { buildOrderPayload } from '../support/order-payload.js';

const CALM = { split: 0, replace: 0, cancel: 0 };

async function withSandbox<T>(options: Parameters<typeof startTestSandbox>[0], use: (sb: TestSandbox) => Promise<T>): Promise<T> {
  const sb = await startTestSandbox(options);
  try {
    return await use(sb);
  } finally {
    await sb.close();
  }
}

async function read(sb: TestSandbox, id: string) {
  const token = await sb.token();
  const order = await sb.call('GET', `/api/v0/orders/${id}`, { token });
  const packages = await sb.call('GET', `/api/v0/orders/${id}/packages`, { token });
  return { lines: order.body.data.orderDetails.lineItems as any[], packages: packages.body.data as any[] };
}

const eventTypes = (p: any) => p.trackingDetail.trackingEvents.map((e: any) => e.eventType);

describe('the clock-driven life of an order', () => {
  it('goes from Waiting to Clear to Shipped to delivered, with tracking events in order', async () => {
    await withSandbox({ rates: CALM }, async (sb) => {
      expect((await sb.create(buildOrderPayload('LIFE-1', { lines: [{ quantity: 2 }] }))).status).toBe(201);

      sb.advanceClock(1);
      let s = await read(sb, 'LIFE-1');
      expect(s.lines.map((l) => l.status)).toEqual(['Waiting to Clear']);
      expect(s.packages).toEqual([]);

      sb.advanceClock(47);
      s = await read(sb, 'LIFE-1');
      expect(s.lines.map((l) => l.status)).toEqual(['Shipped']);
      expect(s.packages).toHaveLength(1);
      const p = s.packages[0];
      expect(eventTypes(p)).toEqual(['label_generated', 'tendered_to_carrier']);
      expect(p.packageContents).toEqual([{ productId: 'PRD-1001', sku: 'SKU-1001', upc: expect.stringMatching(/^\d{12}$/), quantity: 2, customerLineItemId: 'L1', lineItemProductId: 'PRD-1001' }]);
      expect(p.trackingDetail).toMatchObject({
        trackingNumber: expect.stringMatching(/^CX\d{16}$/),
        shippingCarrier: 'CarrierX',
        serviceLevel: 'Ground',
        originFc: expect.stringMatching(/^FC-/),
        shipDate: p.trackingDetail.trackingEvents[0].eventTimestamp,
      });
      expect(p.trackingDetail.trackingUrl).toContain(p.trackingDetail.trackingNumber);
      expect(Date.parse(p.trackingDetail.estimatedDeliveryDate) - Date.parse(p.trackingDetail.shipDate)).toBe(5 * DAY);
      const label = Date.parse(p.trackingDetail.shipDate);
      expect(label).toBeGreaterThanOrEqual(START_MS + 2 * HOUR);

      sb.advanceClock(24 * 8);
      s = await read(sb, 'LIFE-1');
      const delivered = s.packages[0];
      expect(eventTypes(delivered)).toEqual(['label_generated', 'tendered_to_carrier', 'delivered']);
      const times = delivered.trackingDetail.trackingEvents.map((e: any) => Date.parse(e.eventTimestamp));
      expect([...times].sort((a, b) => a - b)).toEqual(times);
      expect(delivered.lastUpdated).toBe(delivered.trackingDetail.trackingEvents[2].eventTimestamp);
      expect(delivered.trackingDetail.lastUpdated).toBe(delivered.lastUpdated);
      expect(sb.stats().byStatus).toEqual({ Shipped: 1 });
    });
  });

  it('derives the service level from carrierId: overnight arrives faster than ground', async () => {
    await withSandbox({ rates: CALM }, async (sb) => {
      const transit: Record<string, number> = {};
      for (const carrierId of ['CarrierXGround', 'CarrierX2Day', 'CarrierXOvernight']) {
        expect((await sb.create(buildOrderPayload(carrierId, { carrierId }))).status).toBe(201);
      }
      sb.advanceClock(24 * 10);
      for (const carrierId of ['CarrierXGround', 'CarrierX2Day', 'CarrierXOvernight']) {
        const [p] = (await read(sb, carrierId)).packages;
        const [, tendered, delivered] = p.trackingDetail.trackingEvents.map((e: any) => Date.parse(e.eventTimestamp));
        transit[p.trackingDetail.serviceLevel] = delivered - tendered;
      }
      expect(Object.keys(transit).sort()).toEqual(['2Day', 'Ground', 'Overnight']);
      expect(transit.Overnight).toBeLessThan(transit['2Day']!);
      expect(transit['2Day']).toBeLessThan(transit.Ground!);
    });
  });

  it('splits a shipment into several packages that add up to the order', async () => {
    await withSandbox({ rates: { ...CALM, split: 1 } }, async (sb) => {
      expect((await sb.create(buildOrderPayload('SPLIT-1', { lines: [{ quantity: 5 }, { productId: 'PRD-1002', quantity: 1 }] }))).status).toBe(201);
      sb.advanceClock(48);
      const { packages } = await read(sb, 'SPLIT-1');
      expect(packages.length).toBeGreaterThanOrEqual(2);
      expect(packages.length).toBeLessThanOrEqual(3);
      const units = (line: string) => packages.flatMap((p) => p.packageContents).filter((c) => c.customerLineItemId === line).reduce((n, c) => n + c.quantity, 0);
      expect([units('L1'), units('L2')]).toEqual([5, 1]);
      expect(new Set(packages.map((p) => p.trackingDetail.trackingNumber)).size).toBe(packages.length);
    });
  });

  it('ships a bundle as its components, keeping the ordered productId in lineItemProductId', async () => {
    await withSandbox({ rates: CALM }, async (sb) => {
      expect((await sb.create(buildOrderPayload('BUNDLE-1', { lines: [{ productId: 'BND-2002', quantity: 2 }] }))).status).toBe(201);
      sb.advanceClock(48);
      const [p] = (await read(sb, 'BUNDLE-1')).packages;
      expect(p.packageContents.map((c: any) => [c.productId, c.quantity, c.customerLineItemId, c.lineItemProductId])).toEqual([
        ['PRD-1003', 2, 'L1', 'BND-2002'],
        ['PRD-1004', 4, 'L1', 'BND-2002'],
      ]);
    });
  });

  it('splits across centers when no single center holds enough, and cancels what none holds', async () => {
    await withSandbox({ rates: CALM }, async (sb) => {
      // PRD-1184: 3 units in each of two centers.
      expect((await sb.create(buildOrderPayload('SHORT-1', { lines: [{ productId: 'PRD-1184', quantity: 8 }] }))).status).toBe(201);
      sb.advanceClock(48);
      const { lines, packages } = await read(sb, 'SHORT-1');
      expect(new Set(packages.map((p) => p.trackingDetail.originFc)).size).toBe(2);
      expect(packages.reduce((n, p) => n + p.packageContents[0].quantity, 0)).toBe(6);
      expect(lines.map((l) => [l.customerLineItemId, l.quantity, l.disposition, l.status])).toEqual([
        ['L1', 8, 'api_order', 'Shipped'],
        ['L1-R1', 2, 'out_of_stock', 'Order Canceled'],
      ]);
    });
  });

  it('replaces a lost or damaged package: dateReplaced, replacedByPackageId, a replacement line', async () => {
    await withSandbox({ rates: { ...CALM, replace: 1 } }, async (sb) => {
      expect((await sb.create(buildOrderPayload('REPL-1', { lines: [{ quantity: 2 }] }))).status).toBe(201);
      sb.advanceClock(24 * 20);
      const { lines, packages } = await read(sb, 'REPL-1');
      expect(packages).toHaveLength(2);
      const [old, fresh] = packages;
      expect(old.replacedByPackageId).toBe(fresh.packageId);
      expect(Date.parse(old.dateReplaced)).toBeGreaterThan(Date.parse(old.trackingDetail.trackingEvents[1].eventTimestamp));
      expect(old.lastUpdated).toBe(old.dateReplaced);
      expect(fresh.dateReplaced).toBeUndefined();
      expect(fresh.packageContents).toEqual(old.packageContents);
      expect(fresh.trackingDetail.trackingEvents[0].eventTimestamp).toBe(old.dateReplaced);
      expect(eventTypes(fresh)).toEqual(['label_generated', 'tendered_to_carrier', 'delivered']);
      const replacement = lines[1];
      expect(replacement).toMatchObject({ customerLineItemId: 'L1-R1', quantity: 2, unitPrice: 0, status: 'Shipped' });
      expect(['lost_pre_delivery_in_transit', 'damaged_shipment']).toContain(replacement.disposition);
      const lost = replacement.disposition === 'lost_pre_delivery_in_transit';
      expect(eventTypes(old).includes('delivered')).toBe(!lost);
      const token = await sb.token();
      const filtered = await sb.call('GET', `/api/v0/orders?orderLineItemDisposition=${replacement.disposition}`, { token });
      expect(filtered.body.data.map((d: any) => d.orderDetails.customerOrderId)).toEqual(['REPL-1']);
    });
  });

  it('cancels a line at pick with a new line explaining why (out_of_stock_in_location)', async () => {
    await withSandbox({ rates: { ...CALM, cancel: 1 } }, async (sb) => {
      expect((await sb.create(buildOrderPayload('CXL-1', { lines: [{ quantity: 3 }] }))).status).toBe(201);
      sb.advanceClock(1);
      expect((await read(sb, 'CXL-1')).lines.map((l) => l.status)).toEqual(['Waiting to Clear']);
      sb.advanceClock(2);
      const { lines, packages } = await read(sb, 'CXL-1');
      expect(lines.map((l) => [l.customerLineItemId, l.disposition, l.status, l.quantity])).toEqual([
        ['L1', 'api_order', 'Order Canceled', 3],
        ['L1-R1', 'out_of_stock_in_location', 'Order Canceled', 3],
      ]);
      sb.advanceClock(24 * 10);
      expect((await read(sb, 'CXL-1')).packages).toEqual(packages);
      expect(packages).toEqual([]);
      expect(sb.stats().byStatus).toEqual({ 'Order Canceled': 2 });
    });
  });
});

describe('determinism', () => {
  async function story(seed: number, ids: string[]) {
    return withSandbox({ seed }, async (sb) => {
      for (const id of ids) expect((await sb.create(buildOrderPayload(id, { lines: [{ quantity: 3 }, { productId: 'BND-2001' }] }))).status).toBe(201);
      sb.advanceClock(24 * 15);
      const out: Record<string, unknown> = {};
      for (const id of [...ids].sort()) out[id] = await read(sb, id);
      return out;
    });
  }

  it('tells the same story for a seed whatever the order of creation', async () => {
    const ids = Array.from({ length: 12 }, (_, i) => `DET-${i}`);
    const a = await story(7, ids);
    const b = await story(7, [...ids].reverse());
    expect(b).toEqual(a);
    const c = await story(8, ids);
    expect(c).not.toEqual(a);
  });
});
