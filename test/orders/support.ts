/** In-memory sheets for the checker's tests: rows by field name, an OpenedSheet, a fixed clock. */
import { checkSheet } from '../../src/orders/check-sheet.js';
import type { CheckContext, CheckedOrder, CheckedSheet } from '../../src/orders/types.js';
import { FIELDS, type Field } from '../../src/sheet/columns.js';
import { mapHeaders } from '../../src/sheet/headers.js';
import type { CellValue, OpenedSheet, RawRow } from '../../src/sheet/types.js';
import type { Issue, IssueCode } from '../../src/issues/index.js';

/** The instant the tests check at, unless one says otherwise. */
export const NOW = new Date('2026-11-20T12:00:00.000Z');

export function contextAt(now: Date = NOW, overrides: Partial<CheckContext> = {}): CheckContext {
  return { now, timezone: 'UTC', sourcesOfSale: ['OtherMarketplace'], ...overrides };
}

export type RowSpec = Partial<Record<Field, CellValue>>;

/** A valid one-line order row; order-level values as a marketplace export repeats them. */
export function validRow(overrides: RowSpec = {}): RowSpec {
  return {
    customerOrderId: 'SO-1',
    marketplaceOrderId: '113-4567890-1234567',
    orderDate: '2026-11-19 14:30',
    sourceOfSale: 'OtherMarketplace',
    requestedDeliveryDate: '',
    subTotal: '59.98',
    salesTax: '4.95',
    discountTotal: '',
    grandTotal: '64.93',
    fullName: 'Maria Lopez',
    email: 'maria@example.com',
    addressLine1: '123 Main St',
    addressLine2: 'Apt 4B',
    addressLine3: '',
    city: 'Springfield',
    provinceOrState: 'IL',
    postalOrZipCode: '62704',
    countryCode: 'US',
    phone: '(217) 555-0134',
    carrierId: '',
    shippingAccountNumber: '',
    shipLabelNameDisplay: '',
    shippingContactName: '',
    shippingContactPhoneNumber: '',
    productId: 'PRD-1001',
    customerLineItemId: '1',
    name: 'Ceramic mug, blue',
    quantity: '2',
    unitPrice: '29.99',
    discount: '',
    ...overrides,
  };
}

/** A later line of the same order: totals left blank after the first row, as the template allows. */
export function laterRow(overrides: RowSpec = {}): RowSpec {
  return validRow({ subTotal: '', grandTotal: '', customerLineItemId: '2', quantity: '1', ...overrides });
}

export interface SheetSpec {
  /** Header texts; default every field name. A field missing from `fields` has no column. */
  headers?: string[];
  fields?: readonly Field[];
  rows: RowSpec[];
  format?: 'csv' | 'xlsx';
  batchSize?: number;
}

/** An OpenedSheet over rows held in memory; data rows start at row 2. */
export function openedSheet(spec: SheetSpec): OpenedSheet {
  const fields = spec.fields ?? FIELDS;
  const headers = spec.headers ?? [...fields];
  const rows: RawRow[] = spec.rows.map((row, i) => ({
    rowNumber: i + 2,
    cells: fields.map((f) => (row[f] === undefined ? null : row[f]!)),
  }));
  const batchSize = spec.batchSize ?? 3;
  return {
    file: 'orders.csv',
    format: spec.format ?? 'csv',
    headers,
    headerRow: 1,
    sizeBytes: 0,
    rows: (async function* () {
      for (let i = 0; i < rows.length; i += batchSize) yield rows.slice(i, i + batchSize);
    })(),
    bytesRead: () => 0,
    sha256: () => 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  };
}

export async function check(rows: RowSpec[], ctx: CheckContext = contextAt(), spec: Omit<SheetSpec, 'rows'> = {}): Promise<CheckedSheet> {
  const opened = openedSheet({ ...spec, rows });
  return checkSheet(opened, mapHeaders(opened.headers), ctx);
}

/** The only order of a one-order sheet. */
export async function checkOne(rows: RowSpec[], ctx?: CheckContext, spec?: Omit<SheetSpec, 'rows'>): Promise<CheckedOrder> {
  const sheet = await check(rows, ctx, spec);
  if (sheet.orders.length !== 1) throw new Error(`expected one order, got ${sheet.orders.length}`);
  return sheet.orders.at(0)!;
}

export function codes(order: CheckedOrder): IssueCode[] {
  return order.issues.map((i) => i.code);
}

export function issuesWith(order: CheckedOrder, code: IssueCode): Issue[] {
  return order.issues.filter((i) => i.code === code);
}

/** A date-time text `days` days before `now`, in UTC: `2026-11-19 14:30:00`. */
export function isoDaysBefore(now: Date, days: number): string {
  return new Date(now.getTime() - days * 86_400_000).toISOString();
}
