/**
 * One source row through a compiled profile: the derived cells appended after the row's own, so the
 * checker reads the fields while the result file keeps the row as it came. What cannot be derived (an
 * amount per unit that is no whole number of cents) is a problem on the source cell.
 */
import { formatCents } from '../contract/money.js';
import type { IssueCode } from '../issues/index.js';
import { parseLocaleInteger, parseLocaleMoney, type DecimalMark } from '../orders/decimal-mark.js';
import { OrderIds } from '../orders/order-ids.js';
import { integerFromCell, moneyFromCell } from '../orders/numbers.js';
import { cleanText, quote } from '../orders/text.js';
import type { CellValue } from '../sheet/types.js';
import type { CompiledMapping, DerivedColumn } from './compile.js';
import { toCountryCode } from '../orders/country-names.js';
import { isFirstRule, type ColumnRule } from './profile.js';

export interface RowProblem {
  /** Index into CompiledMapping.derived. */
  derived: number;
  /** The source column at fault (0-based). */
  col: number;
  code: IssueCode;
  message: string;
}

export interface MappedRow {
  /** The source cells, then one cell per derived column. */
  cells: CellValue[];
  problems: RowProblem[] | null;
  /** Derived cells left blank because another cell of the row is wrong (that cell has its issue). */
  unavailable: number[] | null;
}

export interface NumberReading {
  /** Read numbers by their decimal mark (decimal-mark.ts); false: the point is the decimal mark. */
  isLocaleAware: boolean;
  mark: DecimalMark | null;
}

type Computed = CellValue | { problem: Omit<RowProblem, 'derived'> } | typeof UNAVAILABLE;
const UNAVAILABLE = Symbol('unavailable');

export class RowMapper {
  /** The orders met so far and how many lines each has had: compact, as a sheet may hold millions (order-ids.ts). */
  private readonly lineOrders = new OrderIds();
  private lineCounts = new Int32Array(1024);
  private readonly idIndex: number;
  private readonly quantityIndex: number;
  /** Derived columns in the order they are computed: those read from others (per unit, line numbers) last. */
  private readonly order: number[];

  constructor(
    private readonly compiled: CompiledMapping,
    private readonly numbers: NumberReading,
  ) {
    const derived = compiled.derived;
    this.idIndex = derived.findIndex((d) => d.field === 'customerOrderId');
    this.quantityIndex = derived.findIndex((d) => d.field === 'quantity');
    const isLate = (d: DerivedColumn) => 'generate' in d.rule || ('column' in d.rule && (d.rule.perUnit === true || d.rule.minus !== undefined));
    this.order = [...derived.keys()].sort((a, b) => Number(isLate(derived[a]!)) - Number(isLate(derived[b]!)));
  }

  map(cells: readonly CellValue[]): MappedRow {
    return this.mapCells(cells, true);
  }

  /**
   * What map() found wrong with a row it mapped before, found again from the row's cells (the source ones are
   * read): line numbers are not counted again, and have no problems of their own.
   */
  problemsOf(cells: readonly CellValue[]): Pick<MappedRow, 'problems' | 'unavailable'> {
    const { problems, unavailable } = this.mapCells(cells, false);
    return { problems, unavailable };
  }

