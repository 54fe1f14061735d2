import type { CheckedOrder } from '../../src/orders/types.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type ExcelJS from 'exceljs';
import Papa from 'papaparse';
import { beforeAll, describe, expect, test } from 'vitest';
import { CARRIER_IDS, COUNTRY_CODES, DEFAULT_SOURCES_OF_SALE } from '../../src/contract/enums.js';
import { dollarsToCents } from '../../src/contract/money.js';
import { generateTemplates, TEMPLATES_DIR } from '../../src/output-files/generate-templates.js';
import { exampleRows } from '../../src/output-files/template-content.js';
import { columnLetter, TEMPLATE_HEADERS } from '../../src/output-files/template-form.js';
import { EXAMPLE_DATE_NOTE, EXAMPLES_NOTE, writeTemplate } from '../../src/output-files/write-template.js';
import { COLUMNS } from '../../src/sheet/columns.js';
import { checkFile } from '../../src/validate/check-file.js';
import { runValidate } from '../../src/validate/run-validate.js';
import { silentLogger } from '../../src/log.js';
import { useTempDir } from '../support/temp-dir.js';
import { noteOf, readWorkbook, rowValues, sheet, validationsOf } from '../support/xlsx-files.js';

const file = useTempDir('template');
const letter = (field: string): string => columnLetter(TEMPLATE_HEADERS.indexOf(field as never) + 1);

