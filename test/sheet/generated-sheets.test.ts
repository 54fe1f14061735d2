import { describe, expect, it } from 'vitest';
import { writeLargeCsv, writeLargeXlsx } from '../../bench/order-sheets.js';
import { COLUMNS, type Field } from '../../src/sheet/columns.js';
import { mapHeaders } from '../../src/sheet/headers.js';
import type { CellValue } from '../../src/sheet/types.js';
import { readAll, useTempDir } from './support.js';

const fixture = useTempDir();
const NOW = new Date('2031-02-03T04:05:06Z');
const DAY = 86_400_000;

const cents = (value: CellValue): number => Math.round(Number(value) * 100);

function checkOrders(rows: { cells: CellValue[] }[], asDate: (value: CellValue) => number): void {
  const at = (cells: CellValue[], field: Field): CellValue => cells[COLUMNS.findIndex((c) => c.field === field)]!;
  const orders = new Map<CellValue, CellValue[][]>();
  for (const { cells } of rows) orders.set(at(cells, 'customerOrderId'), [...(orders.get(at(cells, 'customerOrderId')) ?? []), cells]);
  expect(rows.length / orders.size).toBeGreaterThan(2.5);
  expect(rows.length / orders.size).toBeLessThan(3.5);
  for (const lines of orders.values()) {
    const first = lines[0]!;
    const subTotal = lines.reduce((sum, l) => sum + cents(at(l, 'unitPrice')) * Number(at(l, 'quantity')), 0);
    const discountTotal = lines.reduce((sum, l) => sum + cents(at(l, 'discount') || 0) * Number(at(l, 'quantity')), 0);
    expect(cents(at(first, 'subTotal'))).toBe(subTotal);
    expect(cents(at(first, 'discountTotal'))).toBe(discountTotal);
    expect(cents(at(first, 'grandTotal'))).toBe(subTotal + cents(at(first, 'salesTax')));
    const age = NOW.getTime() - asDate(at(first, 'orderDate'));
    expect(age).toBeGreaterThan(0);
    expect(age).toBeLessThan(5 * DAY);
    expect(String(at(first, 'postalOrZipCode'))).toMatch(/^\d{5}(-\d{4})?$/);
    expect(String(at(first, 'phone')).replace(/\D/g, '')).toHaveLength(10);
    expect(at(first, 'sourceOfSale')).toBe('OtherMarketplace');
    expect(at(first, 'countryCode')).toBe('US');
  }
}

describe('generated order sheets for benchmarks', () => {
  it('writes a CSV of exactly the rows asked for, every template column, consistent totals and recent dates', async () => {
    const file = fixture('generated.csv');
    await writeLargeCsv(file, 3000, NOW);
    const { sheet, rows } = await readAll(file);
    expect(rows).toHaveLength(3000);
    expect(mapHeaders(sheet.headers).issues).toEqual([]);
    checkOrders(rows, (value) => Date.parse(`${String(value).replace(' ', 'T')}:00Z`));
  });

  it('writes an XLSX with typed date cells and text-formatted IDs that reads back the same way', async () => {
    const file = fixture('generated.xlsx');
    await writeLargeXlsx(file, 600, NOW);
    const { sheet, rows } = await readAll(file);
    expect(rows).toHaveLength(600);
    expect(mapHeaders(sheet.headers).issues).toEqual([]);
    checkOrders(rows, (value) => (value as Date).getTime());
  });
});
