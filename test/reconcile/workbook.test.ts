import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { writeConfirmationsCsv } from '../../src/reconcile/confirmations.js';
import { reconcileOrder } from '../../src/reconcile/match.js';
import { SHEET_NAMES, writeReconcileWorkbook } from '../../src/reconcile/workbook.js';
import { expected, nowAt, pkg, readOf } from './builders.js';
import { useTempFolder } from '../support/temp-dir.js';

const dir = useTempFolder('reconcile-wb');

const order = expected('W-1', [
  { id: 'L1', productId: 'PRD-1001', quantity: 2 },
  { id: 'L2', productId: 'BND-2002', quantity: 1 },
]);
const shipped = reconcileOrder({
  expected: { ...order, marketplaceOrderId: '=HYPERLINK("x")' },
  read: readOf(order, 'Shipped'),
  packages: [
    pkg({ id: 'P1', order: 'W-1', items: [{ line: 'L1', productId: 'PRD-1001', quantity: 2 }], replacedBy: 'P2' }),
    pkg({ id: 'P2', order: 'W-1', items: [{ line: 'L1', productId: 'PRD-1001', quantity: 2 }], delivered: true }),
    pkg({ id: 'P3', order: 'W-1', tracking: '+1TRACK', items: [{ line: 'L2', productId: 'PRD-1003', quantity: 2, lineItemProductId: 'BND-2002' }] }),
  ],
  now: nowAt(60),
  lateAfterDays: 3,
});
const missing = reconcileOrder({ expected: expected('W-2', [{ id: 'L1', productId: 'PRD-1001', quantity: 1 }]), read: null, packages: [], now: nowAt(60), lateAfterDays: 3 });

async function readBack(path: string): Promise<ExcelJS.Workbook> {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.readFile(path);
  return wb;
}

function rowValues(sheet: ExcelJS.Worksheet, n: number): unknown[] {
  return (sheet.getRow(n).values as unknown[]).slice(1);
}

