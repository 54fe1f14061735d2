/**
 * A marketplace export read through its profile, with cells corrected in the page, checked with tiny memory
 * windows (two orders open at once, rows and verdicts on disk from the first byte): the same orders, issues and
 * result file, byte for byte, as checked in memory. Its orders' rows are scattered, so orders are finished and
 * taken up again many times over, and what the mapping found wrong with a row (an amount that is no whole
 * number of cents a unit, an amount that is no number) must come back each time its order is finished.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { checkFile, type ReadSettings } from '../../src/validate/check-file.js';
import { validationOutcome } from '../../src/validate/run-validate.js';
import { writeResultFile } from '../../src/result-files/write-result.js';
import { silentLogger } from '../../src/log.js';
import { BUILTIN_PROFILES } from '../../src/mapping/builtin/index.js';
import type { CheckSheetOptions } from '../../src/orders/check-sheet.js';
import type { CheckedOrder, CheckedSheet } from '../../src/orders/types.js';
import { toColumnLetter } from '../../src/sheet/column-letters.js';
import { useTempDir } from '../support/temp-dir.js';

const at = useTempDir('mapped-spill');
const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'marketplaces');
const NOW = new Date('2026-11-20T12:00:00Z');
const context = { now: NOW, timezone: 'UTC', sourcesOfSale: ['OtherMarketplace'] };
const TINY: Pick<CheckSheetOptions, 'rowStore' | 'verdicts' | 'openOrders'> = { openOrders: 2, rowStore: { memoryBytes: 0, chunkRows: 3 }, verdicts: { memoryBytes: 0 } };
const AUTO: ReadSettings = { mapping: { kind: 'auto', profiles: BUILTIN_PROFILES } };

function headersOf(fixture: string): string[] {
  return Papa.parse<string[]>(readFileSync(join(FIXTURES, fixture), 'utf8').split(/\r?\n/, 1)[0]!).data[0]!;
}

/** A seeded shuffle of the rows, so an order's lines are far apart. */
function shuffled<T>(rows: T[]): T[] {
  let seed = 11;
  for (let i = rows.length - 1; i > 0; i--) {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    const j = (seed >>> 8) % (i + 1);
    [rows[i], rows[j]] = [rows[j]!, rows[i]!];
  }
  return rows;
}

/** WooCommerce's one-row-per-item export: `orders` orders of 1 to 3 items, some with planted problems. */
function wooSheet(orders: number): string {
  const headers = headersOf('woocommerce-one-row-per-item.csv');
  const rows: string[][] = [];
  for (let o = 0; o < orders; o++) {
    const items = 1 + (o % 3);
    for (let k = 0; k < items; k++) {
      const quantity = 1 + ((o + k) % 3);
      const cells: Record<string, string> = {
        order_id: String(7000 + o),
        order_number: String(7000 + o),
        date: o % 10 === 6 ? '2026-13-01 10:00:00' : '2026-11-17 09:30:00',
        tax_total: '1.00',
        billing_email: 'jo.payer@example.com',
        billing_phone: '(415) 555-0101',
        shipping_first_name: 'Mia',
        shipping_last_name: `Receiver ${o}`,
        shipping_address_1: `${o} Castro St`,
        shipping_postcode: o % 13 === 5 ? '' : '94114',
        shipping_city: 'San Francisco',
        shipping_state: 'CA',
        shipping_country: 'US',
        item_id: String(100 * o + k),
        item_name: `Item ${k} "blue"`,
        item_sku: `PRD-${1000 + k}`,
        item_quantity: String(quantity),
        // 10.00 for 3 units is no whole number of cents a unit; "n/a" is no amount.
        item_subtotal: o % 7 === 3 && quantity === 3 ? '10.00' : (quantity * 6).toFixed(2),
        item_total: o % 11 === 4 && k === 0 ? 'n/a' : (quantity * 5).toFixed(2),
      };
      rows.push(headers.map((h) => cells[h] ?? ''));
    }
  }
  return Papa.unparse([headers, ...shuffled(rows)]);
}

