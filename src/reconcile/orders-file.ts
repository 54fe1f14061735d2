/**
 * `reconcile --orders <result file>`: the customerOrderIds of a result file written by validate or
 * import (xlsx or csv: the input columns, then status, issues, ...). Only orders the API holds are
 * taken: rows whose status is accepted or already_submitted. A plain order sheet (no status column)
 * contributes every order, with a warning.
 *
 * The file also says what was sent: its rows are the order's rows as import read them (and its
 * submittedAt column, when import wrote one, when the API accepted it). That is the expected side
 * of an order the ledger does not hold (an import done with another --ledger, or on another machine).
 * Not so for an order whose issues column holds an error (a change import did not apply, a second copy
 * with other contents): its rows are not what was sent, and only its ID is taken (notSentBecause).
 */
import { InputError } from '../errors.js';
import type { Logger } from '../log.js';
import { DateReader } from '../orders/dates.js';
import { integerFromCell, moneyFromCell } from '../orders/numbers.js';
import { cleanText, joinLines, nonBlankLines, quote, textFromCell } from '../orders/text.js';
import { COLUMN_BY_FIELD, FIELD_BY_HEADER, normalizeHeader, type Field } from '../sheet/columns.js';
import { openSheet } from '../sheet/read-sheet.js';
import { BUILTIN_PROFILES } from '../mapping/builtin/index.js';
import { chooseReading, withArticle } from '../mapping/choose.js';
import { mapOpenedSheet } from '../mapping/mapped-sheet.js';
import { isLocaleDelimiter } from '../orders/check-sheet.js';
import type { CellValue, OpenedSheet, RawRow } from '../sheet/types.js';
import type { ExpectedOrder } from './types.js';

export const SUBMITTED_STATUSES: ReadonlySet<string> = new Set(['accepted', 'already_submitted']);

export interface OrdersFile {
  file: string;
  sha256: string;
  rows: number;
  /** In first-seen order, without repeats. */
  customerOrderIds: string[];
  /** Orders left out, per status (invalid, rejected, failed, ...). */
  skipped: Record<string, number>;
  hasStatusColumn: boolean;
  /** What the file says was sent, for each order taken (see ExpectedOrder.source and hasLines). */
  expected: Map<string, ExpectedOrder>;
}

/**
 * A cell's text as import read it: the same cleaning (trimmed, our formula guard's apostrophe gone, lines
 * joined), so an ID is looked up as it was sent (`'@AT-2` in a result CSV was sent as `@AT-2`).
 */
function cellText(value: CellValue | undefined): string {
  if (value === undefined) return '';
  const read = textFromCell(value, true);
  return read.kind === 'blank' ? '' : joinLines(read.text);
}

export interface ReadOrdersFileOptions {
  sheet?: string;
  logger: Logger;
  /** The zone dates without an offset were read in by import (default UTC). */
  timezone?: string;
}

export async function readOrdersFile(file: string, options: ReadOrdersFileOptions): Promise<OrdersFile> {
  // An import result workbook is read on its Results sheet, which holds every order with its status;
  // validate and import read its Fix sheet instead (the rows to correct).
  const sheet = await openSheet(file, { resultSheet: 'Results', ...(options.sheet !== undefined && { sheet: options.sheet }) });
  for (const notice of sheet.notices ?? []) options.logger.warn({ file }, notice);
  const keys = sheet.headers.map(normalizeHeader);
  // A marketplace export imported through its profile: its result holds the export's own columns, read the same way.
  const mapped = keys.some((k) => FIELD_BY_HEADER.get(k) === 'customerOrderId') ? null : readThroughProfile(file, sheet);
  const headers = mapped?.headers ?? sheet.headers;
  const rowBatches = mapped?.rows ?? sheet.rows;
  const idColumn = headers.map(normalizeHeader).findIndex((k) => FIELD_BY_HEADER.get(k) === 'customerOrderId');
  // The result writers put status and issues side by side after the input's columns, which may hold an
  // issues column of their own (a Fix sheet uploaded again carries its old issues): that pair is the result's.
  const resultColumn = keys.findLastIndex((k, i) => k === 'status' && keys[i + 1] === 'issues');
  const statusColumn = resultColumn >= 0 ? resultColumn : keys.indexOf('status');
  const issuesColumn = resultColumn >= 0 ? resultColumn + 1 : -1;
  if (idColumn < 0) {
    await sheet.rows[Symbol.asyncIterator]().return?.();
    throw new InputError(file, 'missing_column', `${file} has no customerOrderId column: give --orders a result file written by validate or import`);
  }
  if (statusColumn < 0) options.logger.warn({ file }, 'no status column: taking every order of the file, as if all were accepted');
  if (mapped) options.logger.info({ file, profile: mapped.profile }, `${file}: read as the result of ${withArticle(mapped.label)}`);
  const sent = new SentOrderReader(file, headers, {
    timezone: options.timezone ?? 'UTC',
    // Import refused a number with a comma in a semicolon-separated CSV (1,000 may be 1 or 1000): so does this.
    isCommaAmbiguous: sheet.csvDelimiter === ';',
  });

  const statusOf = new Map<string, string>();
  let rows = 0;
  for await (const batch of rowBatches) {
    for (const row of batch) {
      rows++;
      const id = cellText(row.cells[idColumn]);
      if (id === '') continue;
      let status = statusOf.get(id);
      if (status === undefined) {
        // Every row of an order carries the order's status; the first row decides.
        status = statusColumn < 0 ? 'accepted' : cellText(row.cells[statusColumn]).toLowerCase();
        statusOf.set(id, status);
      }
      if (!SUBMITTED_STATUSES.has(status)) continue;
      sent.addRow(id, row.rowNumber, row.cells);
      const doubt = issuesColumn < 0 ? null : notSentBecause(row.cells[issuesColumn]);
      if (doubt !== null) sent.setNotSent(id, row.rowNumber, doubt);
    }
  }
  const customerOrderIds: string[] = [];
  const skipped: Record<string, number> = {};
  for (const [id, status] of statusOf) {
    if (SUBMITTED_STATUSES.has(status)) customerOrderIds.push(id);
    else skipped[status || '(blank)'] = (skipped[status || '(blank)'] ?? 0) + 1;
  }
  const expected = sent.finish(options.logger);
  return { file, sha256: sheet.sha256(), rows, customerOrderIds, skipped, hasStatusColumn: statusColumn >= 0, expected };
}

