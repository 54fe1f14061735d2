/**
 * One cell, one column: read the value (text, cents, whole number, instant, allowed value) and
 * say what is wrong with it. Each column gets a checker that remembers its last input, because
 * order-level cells repeat on every row of an order.
 */
import { CARRIER_IDS, COUNTRY_CODES } from '../contract/enums.js';
import { LIMITS } from '../contract/limits.js';
import { formatCents } from '../contract/money.js';
import { EMAIL_PATTERN, countDigits } from '../contract/schemas.js';
import { severityOf, type IssueCode } from '../issues/index.js';
import type { ColumnDef, Field } from '../sheet/columns.js';
import type { CellValue } from '../sheet/types.js';
import type { ClockChange, DateReader } from './dates.js';
import type { NamedDateFormat } from './types.js';
import { markEvidenceOf, parseLocaleInteger, parseLocaleMoney, type DecimalMark, type GroupingProblem, type OtherMarkProblem } from './decimal-mark.js';
import { toCountryCode } from './country-names.js';
import { createEnumMatcher, type EnumMatcher } from './enum-matcher.js';
import { integerFromCell, moneyFromCell, type IntegerProblem, type MoneyProblem } from './numbers.js';
import { cleanText, joinLines, nonBlankLines, quote, textFromCell } from './text.js';

export interface CellProblem {
  readonly code: IssueCode;
  readonly message: string;
  readonly isError: boolean;
}

export interface CellCheck {
  /** Text, cents, whole number, epoch ms, or the allowed value; null when blank or unreadable. */
  readonly value: string | number | null;
  readonly isBlank: boolean;
  /** What is wrong (error) or was fixed (warning); null when nothing. */
  readonly problem: CellProblem | null;
  /** Address cells: lines in the cell (line breaks inside a cell start new address lines). */
  readonly lineCount: number;
}

export const BLANK_CELL: CellCheck = { value: null, isBlank: true, problem: null, lineCount: 0 };

/** What the column checkers share for one sheet. */
export interface CheckerDeps {
  dates: DateReader;
  sourcesOfSale: EnumMatcher;
  /**
   * How numbers with a comma or a point are read. Absent: the point is the decimal mark and commas group
   * thousands (a workbook, a comma-separated CSV). Present (a CSV separated by semicolons or tabs, as Excel
   * saves one where the comma is the decimal mark, or a mark set by --decimal-comma or a mapping profile):
   * a value that shows its mark is read with it (`12,50`, `$1,234.50`), and `mark`, the file's, decided once
   * from all its cells, reads `1,234`; null when the file does not say, and such a value is refused.
   */
  numberFormat?: { mark: DecimalMark | null };
}

const carriers = createEnumMatcher(CARRIER_IDS);
const countries = createEnumMatcher(COUNTRY_CODES);
const ADDRESS_FIELDS: ReadonlySet<Field> = new Set(['addressLine1', 'addressLine2', 'addressLine3']);

export class FieldChecker {
  private lastRaw: CellValue | typeof NO_INPUT = NO_INPUT;
  private last: CellCheck = BLANK_CELL;
  /** The last `check` had the same input as the one before it (the cell repeats the previous row's). */
  isRepeat = false;
  private readonly compute: (raw: Exclude<CellValue, null>) => CellCheck;

  constructor(
    readonly def: ColumnDef,
    /** The header as written in the user's file, or the field name when the column is absent. */
    readonly header: string,
    deps: CheckerDeps,
  ) {
    this.compute = pickCompute(def, header, deps);
  }

  /** Checks the cell of the row being read, remembering it as the last input. */
  check(raw: CellValue | undefined): CellCheck {
    const value = raw === undefined ? null : raw;
    if (value === this.lastRaw || (value instanceof Date && this.lastRaw instanceof Date && value.getTime() === this.lastRaw.getTime())) {
      this.isRepeat = true;
      return this.last;
    }
    this.isRepeat = false;
    this.lastRaw = value;
    this.last = value === null ? BLANK_CELL : this.compute(value);
    return this.last;
  }

  /** Checks a cell of some other row (reading an earlier value back) without touching the memory. */
  checkAside(raw: CellValue | undefined): CellCheck {
    const value = raw === undefined ? null : raw;
    if (value === null) return BLANK_CELL;
    return value === this.lastRaw ? this.last : this.compute(value);
  }
}

const NO_INPUT: unique symbol = Symbol('no input');

export function problem(code: IssueCode, message: string): CellProblem {
  return { code, message, isError: severityOf(code) === 'error' };
}

function ok(value: string | number, lineCount = 1): CellCheck {
  return { value, isBlank: false, problem: null, lineCount };
}