/** Shopify's orders export: the order's own columns on its first line only, line numbers generated per order. */
function shopifySheet(orders: number): string {
  const headers = headersOf('shopify-orders.csv');
  const rows: string[][] = [];
  for (let o = 0; o < orders; o++) {
    for (let k = 0; k < 1 + (o % 4); k++) {
      const first: Record<string, string> = k > 0 ? {} : {
        'Created at': '2026-11-17 09:12:40 -0500', Taxes: '1.00', 'Shipping Name': `Robin ${o}`, 'Shipping Address1': `${o} Elm St`,
        'Shipping City': 'Somerville', 'Shipping Zip': o % 9 === 2 ? '' : "'02143", 'Shipping Province': 'MA', 'Shipping Country': 'US', 'Shipping Phone': '+1 617-555-0142',
      };
      const cells: Record<string, string> = {
        ...first, Name: `#${5000 + o}`, 'Lineitem quantity': String(1 + k), 'Lineitem name': `Mug ${k}`, 'Lineitem price': '12.99', 'Lineitem sku': `PRD-${1001 + k}`,
        'Lineitem discount': o % 8 === 1 && k === 0 ? '1.00' : '0.00',
      };
      rows.push(headers.map((h) => cells[h] ?? ''));
    }
  }
  // Not shuffled across orders (an order's first line must come first): interleaved by blocks instead.
  const blocks = [0, 1, 2].map((b) => rows.filter((_, i) => i % 3 === b));
  return Papa.unparse([headers, ...orderFirstLinesFirst(blocks.flat(), headers)]);
}

/** Keeps each order's first line (the one naming its recipient) ahead of its other lines. */
function orderFirstLinesFirst(rows: string[][], headers: string[]): string[][] {
  const name = headers.indexOf('Shipping Name');
  return [...rows.filter((r) => r[name] !== ''), ...rows.filter((r) => r[name] === '')];
}

async function checkAndWrite(file: string, name: string, settings: ReadSettings, keep?: typeof TINY): Promise<{ sheet: CheckedSheet; bytes: Buffer; profile?: string }> {
  const checked = await checkFile(file, { context, logger: silentLogger, read: { workerMinBytes: Number.POSITIVE_INFINITY }, settings, ...(keep ? { keep } : {}) });
  if (!checked.ok) throw new Error(checked.message);
  const path = at(`${name}.result.csv`);
  await writeResultFile({
    command: 'validate', sheet: checked.sheet, outcomes: checked.sheet.orders.map((o) => validationOutcome(o.issues)), extraColumns: [], path, isDefaultPath: false,
    generatedAt: NOW, notes: [], sourcesOfSale: [], logger: silentLogger,
  });
  return { sheet: checked.sheet, bytes: readFileSync(path), ...(checked.mapping && { profile: checked.mapping.profile }) };
}

function view(order: CheckedOrder): unknown {
  return { id: order.customerOrderId, rows: order.rows, status: order.status, issues: order.issues, payload: order.payload };
}

async function expectSameOnDisk(file: string, name: string, settings: ReadSettings, profile: string): Promise<CheckedSheet> {
  const inMemory = await checkAndWrite(file, `${name}-memory`, settings);
  const onDisk = await checkAndWrite(file, `${name}-disk`, settings, TINY);
  expect(inMemory.profile).toBe(profile);
  expect((onDisk.sheet.rows as unknown as { spilledBytes: number }).spilledBytes).toBeGreaterThan(0);
  expect(inMemory.sheet.orders.filter((o) => o.rows.some((r, i) => i > 0 && r !== o.rows[i - 1]! + 1)).length).toBeGreaterThan(20);
  expect([...onDisk.sheet.orders].map(view)).toEqual([...inMemory.sheet.orders].map(view));
  expect(onDisk.bytes.equals(inMemory.bytes)).toBe(true);
  onDisk.sheet.release?.();
  return inMemory.sheet;
}