describe('writeTemplate (xlsx)', () => {
  const path = file('template.xlsx');
  let workbook: ExcelJS.Workbook;
  let orders: ExcelJS.Worksheet;
  beforeAll(async () => {
    await writeTemplate(path, { format: 'xlsx', sourcesOfSale: ['ShopA', 'ShopB'] });
    workbook = await readWorkbook(path);
    orders = sheet(workbook, 'Orders');
  });

  test('puts the Orders sheet first with every column in order, then Examples, Instructions and a hidden Lists sheet', () => {
    expect(workbook.worksheets.map((w) => [w.name, w.state])).toEqual([
      ['Orders', 'visible'],
      ['Examples', 'visible'],
      ['Instructions', 'visible'],
      ['Lists', 'hidden'],
    ]);
    expect(rowValues(orders, 1)).toEqual(COLUMNS.map((c) => c.field));
  });

  test('leaves the Orders sheet empty below its header: the examples are not on the sheet that is read', () => {
    expect(orders.actualRowCount).toBe(1);
  });

  test('has a bold frozen header, filtered, each header noting what goes in the column', () => {
    expect(orders.getCell('A1').font?.bold).toBe(true);
    expect(orders.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
    expect(orders.autoFilter).toBe('A1:AD1');
    expect(noteOf(orders.getCell('A1'))).toMatch(/^Required, order level\. Your unique order ID/);
    expect(noteOf(orders.getCell(`${letter('discount')}1`))).toMatch(/^Optional, line level/);
  });

  test('offers dropdowns for sourceOfSale, carrierId and countryCode, fed from the Lists sheet', () => {
    const validations = validationsOf(orders);
    for (const row of [2, 500, 10_001]) {
      expect(validations[`${letter('sourceOfSale')}${row}`]).toMatchObject({ type: 'list', formulae: ['Lists!$A$2:$A$3'], errorStyle: 'warning' });
      expect(validations[`${letter('carrierId')}${row}`]).toMatchObject({ type: 'list', formulae: ['Lists!$B$2:$B$4'], errorStyle: 'stop' });
      expect(validations[`${letter('countryCode')}${row}`]).toMatchObject({ type: 'list', formulae: [`Lists!$C$2:$C$${COUNTRY_CODES.length + 1}`] });
    }
    const lists = sheet(workbook, 'Lists');
    expect(lists.getColumn(1).values.slice(2)).toEqual(['ShopA', 'ShopB']);
    expect(lists.getColumn(2).values.slice(2)).toEqual([...CARRIER_IDS]);
    expect(lists.getColumn(3).values.slice(2)).toEqual([...COUNTRY_CODES]);
  });

  test('formats ID, ZIP and phone columns as text, dates as dates and amounts as money', () => {
    const numFmt = (field: string): string | undefined => orders.getColumn(TEMPLATE_HEADERS.indexOf(field as never) + 1).numFmt;
    for (const c of COLUMNS.filter((c) => c.isTextFormatted)) expect(numFmt(c.field)).toBe('@');
    expect(numFmt('postalOrZipCode')).toBe('@');
    expect(numFmt('phone')).toBe('@');
    expect(numFmt('orderDate')).toBe('yyyy-mm-dd hh:mm');
    expect(numFmt('unitPrice')).toBe('#,##0.00');
    expect(numFmt('name')).toBeUndefined();
  });

  test('shows example orders on the Examples sheet, in the Orders sheet\'s columns and formats, their orderDate blank', () => {
    const examples = sheet(workbook, 'Examples');
    expect(rowValues(examples, 1)).toEqual(COLUMNS.map((c) => c.field));
    expect(noteOf(examples.getCell('A1'))).toBe(EXAMPLES_NOTE);
    expect(examples.getCell('A2').value).toBe('SO-10001');
    expect(examples.getCell('A4').value).toBe('SO-10002');
    const orderDate = (row: number): ExcelJS.Cell => examples.getCell(`${letter('orderDate')}${row}`);
    for (const row of [2, 4]) {
      expect(orderDate(row).value).toBeNull();
      expect(noteOf(orderDate(row))).toBe(EXAMPLE_DATE_NOTE);
      expect(orderDate(row).numFmt).toBe('yyyy-mm-dd hh:mm');
    }
    expect(orderDate(3).value).toBeNull();
    expect(examples.getCell(`${letter('sourceOfSale')}2`).value).toBe('ShopA');
    expect(examples.getCell(`${letter('unitPrice')}2`).value).toBe(29.99);
    expect(examples.getCell(`${letter('postalOrZipCode')}2`).value).toBe('02134');
    expect(examples.getCell(`${letter('postalOrZipCode')}2`).numFmt).toBe('@');
  });

  test('describes the general rules and every column on the Instructions sheet', () => {
    const instructions = sheet(workbook, 'Instructions');
    const values = instructions.getSheetValues().filter(Array.isArray).map((r) => r.slice(1));
    const texts = values.flat().map(String);
    expect(texts.some((t) => t.includes('One row per line item'))).toBe(true);
    expect(texts.some((t) => t.includes('same customerOrderId form one order'))).toBe(true);
    expect(texts.some((t) => t.includes('may be left blank'))).toBe(true);
    for (const c of COLUMNS) {
      const row = values.find((r) => r[0] === c.field);
      expect(row, c.field).toBeDefined();
      expect(row![1]).toBe(c.requiredValue ? 'yes' : 'optional');
      expect(row![2]).toBe(c.level);
      expect(row![5]).toBe(c.description);
    }
    expect(values.find((r) => r[0] === 'sourceOfSale')![4]).toContain('ShopA, ShopB');
  });
});

describe('the example orders', () => {
  test('add up to the cent: subTotal, discountTotal and grandTotal match their lines', () => {
    const rows = exampleRows('OtherMarketplace');
    const cents = (text: string | undefined): number => dollarsToCents(Number(text ?? '0'))!;
    const orders = new Map<string, typeof rows>();
    for (const r of rows) orders.set(r.customerOrderId!, [...(orders.get(r.customerOrderId!) ?? []), r]);
    const first = orders.get('SO-10001')!;
    const sub = first.reduce((n, r) => n + cents(r.unitPrice) * Number(r.quantity), 0);
    const disc = first.reduce((n, r) => n + cents(r.discount) * Number(r.quantity), 0);
    expect(cents(first[0]!.subTotal)).toBe(sub);
    expect(cents(first[0]!.discountTotal)).toBe(disc);
    expect(cents(first[0]!.grandTotal)).toBe(sub + cents(first[0]!.salesTax));
    expect(orders.get('SO-10002')![0]!.subTotal).toBeUndefined();
  });

  test('can never be sent as they are (orderDate blank), and need nothing but an orderDate to be valid', async () => {
    const path = file('examples-check.xlsx');
    await writeTemplate(path, { format: 'xlsx', sourcesOfSale: ['ShopA', 'ShopB'] });
    const context = { now: new Date('2026-11-21T09:00:00Z'), timezone: 'UTC', sourcesOfSale: ['ShopA', 'ShopB'] };
    const checked = await checkFile(path, { context, sheet: 'Examples', logger: silentLogger });
    if (!checked.ok) throw new Error(checked.message);
    const errors = (o: CheckedOrder) => o.issues.filter((i) => i.severity === 'error').map((i) => [i.column, i.code]);
    expect(checked.sheet.orders.map((o) => [o.customerOrderId, o.status, errors(o)])).toEqual([
      ['SO-10001', 'invalid', [['orderDate', 'required']]],
      ['SO-10002', 'invalid', [['orderDate', 'required']]],
    ]);
  });
});

describe('validate on a freshly written template', () => {
  const context = { now: new Date('2026-11-21T09:00:00Z'), timezone: 'UTC', sourcesOfSale: DEFAULT_SOURCES_OF_SALE };

  for (const format of ['xlsx', 'csv'] as const) {
    test(`reads no example as an order (${format}): the template holds none to check`, async () => {
      const path = file(`fresh.${format}`);
      await writeTemplate(path, { format, sourcesOfSale: DEFAULT_SOURCES_OF_SALE });
      const result = await runValidate({ files: [path], skipResultFile: true, context, logger: silentLogger });
      expect([...result.report.orders]).toEqual([]);
      expect(result.report.input).toEqual([
        expect.objectContaining({ file: path, error: expect.objectContaining({ code: 'empty_file', message: expect.stringContaining('has a header row but no orders below it') }) }),
      ]);
    });
  }
});

describe('writeTemplate (csv)', () => {
  test('holds the header row alone, with a BOM for Excel', async () => {
    const path = file('template.csv');
    await writeTemplate(path, { format: 'csv', sourcesOfSale: ['ShopA'] });
    const text = readFileSync(path, 'utf8');
    expect(text.startsWith('\ufeff')).toBe(true);
    expect(text.endsWith('\r\n')).toBe(true);
    const rows = Papa.parse<string[]>(text.slice(1), { skipEmptyLines: true }).data;
    expect(rows).toEqual([[...TEMPLATE_HEADERS]]);
  });
});

/** What a template says, ignoring what changes from one write to the next (zip and core timestamps). */
async function describeTemplate(path: string): Promise<unknown> {
  const workbook = await readWorkbook(path);
  return workbook.worksheets.map((w) => ({
    name: w.name,
    state: w.state,
    views: w.views,
    autoFilter: w.autoFilter,
    values: w.getSheetValues(),
    notes: w.getSheetValues().flatMap((_, r) => (r === 0 ? [] : w.getRow(r).cellCount ? collectNotes(w, r) : [])),
    formats: w.columns?.map((c) => [c.width, c.numFmt]) ?? [],
    validations: validationsOf(w),
  }));
}

function collectNotes(w: ExcelJS.Worksheet, r: number): string[] {
  const notes: string[] = [];
  w.getRow(r).eachCell((cell) => {
    const note = noteOf(cell);
    if (note) notes.push(`${cell.address}: ${note}`);
  });
  return notes;
}

describe('the committed templates', () => {
  test('are what the generator writes now (run `node dist/output-files/generate-templates.js` after changing the columns)', async () => {
    const dir = file('generated');
    await generateTemplates(dir, DEFAULT_SOURCES_OF_SALE);
    const committed = (name: string): string => join(TEMPLATES_DIR, name);
    expect(readFileSync(committed('order-template.csv'), 'utf8')).toBe(readFileSync(join(dir, 'order-template.csv'), 'utf8'));
    expect(await describeTemplate(committed('order-template.xlsx'))).toEqual(await describeTemplate(join(dir, 'order-template.xlsx')));
  });
});