function bad(code: IssueCode, message: string, value: string | number | null = null): CellCheck {
  return { value, isBlank: false, problem: problem(code, message), lineCount: 1 };
}

function pickCompute(def: ColumnDef, header: string, deps: CheckerDeps): (raw: Exclude<CellValue, null>) => CellCheck {
  switch (def.kind) {
    case 'text':
      if (ADDRESS_FIELDS.has(def.field)) return (raw) => checkAddressLine(raw, header);
      return (raw) => checkText(raw, def, header);
    case 'money':
      return (raw) => checkMoney(raw, def, header, deps.numberFormat);
    case 'integer':
      return (raw) => checkInteger(raw, header, deps.numberFormat);
    case 'date':
      return (raw) => checkDate(raw, header, deps.dates);
    case 'enum': {
      if (def.field === 'countryCode') return (raw) => checkCountry(raw, header);
      const matcher = def.field === 'carrierId' ? carriers : deps.sourcesOfSale;
      return (raw) => checkEnum(raw, def, header, matcher);
    }
  }
}

function checkText(raw: Exclude<CellValue, null>, def: ColumnDef, header: string): CellCheck {
  const read = textFromCell(raw, def.isTextFormatted === true);
  if (read.kind === 'blank') return BLANK_CELL;
  if (read.kind === 'scientific') {
    return bad('scientific_notation', `${header} shows ${quote(read.text)}, which is how Excel writes a long number and may have lost digits: format the ${header} column as Text and type the values again.`, read.text);
  }
  const text = joinLines(read.text);
  const max = def.maxLength;
  if (def.field === 'phone') {
    if (text.length > LIMITS.phoneMaxLength) {
      return bad('invalid_phone', `${header} is ${text.length} characters long; a phone number may have at most ${LIMITS.phoneMaxLength}. Keep the digits and fewer other characters.`, text);
    }
    const digits = countDigits(text);
    if (digits < LIMITS.phoneMinDigits) {
      return bad('invalid_phone', `${header} ${quote(text)} has ${digits} digit${digits === 1 ? '' : 's'}; a phone number needs at least ${LIMITS.phoneMinDigits}, like (217) 555-0134.`, text);
    }
    return ok(text);
  }
  if (max !== undefined && text.length > max) return bad('too_long', tooLong(header, text.length, max), text);
  if (def.field === 'email' && !EMAIL_PATTERN.test(text)) {
    return bad('invalid_email', `${header} ${quote(text)} is not an email address: it should look like name@example.com.`, text);
  }
  return ok(text);
}

/** Line breaks inside an address cell start new address lines; each must fit the API's 255 characters. */
function checkAddressLine(raw: Exclude<CellValue, null>, header: string): CellCheck {
  const read = textFromCell(raw, false);
  if (read.kind === 'blank') return BLANK_CELL;
  const text = read.text;
  const lines = splitAddressLines(text);
  let longest = 0;
  for (const line of lines) longest = Math.max(longest, line.length);
  if (longest > LIMITS.addressLineMax) {
    const where = lines.length > 1 ? ' (one of its lines)' : '';
    return bad('too_long', `${header}${where} is ${longest} characters long; the limit is ${LIMITS.addressLineMax}. Shorten it or move part of it to another address line.`, text);
  }
  return ok(text, lines.length);
}

/** The non-blank lines of an address cell, trimmed. */
export function splitAddressLines(text: string): string[] {
  return nonBlankLines(text);
}

function checkMoney(raw: Exclude<CellValue, null>, def: ColumnDef, header: string, numbers: CheckerDeps['numberFormat']): CellCheck {
  const text = typeof raw === 'string' ? cleanText(raw) : '';
  if (typeof raw === 'string' && text === '') return BLANK_CELL;
  const cents = numbers !== undefined && typeof raw === 'string' ? parseLocaleMoney(text, numbers.mark) : moneyFromCell(raw, text);
  if (cents === 'ambiguous') return bad('invalid_number', ambiguousMessage(header, text));
  if (typeof cents !== 'number') return bad('invalid_number', moneyMessage(header, shown(raw, text), cents, numbers?.mark));
  if (cents < 0 && (def.field === 'unitPrice' || def.field === 'subTotal')) {
    return bad('negative', `${header} is ${formatCents(cents)}; it must be 0 or more.`, cents);
  }
  return ok(cents);
}