describe('a sheet read through a profile, with rows and orders kept on disk', () => {
  it('gives the same orders, with the mapping\'s own problems on their source cells, and the same result file as in memory', async () => {
    const file = at('woo.csv');
    writeFileSync(file, wooSheet(120));
    const sheet = await expectSameOnDisk(file, 'woo', AUTO, 'woocommerce');
    const errors = sheet.orders.flatMap((o) => o.issues.filter((i) => i.severity === 'error').map((i) => `${i.column}:${i.code}`));
    expect(errors).toContain('item_subtotal:invalid_number');
    expect(errors).toContain('item_total:invalid_number');
    expect(errors).toContain('shipping_postcode:required');
    // A unit price left blank by its amount's problem is that problem, not also a missing unitPrice.
    expect(errors.filter((e) => e.startsWith('unitPrice') || e.startsWith('discount'))).toEqual([]);
    expect(sheet.orders.filter((o) => o.status === 'invalid').length).toBeGreaterThan(20);
    expect(sheet.orders.filter((o) => o.status === 'valid').length).toBeGreaterThan(40);
    sheet.release?.();
  });

  it('gives the same orders and result file with cells corrected in the page', async () => {
    const file = at('woo-edited.csv');
    writeFileSync(file, wooSheet(120));
    const plain = await checkAndWrite(file, 'woo-plain', AUTO);
    // Every cell at fault in the first invalid orders, corrected: an amount, an empty postcode, a date.
    const fixes: Record<string, string> = { shipping_postcode: '94114', date: '2026-11-17 09:30:00' };
    const faulty = plain.sheet.orders.filter((o) => o.issues.some((i) => i.severity === 'error' && i.colIndex !== undefined)).slice(0, 6);
    const edits = faulty.flatMap((o) =>
      o.issues.filter((i) => i.severity === 'error' && i.colIndex !== undefined).map((i) => ({ row: i.row!, col: i.colIndex!, value: fixes[plain.sheet.headers[i.colIndex!]!] ?? '12.00', by: 'local user', at: NOW.toISOString() })),
    );
    expect(edits.length).toBeGreaterThan(3);
    plain.sheet.release?.();
    const sheet = await expectSameOnDisk(file, 'woo-edited', { ...AUTO, edits }, 'woocommerce');
    const ids = new Set(faulty.map((o) => o.customerOrderId));
    const corrected = sheet.orders.filter((o) => ids.has(o.customerOrderId));
    expect(corrected.flatMap((o) => o.issues.filter((i) => edits.some((e) => e.row === i.row && e.col === i.colIndex)))).toEqual([]);
    expect(corrected.map((o) => o.status)).toContain('valid');
    sheet.release?.();
  });

  it('numbers the lines of an export without line IDs the same way, wherever its rows are', async () => {
    const file = at('shopify.csv');
    writeFileSync(file, shopifySheet(90));
    const sheet = await expectSameOnDisk(file, 'shopify', AUTO, 'shopify');
    const valid = sheet.orders.filter((o) => o.status === 'valid');
    expect(valid.length).toBeGreaterThan(40);
    for (const order of valid) {
      expect(order.payload!.orderDetails.lineItems.map((l) => l.customerLineItemId)).toEqual(order.rows.map((_, k) => String(k + 1)));
    }
    sheet.release?.();
  });

  it('refuses a cell over the size limit as a template sheet would, naming its row and column, on either reading path', async () => {
    const rows = Papa.parse<string[]>(wooSheet(30)).data;
    const name = rows[0]!.indexOf('item_name');
    rows[25]![name] = 'x'.repeat(41);
    const file = at('woo-long-cell.csv');
    writeFileSync(file, Papa.unparse(rows));
    const worker = new URL('../../dist/sheet/csv-parse-worker.js', import.meta.url);
    for (const read of [{ workerMinBytes: Number.POSITIVE_INFINITY }, { workerMinBytes: 0, workerUrl: worker }]) {
      const edits = [{ row: 3, col: name, value: 'Mug', by: 'local user', at: NOW.toISOString() }];
      const checked = await checkFile(file, { context, logger: silentLogger, read: { ...read, limits: { maxCellChars: 40 } }, settings: { ...AUTO, edits }, keep: TINY });
      expect(checked.ok).toBe(false);
      if (checked.ok) continue;
      expect(checked.message).toContain(`woo-long-cell.csv: row 26, column ${toColumnLetter(name)} holds a cell of more than 40 characters`);
    }
  });
});