  private mapCells(cells: readonly CellValue[], isCounting: boolean): MappedRow {
    const { width, derived } = this.compiled;
    const out: CellValue[] = new Array<CellValue>(width + derived.length);
    for (let i = 0; i < width; i++) out[i] = cells[i] ?? null;
    let problems: RowProblem[] | null = null;
    let unavailable: number[] | null = null;
    for (const k of this.order) {
      const value = this.compute(derived[k]!, cells, out, isCounting);
      if (value === UNAVAILABLE) {
        (unavailable ??= []).push(k);
        out[width + k] = null;
      } else if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
        (problems ??= []).push({ derived: k, ...value.problem });
        out[width + k] = null;
      } else {
        out[width + k] = GUARDED_FIELDS.has(derived[k]!.field) ? withoutTextGuard(value) : value;
      }
    }
    return { cells: out, problems, unavailable };
  }

  private compute(d: DerivedColumn, cells: readonly CellValue[], out: readonly CellValue[], isCounting: boolean): Computed {
    const rule = d.rule;
    if ('constant' in rule) return rule.constant;
    if ('generate' in rule) return isCounting ? this.lineNumber(out) : null;
    if ('join' in rule) {
      const parts = d.sources.map((s) => textOf(cells[s])).filter((t): t is string => t !== null);
      return mapValue(d, parts.length === 0 ? null : parts.join(rule.separator ?? ' '), rule);
    }
    if (isFirstRule(rule)) {
      for (const s of d.sources) {
        const cell = sourceCell(cells[s]);
        if (cell !== null) return mapValue(d, cell, rule);
      }
      return null;
    }
    const cell = sourceCell(cells[d.sources[0]!]);
    if (rule.perUnit || rule.minus !== undefined) return this.amount(d, rule, cells, out);
    if (cell === null) return null;
    if (rule.split !== undefined) {
      const text = textOf(cell);
      if (text === null) return null;
      const parts = text.split(rule.split);
      const part = rule.part ?? 1;
      const piece = part >= parts.length ? parts.slice(part - 1).join(rule.split) : parts[part - 1]!;
      return mapValue(d, piece.trim() === '' ? null : piece.trim(), rule);
    }
    return mapValue(d, cell, rule);
  }

  /** customerLineItemId for an export without one: 1, 2, 3... within each order, wherever its rows are. */
  private lineNumber(out: readonly CellValue[]): CellValue {
    const id = this.idIndex < 0 ? null : out[this.compiled.width + this.idIndex];
    const key = id === null || id === undefined ? '' : String(id).trim();
    let order = this.lineOrders.find(key);
    if (order < 0) {
      order = this.lineOrders.add(key);
      if (order === this.lineCounts.length) {
        const grown = new Int32Array(this.lineCounts.length * 2);
        grown.set(this.lineCounts);
        this.lineCounts = grown;
      }
    }
    const n = ++this.lineCounts[order]!;
    return String(n);
  }

  /** An amount per unit (`perUnit`) or a difference of two amounts (`minus`), in exact cents. */
  private amount(d: DerivedColumn, rule: ColumnRule, cells: readonly CellValue[], out: readonly CellValue[]): Computed {
    const col = d.sources[0]!;
    const header = this.compiled.sourceHeaders[col]!.trim();
    const cell = sourceCell(cells[col]);
    if (cell === null) return null;
    const cents = this.readMoney(cell);
    if (typeof cents !== 'number') return { problem: { col, code: 'invalid_number', message: `${header} ${quote(shown(cell))} is not an amount: write it like 1234.50.` } };
    let value = cents;
    if (d.minusSource >= 0) {
      const other = sourceCell(cells[d.minusSource]);
      const minus = other === null ? 0 : this.readMoney(other);
      const otherHeader = this.compiled.sourceHeaders[d.minusSource]!.trim();
      if (typeof minus !== 'number') return { problem: { col: d.minusSource, code: 'invalid_number', message: `${otherHeader} ${quote(shown(other!))} is not an amount: write it like 1234.50.` } };
      value = cents - minus;
    }
    if (!rule.perUnit) return formatCents(value);
    const quantity = this.quantityIndex < 0 ? null : this.readQuantity(out[this.compiled.width + this.quantityIndex] ?? null);
    // The quantity's own cell says what is wrong with it; without it there is no unit amount.
    if (quantity === null) return UNAVAILABLE;
    if (value % quantity !== 0) {
      const what = d.minusSource >= 0 ? `${header} minus ${this.compiled.sourceHeaders[d.minusSource]!.trim()} (${formatCents(value)})` : `${header} ${formatCents(value)}`;
      return {
        problem: {
          col,
          code: 'invalid_number',
          message: `${what} is for ${quantity} units, which makes ${(value / quantity / 100).toFixed(4)} a unit: not a whole number of cents. Check the amount and the quantity, or correct the line by hand.`,
        },
      };
    }
    return formatCents(value / quantity);
  }

  private readMoney(cell: Exclude<CellValue, null>): number | null {
    if (typeof cell !== 'string') {
      const cents = moneyFromCell(cell, '');
      return typeof cents === 'number' ? cents : null;
    }
    const text = cleanText(cell);
    const cents = this.numbers.isLocaleAware ? parseLocaleMoney(text, this.numbers.mark) : moneyFromCell(cell, text);
    return typeof cents === 'number' ? cents : null;
  }

  private readQuantity(cell: CellValue): number | null {
    if (cell === null || cell === undefined) return null;
    const text = typeof cell === 'string' ? cleanText(cell) : '';
    const q = typeof cell === 'string' && this.numbers.isLocaleAware ? parseLocaleInteger(text, this.numbers.mark) : integerFromCell(cell, text);
    return typeof q === 'number' && q > 0 ? q : null;
  }
}

