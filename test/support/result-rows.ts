/** In-memory result-file inputs for the result-file tests: a small sheet in a user's own header spelling. */
import type { Issue } from '../../src/issues/index.js';
import type { Field } from '../../src/sheet/columns.js';
import type { CellValue } from '../../src/sheet/types.js';
import type { ResultRow, ResultSheetInput } from '../../src/output-files/types.js';

export const HEADERS = [
  'Customer Order ID', 'orderDate', 'sourceOfSale', 'salesTax', 'fullName', 'addressLine1', 'city', 'state', 'zip',
  'countryCode', 'phone', 'productId', 'customerLineItemId', 'name', 'qty', 'unitPrice', 'Gift note',
];
export const COLUMNS: (Field | null)[] = [
  'customerOrderId', 'orderDate', 'sourceOfSale', 'salesTax', 'fullName', 'addressLine1', 'city', 'provinceOrState', 'postalOrZipCode',
  'countryCode', 'phone', 'productId', 'customerLineItemId', 'name', 'quantity', 'unitPrice', null,
];
export const col = (field: Field): number => COLUMNS.indexOf(field);

export function issue(row: number, field: Field | null, code: Issue['code'], message: string, severity: Issue['severity'] = 'error'): Issue {
  const colIndex = field === null ? undefined : col(field);
  const result: Issue = { row, column: colIndex === undefined ? null : HEADERS[colIndex]!, code, severity, message };
  if (colIndex !== undefined) result.colIndex = colIndex;
  return result;
}

export function cells(order: string, overrides: Partial<Record<Field, CellValue>> = {}, gift: CellValue = null): CellValue[] {
  const base: Partial<Record<Field, CellValue>> = {
    customerOrderId: order,
    orderDate: new Date(Date.UTC(2026, 10, 20, 14, 30)),
    sourceOfSale: 'OtherMarketplace',
    salesTax: 4.95,
    fullName: 'Maria Lopez',
    addressLine1: '123 Main St',
    city: 'Springfield',
    provinceOrState: 'IL',
    postalOrZipCode: '02134',
    countryCode: 'US',
    phone: '+1 217 555 0134',
    productId: 'PRD-1001',
    customerLineItemId: '1',
    name: 'Ceramic mug, blue',
    quantity: 2,
    unitPrice: 29.99,
    ...overrides,
  };
  return COLUMNS.map((f) => (f === null ? gift : (base[f] ?? null)));
}

/** Five data rows (2..6, with a skipped blank row 5): A-1 valid (rows 2, 3), B-2 invalid (rows 4, 6). */
export function sampleRows(): ResultRow[] {
  return [
    { rowNumber: 2, cells: cells('A-1'), status: 'valid', issues: [], needsFix: false },
    { rowNumber: 3, cells: cells('A-1', { customerLineItemId: '2', quantity: 1 }), status: 'valid', issues: [
      issue(3, 'postalOrZipCode', 'postal_code_padded', 'ZIP code 2134 lost its leading zero; read as "02134".', 'warning'),
    ], needsFix: false },
    { rowNumber: 4, cells: cells('B-2', { postalOrZipCode: '1234', fullName: null }, '=HYPERLINK("http://x")'), status: 'invalid', issues: [
      issue(4, 'postalOrZipCode', 'invalid_postal_code', 'ZIP code "1234" must be 5 digits or ZIP+4 (12345-6789).'),
      issue(4, 'fullName', 'required', 'fullName is required.'),
    ], needsFix: true },
    { rowNumber: 6, cells: cells('B-2', { customerLineItemId: '2', orderDate: new Date(Date.UTC(2026, 10, 21)) }), status: 'invalid', issues: [], relatedErrorRows: [4], needsFix: true },
  ];
}

export function sampleInput(overrides: Partial<ResultSheetInput> = {}, rows: Iterable<ResultRow> = sampleRows()): ResultSheetInput {
  return {
    headers: HEADERS,
    headerRow: 1,
    columns: COLUMNS,
    extraColumns: [],
    fileIssues: [{ row: null, column: 'Gift note', code: 'unknown_column', severity: 'warning', message: 'Column "Gift note" is not an order field and is ignored.', colIndex: 16 }],
    rows,
    summary: {
      command: 'validate',
      file: 'orders.csv',
      sha256: 'ab'.repeat(32),
      generatedAt: new Date(Date.UTC(2026, 10, 22, 9, 0)),
      rows: 4,
      orders: 2,
      counts: { valid: 1, invalid: 1 },
      issueCounts: { invalid_postal_code: 1, required: 1, postal_code_padded: 1, unknown_column: 1 },
      notes: ['subTotal computed for 1 order'],
    },
    ...overrides,
  };
}