/** The columns validate and import add to a result: kept by name when the input's own columns are read through a profile. */
const RESULT_COLUMNS: ReadonlySet<string> = new Set(['status', 'issues', 'httpstatus', 'requestid', 'submittedat']);

/**
 * The rows of a result whose input was read through a built-in profile (detected from the export's columns,
 * as import detected them): the derived columns named by their fields, the export's own left unnamed but
 * for the result's columns. Null when no profile fits.
 */
function readThroughProfile(file: string, sheet: OpenedSheet): { headers: string[]; rows: AsyncIterable<RawRow[]>; profile: string; label: string } | null {
  const reading = chooseReading(file, sheet.headers, sheet.headerRow, { kind: 'auto', profiles: BUILTIN_PROFILES });
  if (reading.kind !== 'profile') return null;
  const { compiled } = reading;
  const mapped = mapOpenedSheet(sheet, compiled, { isLocaleAware: isLocaleDelimiter(sheet.csvDelimiter), mark: null });
  const headers = [...sheet.headers.map((h) => (RESULT_COLUMNS.has(normalizeHeader(h)) ? h : '')), ...compiled.derived.map((d) => d.field)];
  return { headers, rows: mapped.sheet.rows, profile: compiled.profile.name, label: compiled.profile.label };
}

/**
 * Import's words, in the issues column, for rows it did not send as they read: an order already sent
 * with other contents (import/submit.ts alreadySubmitted), and a second copy of an order, with other
 * contents, in the same run (import/outcomes.ts duplicateOutcome). Both end "this change was not applied".
 */
const NOT_APPLIED = /with different contents\b.*\bthis change was not applied/i;
/** How a warning reads in the issues column (output-files/issue-text.ts formatIssueLine): `column (warning): ...` or `warning: ...`. */
const WARNING_LINE = /^(?:warning: |[^:\n]* \(warning\): )/;

/**
 * Why a row's issues column says the row is not what was sent, or null. The change import did not
 * apply, or any other error: import writes only warnings on an order it sent as its rows read (an
 * error beside accepted or already_submitted is a file edited by hand, or another tool's), so an error
 * there, or the "order has errors on row N" of its other rows, leaves the rows no evidence either.
 */
function notSentBecause(value: CellValue | undefined): string | null {
  if (value === undefined || value === null) return null;
  const read = textFromCell(value, false);
  if (read.kind !== 'text') return null;
  const lines = nonBlankLines(read.text);
  if (lines.some((line) => NOT_APPLIED.test(line))) return 'its issues column says the change was not applied (the API holds the order as it was sent before)';
  const error = lines.find((line) => !WARNING_LINE.test(line));
  if (error === undefined) return null;
  return `its issues column holds an error (${quote(error)}): its rows may not be what was sent`;
}

/** Why a cell the file holds could not be read as what import sent. */
interface Unreadable {
  why: string;
}