/**
 * A source cell as the checker should see it: blank as null; text without the apostrophe Shopify and Excel
 * put before a value to keep it text (`'02143`, `'+1 555...`); numbers and dates as they are.
 */
function sourceCell(cell: CellValue | undefined): CellValue {
  if (cell === null || cell === undefined) return null;
  if (typeof cell !== 'string') return cell;
  const text = cell.trim();
  if (text === '') return null;
  return text.charCodeAt(0) === 0x27 && /^'[\d+]/.test(text) ? text.slice(1) : cell;
}

/**
 * Fields whose value never begins with an apostrophe: a leading one is the export's guard whatever follows
 * (`'K1P 5G4`, `'(613) 555-0142`), where a name or an address may begin with one of its own (`'s-Hertogenbosch`).
 */
const GUARDED_FIELDS: ReadonlySet<string> = new Set(['postalOrZipCode', 'phone', 'shippingContactPhoneNumber']);

function withoutTextGuard(value: CellValue): CellValue {
  if (typeof value !== 'string') return value;
  const trimmed = value.trimStart();
  if (trimmed.charCodeAt(0) !== 0x27) return value;
  const text = trimmed.slice(1).trim();
  return text === '' ? null : text;
}

function textOf(cell: CellValue | undefined): string | null {
  const value = sourceCell(cell);
  if (value === null) return null;
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  const text = cleanText(String(value));
  return text === '' ? null : text;
}

/** The profile's value map (case and spaces aside), then country names to codes for countryCode. */
function mapValue(d: DerivedColumn, cell: CellValue, rule: { values?: Record<string, string> | undefined; otherwise?: 'keep' | 'blank' | undefined }): CellValue {
  if (cell === null) return null;
  let value: CellValue = cell;
  if (rule.values !== undefined) {
    const text = textOf(cell);
    const mapped = text === null ? undefined : valueMapOf(rule.values).get(text.toLowerCase());
    if (mapped !== undefined) value = mapped;
    else if (rule.otherwise === 'blank') return null;
  }
  if (d.field === 'countryCode' && typeof value === 'string') return toCountryCode(value) ?? value;
  return value;
}

/** A rule's value map keyed by lower-case source value, built once per rule. */
const valueMaps = new WeakMap<Record<string, string>, Map<string, string>>();

function valueMapOf(values: Record<string, string>): Map<string, string> {
  let map = valueMaps.get(values);
  if (map === undefined) {
    map = new Map(Object.entries(values).map(([from, to]) => [from.trim().toLowerCase(), to]));
    valueMaps.set(values, map);
  }
  return map;
}

function shown(cell: Exclude<CellValue, null>): string {
  return cell instanceof Date ? cell.toISOString().slice(0, 10) : String(cell).trim();
}