function moneyMessage(header: string, shownValue: string, why: MoneyProblem | GroupingProblem | OtherMarkProblem, mark?: DecimalMark | null): string {
  const isComma = mark === 'comma';
  switch (why) {
    case 'grouping':
    case 'other_mark':
      return `${header} ${quote(shownValue)} is not an amount: ${markAdvice(why, mark ?? null, 'amount')}`;
    case 'decimals':
      return `${header} ${quote(shownValue)} has more than 2 decimals${isComma ? ' (the comma is this file\'s decimal mark)' : ''}: amounts are in whole cents, like ${isComma ? '12,35' : '12.35'}.`;
    case 'too_large':
      return `${header} ${quote(shownValue)} is too large: amounts go up to 1,000,000,000.00.`;
    case 'format':
      return isComma
        ? `${header} ${quote(shownValue)} is not an amount: write it like 1234,50 (a comma before the cents, as in the rest of this file).`
        : `${header} ${quote(shownValue)} is not an amount: write it like 1234.50 (a dot before the cents; $ and thousands commas are fine)${mark === undefined && markEvidenceOf(shownValue) === 'comma' ? '. If this file writes amounts with a decimal comma (12,50), say so: --decimal-comma, or "decimalMark": "comma" in the mapping profile' : ''}.`;
  }
}

const MARK_NAMES: Record<DecimalMark, string> = { dot: 'a point', comma: 'a comma' };

/**
 * What to write instead of a number whose marks are doubled, misplaced or grouped wrong (`12,,50`, `7,0,0`),
 * or whose decimal mark is not the file's: the file's decimal mark named, with examples in it.
 */
function markAdvice(why: GroupingProblem | OtherMarkProblem, mark: DecimalMark | null, kind: 'amount' | 'quantity'): string {
  const examples = kind === 'amount'
    ? { comma: '1234,50 or 1.234,50', dot: '1234.50 or 1,234.50' }
    : { comma: '1200 or 1.200', dot: '1200 or 1,200' };
  const groups = 'only between groups of three digits';
  if (mark === null) {
    return `its marks do not make a number (one decimal mark at most; thousands separators ${groups}). Write it like ${examples.comma} or ${examples.dot}.`;
  }
  const other = mark === 'comma' ? 'point' : 'comma';
  const opening = why === 'other_mark'
    ? `it uses a ${other} as the decimal mark, but this file's decimal mark is ${MARK_NAMES[mark]}.`
    : `this file's decimal mark is ${MARK_NAMES[mark]}, and its marks do not make a number with it (one decimal mark at most; ${mark === 'comma' ? 'points or spaces' : 'commas or spaces'} ${groups}).`;
  return `${opening} Write it like ${examples[mark]}.`;
}

/** A value the file's decimal mark must decide, in a file whose mark is unknown: the file-level note explains, once. */
function ambiguousMessage(header: string, text: string): string {
  return `${header} ${quote(text)} could be read two ways (a thousands separator or a decimal mark), and this file does not say which: see the note about the file's decimal mark.`;
}

function checkInteger(raw: Exclude<CellValue, null>, header: string, numbers: CheckerDeps['numberFormat']): CellCheck {
  const text = typeof raw === 'string' ? cleanText(raw) : '';
  if (typeof raw === 'string' && text === '') return BLANK_CELL;
  const value = numbers !== undefined && typeof raw === 'string' ? parseLocaleInteger(text, numbers.mark) : integerFromCell(raw, text);
  if (value === 'ambiguous') return bad('invalid_integer', ambiguousMessage(header, text));
  if (typeof value !== 'number') return bad('invalid_integer', integerMessage(header, shown(raw, text), value, numbers?.mark));
  if (value <= 0) return bad('not_positive', `${header} is ${value}; it must be 1 or more.`, value);
  return ok(value);
}

function integerMessage(header: string, shownValue: string, why: IntegerProblem | GroupingProblem | OtherMarkProblem, mark?: DecimalMark | null): string {
  if (why === 'grouping' || why === 'other_mark') return `${header} ${quote(shownValue)} is not a whole number: ${markAdvice(why, mark ?? null, 'quantity')}`;
  if (why === 'too_large') return `${header} ${quote(shownValue)} is too large to be a quantity.`;
  if (why === 'fraction') return `${header} ${quote(shownValue)} is not a whole number: use 1, 2, 3...`;
  return `${header} ${quote(shownValue)} is not a whole number: write digits only, like 2.`;
}

function checkDate(raw: Exclude<CellValue, null>, header: string, dates: DateReader): CellCheck {
  const text = typeof raw === 'string' ? cleanText(raw) : '';
  if (typeof raw === 'string' && text === '') return BLANK_CELL;
  const ms = dates.read(raw, text);
  if (Number.isNaN(ms)) {
    const order = typeof raw === 'string' ? dates.explainDateOrder(text) : null;
    if (order !== null) return bad('invalid_date', `${header} ${order}`);
    const byOrder = dates.dateOrder === 'dmy' ? 'D.M.YYYY or D/M/YYYY is read as day/month' : 'M/D/YYYY is read as month/day';
    const usual = dates.namedFormat === undefined ? byOrder : `${byOrder}; and like ${NAMED_EXAMPLES[dates.namedFormat]} (${dates.namedFormat}, the mapping profile's dateFormat)`;
    return bad('invalid_date', `${header} ${quote(shown(raw, text))} is not a date: use YYYY-MM-DD (like 2026-11-20) or YYYY-MM-DD HH:mm; ${usual}.`);
  }
  const change = dates.lastClockChange;
  if (change !== null) return bad('ambiguous_time', clockChangeMessage(header, change, dates), ms);
  return ok(ms);
}

