/** The stable issue codes of PRODUCT.md section 3, documented in the README. */

/** PRODUCT.md section 3's file-level codes, then two warnings of this tool's reader: an order sheet left unread, a file mixing encodings. */
export const FILE_ISSUE_CODES = ['unreadable_file', 'unsupported_format', 'empty_file', 'missing_column', 'unknown_column', 'unread_sheet', 'mixed_encoding'] as const;

export const CELL_ISSUE_CODES = [
  'required',
  'too_long',
  'not_allowed',
  'invalid_number',
  'invalid_integer',
  'not_positive',
  'negative',
  'invalid_date',
  'order_date_too_old',
  'order_date_in_future',
  'invalid_postal_code',
  'invalid_country_code',
  'invalid_phone',
  'invalid_email',
  'too_many_address_lines',
  'duplicate_line_item_id',
  'conflicting_order_value',
  'subtotal_mismatch',
  'discount_total_mismatch',
  'grand_total_mismatch',
  'scientific_notation',
  'postal_code_padded',
  'computed_total',
  'ambiguous_time',
] as const;

export const API_ISSUE_CODES = ['unknown_product', 'out_of_stock', 'already_exists', 'api_rejected', 'failed', 'in_progress_elsewhere'] as const;

export type IssueCode = (typeof FILE_ISSUE_CODES)[number] | (typeof CELL_ISSUE_CODES)[number] | (typeof API_ISSUE_CODES)[number];

export const WARNING_CODES: ReadonlySet<IssueCode> = new Set<IssueCode>(['unknown_column', 'unread_sheet', 'mixed_encoding', 'postal_code_padded', 'computed_total', 'ambiguous_time', 'in_progress_elsewhere']);

export type Severity = 'error' | 'warning';

export interface Issue {
  /** Spreadsheet row number as a spreadsheet program shows it (header = row 1); null for file-level issues. */
  row: number | null;
  /** The column header as written in the user's file (or the canonical field name when the column is absent). */
  column: string | null;
  code: IssueCode;
  severity: Severity;
  /** A sentence a non-programmer can act on. */
  message: string;
  /** 0-based index of the column in the sheet, for highlighting the cell; absent when no single cell is at fault. */
  colIndex?: number;
}

export function severityOf(code: IssueCode): Severity {
  return WARNING_CODES.has(code) ? 'warning' : 'error';
}

export function hasErrors(issues: readonly Issue[]): boolean {
  return issues.some((i) => i.severity === 'error');
}

/** The JSON report form of an issue (PRODUCT.md section 4). */
export function issueToJson(issue: Issue): { row: number | null; column: string | null; code: IssueCode; severity: Severity; message: string } {
  return { row: issue.row, column: issue.column, code: issue.code, severity: issue.severity, message: issue.message };
}
