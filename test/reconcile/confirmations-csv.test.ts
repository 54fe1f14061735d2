/**
 * The confirmations CSV is uploaded to marketplaces: every value exactly as the API gave it, no formula
 * guard, no byte order mark (README, reconcile).
 */
import { readFileSync } from 'node:fs';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { CONFIRMATION_COLUMNS, writeConfirmationsCsv } from '../../src/reconcile/confirmations.js';
import { reconcileOrder } from '../../src/reconcile/match.js';
import { useTempDir } from '../support/temp-dir.js';
import { expected, nowAt, pkg, readOf } from './builders.js';

const file = useTempDir('confirmations');

/** A shipped one-package order whose marketplace ID and tracking number are the given texts. */
function shippedOrder(id: string, marketplaceOrderId: string, tracking: string) {
  const order = expected(id, [{ id: 'L1', productId: 'PRD-1001', quantity: 1 }], { marketplaceOrderId });
  return reconcileOrder({
    expected: order,
    read: readOf(order, 'Shipped'),
    packages: [pkg({ id: `P-${id}`, order: id, tracking, items: [{ line: 'L1', productId: 'PRD-1001', quantity: 1 }] })],
    now: nowAt(60),
    lateAfterDays: 3,
  });
}

describe('the confirmations CSV', () => {
  const ids = ['-12345', '+4477', '=1+2', '@SUM(1)', "'quoted", ' padded ', 'a,b "c"'];
  const orders = ids.map((mp, i) => shippedOrder(`C-${i + 1}`, mp, i === 1 ? '+1TRACK' : `TRK-${i + 1}`));

  it('writes marketplace order IDs and tracking numbers exactly, even those a spreadsheet would take for a formula', async () => {
    const path = file('exact.csv');
    await writeConfirmationsCsv(path, orders);
    const rows = Papa.parse<string[]>(readFileSync(path, 'utf8'), { skipEmptyLines: true }).data;
    expect(rows[0]).toEqual([...CONFIRMATION_COLUMNS]);
    expect(rows.slice(1).map((r) => r[0])).toEqual(ids);
    expect(rows[2]![3]).toBe('+1TRACK');
    expect(rows.slice(1).map((r) => r[1])).toEqual(ids.map((_, i) => `C-${i + 1}`));
  });

  it('starts with the first header, not a byte order mark, and plain values are written bare', async () => {
    const path = file('no-bom.csv');
    await writeConfirmationsCsv(path, orders.slice(0, 2));
    const bytes = readFileSync(path);
    expect(bytes.subarray(0, 18).toString('latin1')).toBe('marketplaceOrderId');
    const lines = bytes.toString('utf8').split('\r\n');
    expect(lines[1]!.startsWith('-12345,C-1,OtherMarketplace,TRK-1,')).toBe(true);
    expect(lines[2]!.startsWith('+4477,C-2,OtherMarketplace,+1TRACK,')).toBe(true);
  });
});
