/** Locating a field's cell in a checked sheet, so API-side issues point at the cell like the checker's do. */
import { severityOf, type Issue, type IssueCode } from '../issues/index.js';
import type { CheckedOrder, CheckedSheet } from './types.js';
import type { Field } from '../sheet/columns.js';

export interface SheetColumns {
  headers: readonly string[];
  columns: readonly (Field | null)[];
}

export function issueAt(sheet: SheetColumns, row: number | null, field: Field | null, code: IssueCode, message: string): Issue {
  const colIndex = field === null ? -1 : sheet.columns.indexOf(field);
  const issue: Issue = {
    row,
    column: field === null ? null : colIndex >= 0 ? (sheet.headers[colIndex] ?? field) : field,
    code,
    severity: severityOf(code),
    message,
  };
  if (colIndex >= 0) issue.colIndex = colIndex;
  return issue;
}

/** The sheet row of each line item: the checker builds lineItems in row order, one line per row. */
export function rowOfLine(order: CheckedOrder, lineIndex: number): number | null {
  return order.rows[lineIndex] ?? order.rows[0] ?? null;
}

/** Maps an API error field path such as `customerDetails.shippingAddress.postalOrZipCode` or `lineItems[1].quantity`. */
export function fieldOfApiPath(path: string | undefined): { field: Field | null; lineIndex: number | null } {
  if (!path) return { field: null, lineIndex: null };
  const line = /lineItems\[?\.?(\d+)\]?/.exec(path);
  const last = path.split(/[.[\]]/).filter(Boolean).pop() ?? '';
  const field: Field | null = last === 'addressLines' ? 'addressLine1' : (KNOWN_FIELDS.has(last) ? (last as Field) : null);
  return { field, lineIndex: line ? Number(line[1]) : null };
}

const KNOWN_FIELDS = new Set<string>([
  'customerOrderId', 'marketplaceOrderId', 'orderDate', 'sourceOfSale', 'requestedDeliveryDate', 'subTotal', 'salesTax',
  'discountTotal', 'grandTotal', 'fullName', 'email', 'city', 'provinceOrState', 'postalOrZipCode', 'countryCode', 'phone',
  'carrierId', 'shippingAccountNumber', 'shipLabelNameDisplay', 'shippingContactName', 'shippingContactPhoneNumber',
  'productId', 'customerLineItemId', 'name', 'quantity', 'unitPrice', 'discount',
]);

export function sheetColumnsOf(sheet: CheckedSheet): SheetColumns {
  return { headers: sheet.headers, columns: sheet.columns };
}