describe('the reconciliation workbook', () => {
  const path = join(dir, 'out.xlsx');
  const written = writeReconcileWorkbook(path, [shipped, missing], {
    generatedAt: nowAt(60),
    facts: [['Orders selected', 'test']],
    lateAfterDays: 3,
    notes: ['a note'],
  });

  it('has the six sheets in order, each table with a bold frozen filtered header', async () => {
    await written;
    const wb = await readBack(path);
    expect(wb.worksheets.map((s) => s.name)).toEqual([...SHEET_NAMES]);
    for (const name of SHEET_NAMES.slice(1)) {
      const sheet = wb.getWorksheet(name)!;
      expect(sheet.getRow(1).getCell(1).font?.bold).toBe(true);
      expect(sheet.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
      expect(sheet.autoFilter).toBeTruthy();
    }
  });

  it('lists orders with their roll-up status coloured, counts and live tracking numbers', async () => {
    await written;
    const sheet = (await readBack(path)).getWorksheet('Orders')!;
    expect(rowValues(sheet, 1)).toEqual([
      'customerOrderId', 'marketplaceOrderId', 'sourceOfSale', 'orderDate', 'status', 'ordered', 'shipped', 'delivered', 'canceled',
      'livePackages', 'trackingNumbers', 'exceptions', 'inLedger',
    ]);
    const row = rowValues(sheet, 2);
    expect(row[0]).toBe('W-1');
    expect(row[3]).toBeInstanceOf(Date);
    expect(row.slice(4, 13)).toEqual(['shipped', 3, 3, 2, 0, 2, 'TRK-P2, +1TRACK', 'replaced_package', 'yes']);
    expect(sheet.getRow(2).getCell(5).fill).toMatchObject({ fgColor: { argb: 'FFC6EFCE' } });
    expect(rowValues(sheet, 3).slice(0, 5)).toEqual(['W-2', 'MP-W-2', 'OtherMarketplace', expect.any(Date), 'not_found']);
    expect(sheet.getRow(3).getCell(5).fill).toMatchObject({ fgColor: { argb: 'FFFFC7CE' } });
  });

  it('shows lines with ordered, shipped and delivered units and the bundle components', async () => {
    await written;
    const sheet = (await readBack(path)).getWorksheet('Lines')!;
    expect(rowValues(sheet, 1).slice(0, 11)).toEqual([
      'customerOrderId', 'customerLineItemId', 'productId', 'name', 'ordered', 'shipped', 'delivered', 'canceled', 'status', 'disposition', 'bundleComponentsShipped',
    ]);
    expect(rowValues(sheet, 2).slice(0, 10)).toEqual(['W-1', 'L1', 'PRD-1001', 'Item PRD-1001', 2, 2, 2, 0, 'Shipped', 'api_order']);
    expect(rowValues(sheet, 3)[10]).toBe('PRD-1003 x2');
  });

  it('shows packages with dates as dates and the replacement chain', async () => {
    await written;
    const sheet = (await readBack(path)).getWorksheet('Packages')!;
    const p1 = rowValues(sheet, 2);
    expect(p1.slice(0, 7)).toEqual(['W-1', 'P1', 'no', 'TRK-P1', 'CarrierX', 'Ground', 'FC-EAST-1']);
    expect(p1[7]).toBeInstanceOf(Date);
    expect(p1[13]).toBe('P1 → P2');
    expect(rowValues(sheet, 3)[9]).toBeInstanceOf(Date);
  });

  it('lists every exception with its order, and confirmations for live packages only', async () => {
    await written;
    const wb = await readBack(path);
    const exceptions = wb.getWorksheet('Exceptions')!;
    expect(rowValues(exceptions, 2).slice(0, 5)).toEqual(['W-1', '=HYPERLINK("x")', 'replaced_package', undefined, 'P1']);
    expect(rowValues(exceptions, 3).slice(2, 3)).toEqual(['missing_order']);
    const confirmations = wb.getWorksheet('Confirmations')!;
    expect(rowValues(confirmations, 1)).toEqual(['marketplaceOrderId', 'customerOrderId', 'sourceOfSale', 'trackingNumber', 'carrier', 'shipDate']);
    expect(confirmations.rowCount).toBe(3);
    expect(rowValues(confirmations, 2).slice(0, 5)).toEqual(['=HYPERLINK("x")', 'W-1', 'OtherMarketplace', 'TRK-P2', 'CarrierX']);
  });

  it('writes the summary with counts per status and per exception type', async () => {
    await written;
    const sheet = (await readBack(path)).getWorksheet('Summary')!;
    const pairs = new Map<unknown, unknown>();
    sheet.eachRow((row) => pairs.set(row.getCell(1).value, row.getCell(2).value));
    expect(pairs.get('orders')).toBe(2);
    expect(pairs.get('shipped')).toBe(1);
    expect(pairs.get('not_found')).toBe(1);
    expect(pairs.get('missing_order')).toBe(1);
    expect(pairs.get('Orders selected')).toBe('test');
  });
});

describe('the confirmations CSV', () => {
  it('has one row per live package, each value exactly as the API gave it (a file for upload, not for Excel)', async () => {
    const path = join(dir, 'confirm.csv');
    await writeConfirmationsCsv(path, [shipped, missing]);
    const lines = readFileSync(path, 'utf8').trim().split('\r\n');
    expect(lines).toEqual([
      'marketplaceOrderId,customerOrderId,sourceOfSale,trackingNumber,carrier,shipDate',
      `"=HYPERLINK(""x"")",W-1,OtherMarketplace,TRK-P2,CarrierX,${shipped.packages[1]!.shipDate}`,
      `"=HYPERLINK(""x"")",W-1,OtherMarketplace,+1TRACK,CarrierX,${shipped.packages[2]!.shipDate}`,
    ]);
  });
});