type Parse<T> = (raw: Exclude<CellValue, null>, text: string) => T | Unreadable;

function isUnreadable<T>(value: T | Unreadable): value is Unreadable {
  return typeof value === 'object' && value !== null && 'why' in value;
}

/** The first cell of an order that could not be read, and what that leaves unchecked. */
interface OrderProblem {
  row: number;
  header: string;
  why: string;
  isLine: boolean;
}

/** One order of the file as it is read: what it says was sent, and the first cell that could not be read. */
interface SentDraft {
  expected: ExpectedOrder;
  problem: OrderProblem | null;
  /** A line could not be read (or the file has no line columns): the order's lines are unknown. */
  isLinesUnknown: boolean;
  /** The first row whose issues say the order's rows are not what was sent: nothing but the ID is taken then. */
  notSent: { row: number; why: string } | null;
}

const LINE_FIELDS = ['customerLineItemId', 'productId', 'quantity'] as const;

/**
 * Builds ExpectedOrders from an orders file's rows: order fields from the first row that has them,
 * one line per row. Cells are read as import read them (the same text cleaning, exact cents, dates in
 * the zone import used). A line whose ID, product or quantity cannot be read leaves the order's lines
 * unknown (hasLines false) rather than half known; an amount that cannot be read is not checked.
 * Either is said once per order, naming the row and column.
 */
class SentOrderReader {
  private readonly at = new Map<Field | 'submittedAt', number>();
  private readonly drafts = new Map<string, SentDraft>();
  private readonly hasLineColumns: boolean;
  private readonly dates: DateReader;
  private readonly utc = new DateReader('UTC');

  constructor(
    private readonly file: string,
    private readonly headers: readonly string[],
    private readonly options: { timezone: string; isCommaAmbiguous: boolean },
  ) {
    headers.forEach((header, i) => {
      const key = normalizeHeader(header);
      const field = key === 'submittedat' ? 'submittedAt' : FIELD_BY_HEADER.get(key);
      if (field !== undefined && !this.at.has(field)) this.at.set(field, i);
    });
    this.hasLineColumns = LINE_FIELDS.every((f) => this.at.has(f));
    this.dates = new DateReader(options.timezone);
  }

  addRow(id: string, row: number, cells: readonly CellValue[]): void {
    let draft = this.drafts.get(id);
    if (!draft) {
      draft = { expected: emptyExpected(id), problem: null, isLinesUnknown: !this.hasLineColumns, notSent: null };
      this.drafts.set(id, draft);
    }
    const d = draft;
    /** The cell's value; null when blank, or unreadable (the order's first problem is kept). */
    const read = <T>(field: Field | 'submittedAt', parse: Parse<T>, isLine = false): T | null => {
      const i = this.at.get(field);
      const raw = i === undefined ? null : (cells[i] ?? null);
      if (raw === null) return null;
      const text = typeof raw === 'string' ? cleanText(raw) : '';
      if (typeof raw === 'string' && text === '') return null;
      const value = parse(raw, text);
      if (!isUnreadable(value)) return value;
      d.problem ??= { row, header: this.headers[i!]!, why: value.why, isLine };
      return null;
    };
    const e = d.expected;
    e.marketplaceOrderId ??= read('marketplaceOrderId', this.text('marketplaceOrderId'));
    e.sourceOfSale ??= read('sourceOfSale', this.text('sourceOfSale'));
    e.orderDate ??= read('orderDate', (raw, text) => instant(this.dates, raw, text));
    e.submittedAt ??= read('submittedAt', (raw, text) => instant(this.utc, raw, text));
    e.subTotalCents ??= read('subTotal', this.money);
    e.salesTaxCents ??= read('salesTax', this.money);
    e.discountTotalCents ??= read('discountTotal', this.money);
    e.grandTotalCents ??= read('grandTotal', this.money);
    if (d.isLinesUnknown) return;

    const customerLineItemId = read('customerLineItemId', this.text('customerLineItemId'), true);
    const productId = read('productId', this.text('productId'), true);
    const quantity = read('quantity', this.quantity, true);
    const blank = [customerLineItemId, productId, quantity].indexOf(null);
    if (blank >= 0) {
      d.problem ??= { row, header: this.headers[this.at.get(LINE_FIELDS[blank]!)!]!, why: 'is blank', isLine: true };
      d.isLinesUnknown = true;
      return;
    }
    e.lines.push({
      customerLineItemId: customerLineItemId!,
      productId: productId!,
      name: read('name', this.text('name')),
      quantity: quantity!,
      // An unreadable price is an amount not checked; an absent discount is no discount (api-spec.md 2.1.3), as for a payload.
      unitPriceCents: read('unitPrice', this.money),
      discountCents: this.isBlank(cells, 'discount') ? 0 : read('discount', this.money),
    });
  }

