/**
 * Checking a sheet with tiny memory windows (two orders open at once, rows and verdicts on disk from the first
 * byte) gives the same orders and the same result file, byte for byte, as checking it in memory; on a sheet
 * whose orders' rows are scattered, so orders are finished and taken up again many times over.
 */
import { readFileSync } from 'node:fs';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { checkFile } from '../../src/validate/check-file.js';
import { validationOutcome } from '../../src/validate/run-validate.js';
import { writeResultFile } from '../../src/result-files/write-result.js';
import { silentLogger } from '../../src/log.js';
import type { CheckedSheet } from '../../src/orders/types.js';
import { FIELDS } from '../../src/sheet/columns.js';
import { useTempDir } from '../sheet/support.js';

const fixture = useTempDir();
const NOW = new Date('2026-11-20T12:00:00Z');
const context = { now: NOW, timezone: 'UTC', sourcesOfSale: ['OtherMarketplace'] };
const TINY = { openOrders: 2, rowStore: { memoryBytes: 0, chunkRows: 3 }, verdicts: { memoryBytes: 0 } };

/** Orders of 1 to 4 lines, some with mistakes, their rows shuffled across the sheet (a seeded shuffle). */
function scatteredSheet(orders: number): string {
  let seed = 7;
  const random = (n: number): number => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return (seed >>> 8) % n;
  };
  const rows: string[][] = [];
  for (let o = 0; o < orders; o++) {
    const lines = 1 + random(4);
    for (let k = 0; k < lines; k++) {
      const row: Record<string, string> = {
        customerOrderId: o % 17 === 5 && k === 0 ? '' : `SO-${o}`,
        orderDate: o % 11 === 3 ? '2026-09-01' : '2026-11-19 14:30',
        sourceOfSale: 'OtherMarketplace',
        salesTax: '1.00',
        fullName: o % 13 === 4 && k === 1 ? 'Someone Else' : `Buyer ${o} Zoë 東京`,
        addressLine1: `${o} Main St, Apt ${k}`,
        city: 'Springfield',
        provinceOrState: 'IL',
        postalOrZipCode: o % 7 === 2 ? '6270' : '62704',
        countryCode: 'US',
        phone: '(217) 555-0134',
        productId: `PRD-${100 + random(5)}`,
        customerLineItemId: o % 9 === 1 ? '1' : String(k + 1),
        name: k === 2 ? '=HYPERLINK("x")' : `Mug "blue" ${k}`,
        quantity: o % 19 === 6 ? '0' : String(1 + k),
        unitPrice: '9.50',
      };
      rows.push(FIELDS.map((f) => row[f] ?? ''));
    }
  }
  for (let i = rows.length - 1; i > 0; i--) {
    const j = random(i + 1);
    [rows[i], rows[j]] = [rows[j]!, rows[i]!];
  }
  return Papa.unparse([[...FIELDS], ...rows]);
}

async function checkAndWrite(file: string, out: string, keep?: typeof TINY): Promise<{ sheet: CheckedSheet; bytes: Buffer }> {
  const checked = await checkFile(file, { context, logger: silentLogger, read: { workerMinBytes: Number.POSITIVE_INFINITY }, ...(keep ? { keep } : {}) });
  if (!checked.ok) throw new Error(checked.message);
  const outcomes = checked.sheet.orders.map((o) => validationOutcome(o.issues));
  await writeResultFile({
    command: 'validate', sheet: checked.sheet, outcomes, extraColumns: [], path: out, isDefaultPath: false,
    generatedAt: NOW, notes: [], sourcesOfSale: [], logger: silentLogger,
  });
  return { sheet: checked.sheet, bytes: readFileSync(out) };
}

describe('checking with rows and orders kept on disk', () => {
  it('gives the same orders and the same result file byte for byte as in memory, for a sheet of scattered orders', async () => {
    const file = fixture('scattered.csv', scatteredSheet(150));
    const inMemory = await checkAndWrite(file, fixture('memory.csv'));
    const onDisk = await checkAndWrite(file, fixture('disk.csv'), TINY);

    const rows = onDisk.sheet.rows as unknown as { spilledBytes: number };
    expect(rows.spilledBytes).toBeGreaterThan(0);
    expect(onDisk.sheet.orders.length).toBe(inMemory.sheet.orders.length);
    // Some orders are invalid, several for more than one reason, and rows of many orders are apart.
    expect(inMemory.sheet.orders.filter((o) => o.status === 'invalid').length).toBeGreaterThan(20);
    expect(inMemory.sheet.orders.filter((o) => o.rows.some((r, i) => i > 0 && r !== o.rows[i - 1]! + 1)).length).toBeGreaterThan(50);
    expect([...onDisk.sheet.orders].map(view)).toEqual([...inMemory.sheet.orders].map(view));
    for (const index of [0, 17, 99, 149]) expect(onDisk.sheet.orders.at(index)!.payload).toEqual(inMemory.sheet.orders.at(index)!.payload);
    expect(onDisk.bytes.length).toBeGreaterThan(10_000);
    expect(onDisk.bytes.equals(inMemory.bytes)).toBe(true);
    onDisk.sheet.release?.();
    inMemory.sheet.release?.();
  });
});

function view(order: { customerOrderId: string | null; rows: number[]; status: string; issues: unknown[] }): unknown {
  return { id: order.customerOrderId, rows: order.rows, status: order.status, issues: order.issues };
}