/** A wall-clock time on a daylight-saving change: which instant was taken, and how to name another. */
function clockChangeMessage(header: string, change: ClockChange, dates: DateReader): string {
  const wall = new Date(change.wall).toISOString();
  const written = `${wall.slice(0, 10)} ${wall.slice(11, wall.endsWith(':00.000Z') ? 16 : 19)}`;
  const utc = new Date(change.taken).toISOString();
  const taken = `${dates.formatWithOffset(change.taken)}, which is ${utc.slice(0, 10)} ${utc.slice(11, 16)} UTC`;
  if (change.kind === 'skipped') {
    return `${header} ${written} does not exist in ${dates.timezone}: the clocks skip that hour when daylight saving time starts. It was read as ${taken}. If another instant is meant, write the time with its UTC offset.`;
  }
  const which = change.other === undefined ? '' : change.taken > change.other ? ', the second time' : ', the first time';
  const other = change.other === undefined ? '' : ` The other is ${dates.formatWithOffset(change.other)}: write the time with that offset (like ${wall.slice(0, 16)}${offsetText(dates, change.other)}) if it is meant.`;
  return `${header} ${written} happens twice in ${dates.timezone}: the clocks go back an hour when daylight saving time ends. It was read as ${taken}${which}.${other}`;
}

/** `-08:00`: the zone's UTC offset at an instant. */
function offsetText(dates: DateReader, ms: number): string {
  return /\(([+-]\d{2}:\d{2})\)$/.exec(dates.formatWithOffset(ms))?.[1] ?? '';
}

function checkEnum(raw: Exclude<CellValue, null>, def: ColumnDef, header: string, matcher: EnumMatcher): CellCheck {
  const read = textFromCell(raw, false);
  if (read.kind === 'blank') return BLANK_CELL;
  const text = read.text;
  const value = matcher.match(text);
  if (value !== undefined) return ok(value);
  if (def.maxLength !== undefined && text.length > def.maxLength) return bad('too_long', tooLong(header, text.length, def.maxLength), text);
  const suggestion = matcher.suggest(text);
  const allowed = matcher.allowed.length <= 5 ? ` Allowed: ${matcher.allowed.join(', ')}.` : '';
  if (suggestion === undefined) return bad('not_allowed', `${header} ${quote(text)} is not allowed: no values are configured.`, text);
  if (suggestion.isCaseOnly) {
    return bad('not_allowed', `${header} ${quote(text)} must be written exactly ${suggestion.value}: values are case sensitive.`, text);
  }
  return bad('not_allowed', `${header} ${quote(text)} is not an allowed value; the closest is ${suggestion.value}.${allowed}`, text);
}

function checkCountry(raw: Exclude<CellValue, null>, header: string): CellCheck {
  const read = textFromCell(raw, false);
  if (read.kind === 'blank') return BLANK_CELL;
  // Lower case is unambiguous for country codes, so it is fixed silently.
  const value = countries.match(read.text.toUpperCase());
  if (value !== undefined) return ok(value);
  // A country's name is not read as its code here (a template column holds codes; a mapping profile reads
  // names), but the message names the code, so fixing the cell is a copy.
  const named = toCountryCode(read.text);
  if (named !== undefined) return bad('invalid_country_code', `${header} ${quote(read.text)} is a country's name, not its two-letter ISO 3166-1 code: write ${named}.`, read.text);
  return bad('invalid_country_code', `${header} ${quote(read.text)} is not a two-letter ISO 3166-1 country code: use a code like US, CA or GB.`, read.text);
}

const NAMED_EXAMPLES: Record<NamedDateFormat, string> = { 'MMM-DD-YY': 'Nov-18-26', 'MMM-DD-YYYY': 'Nov-18-2026' };

export function tooLong(header: string, length: number, max: number): string {
  return `${header} is ${length} characters long; the limit is ${max}. Shorten it.`;
}

/** How a non-text cell reads in a message. */
function shown(raw: Exclude<CellValue, null>, text: string): string {
  if (typeof raw === 'string') return text;
  if (raw instanceof Date) return Number.isNaN(raw.getTime()) ? 'an invalid date' : raw.toISOString().slice(0, 10);
  return String(raw);
}