  /** The order's rows are not what was sent (see notSentBecause): the first row that says so is kept. */
  setNotSent(id: string, row: number, why: string): void {
    const draft = this.drafts.get(id);
    if (draft) draft.notSent ??= { row, why };
  }

  /** The expected orders; one warning for each order with a cell that could not be read, or rows that are not what was sent. */
  finish(logger: Logger): Map<string, ExpectedOrder> {
    const out = new Map<string, ExpectedOrder>();
    if (!this.hasLineColumns && this.drafts.size > 0) {
      const fields = LINE_FIELDS.filter((f) => !this.at.has(f));
      const missing = fields.length > 1 ? `${fields.slice(0, -1).join(', ')} or ${fields.at(-1)!}` : fields[0]!;
      logger.warn({ file: this.file }, `${this.file} has no ${missing} column: the lines of its orders are taken from the API as they are, unchecked.`);
    }
    for (const [id, { expected, problem, isLinesUnknown, notSent }] of this.drafts) {
      if (notSent !== null) {
        // As for an order whose lines are unknown, with no amounts, dates or marketplaceOrderId either:
        // the API's own copy is all there is (its read carries no marketplaceOrderId, api-spec.md 2.2).
        logger.warn(
          { file: this.file, row: notSent.row, customerOrderId: id },
          `${this.file} row ${notSent.row}: ${notSent.why}, so only the ID of order ${id} is taken from the file: its lines and amounts are the API's, unchecked, and it has no marketplaceOrderId (blank in the confirmations).`,
        );
        out.set(id, { ...emptyExpected(id), hasLines: false });
        continue;
      }
      if (isLinesUnknown) {
        expected.lines = [];
        expected.hasLines = false;
      }
      if (problem !== null) {
        const what = problem.isLine ? `the lines of order ${id} are taken from the API as they are, unchecked` : `that amount or date of order ${id} is not checked`;
        logger.warn(
          { file: this.file, row: problem.row, column: problem.header, customerOrderId: id },
          `${this.file} row ${problem.row}, column ${problem.header}: ${problem.why}, so ${what}.`,
        );
      }
      out.set(id, expected);
    }
    return out;
  }

  private isBlank(cells: readonly CellValue[], field: Field): boolean {
    const i = this.at.get(field);
    const raw = i === undefined ? null : (cells[i] ?? null);
    return raw === null || (typeof raw === 'string' && cleanText(raw) === '');
  }

  private text(field: Field): Parse<string> {
    const isIdLike = COLUMN_BY_FIELD.get(field)?.isTextFormatted === true;
    return (raw) => {
      const read = textFromCell(raw, isIdLike);
      if (read.kind === 'blank') return { why: 'is blank' };
      // Import refused an ID in scientific notation (digits lost): it was never sent as shown.
      if (read.kind === 'scientific') return { why: `${quote(read.text)} is a number in scientific notation` };
      return joinLines(read.text);
    };
  }

  private readonly money: Parse<number> = (raw, text) => {
    if (this.options.isCommaAmbiguous && text.includes(',')) return { why: `${quote(text)} has a comma, which may be a decimal mark or a thousands separator` };
    const cents = moneyFromCell(raw, text);
    return typeof cents === 'number' ? cents : { why: `${quote(shown(raw, text))} is not an amount` };
  };

  private readonly quantity: Parse<number> = (raw, text) => {
    if (this.options.isCommaAmbiguous && text.includes(',')) return { why: `${quote(text)} has a comma, which may be a decimal mark or a thousands separator` };
    const n = integerFromCell(raw, text);
    return typeof n === 'number' && n > 0 ? n : { why: `${quote(shown(raw, text))} is not a quantity (a whole number, 1 or more)` };
  };
}

function emptyExpected(customerOrderId: string): ExpectedOrder {
  return {
    customerOrderId,
    marketplaceOrderId: null,
    sourceOfSale: null,
    orderDate: null,
    submittedAt: null,
    lines: [],
    subTotalCents: null,
    salesTaxCents: null,
    discountTotalCents: null,
    grandTotalCents: null,
    source: 'orders-file',
  };
}

function instant(dates: DateReader, raw: Exclude<CellValue, null>, text: string): string | Unreadable {
  const ms = dates.read(raw, text);
  return Number.isNaN(ms) ? { why: `${quote(shown(raw, text))} is not a date` } : new Date(ms).toISOString();
}

function shown(raw: Exclude<CellValue, null>, text: string): string {
  return typeof raw === 'string' ? text : raw instanceof Date ? raw.toISOString() : String(raw);
}
