/**
 * What a sheet's values say that its headers do not, for a draft profile: the date order (`24.11.2026`
 * is day first), a named date form (`Nov-18-26`), the decimal mark (`12,50`), and which order-level
 * amounts are given per line (values that differ within an order are added up: `sum`).
 */
import { countEvidence, decideDecimalMark, emptyCounts } from '../orders/decimal-mark.js';
import type { DateOrder, NamedDateFormat } from '../orders/types.js';
import { COLUMN_BY_FIELD, type Field } from '../sheet/columns.js';

export interface ValueHints {
  dateOrder?: DateOrder;
  dateFormat?: NamedDateFormat;
  decimalMark?: 'dot' | 'comma';
  /** Order-level amounts whose lines differ within an order: the order's value is their sum. */
  summed: Field[];
  notes: string[];
}

const NUMERIC_DATE = /^(\d{1,2})([./-])(\d{1,2})\2(\d{2}|\d{4})(?:[ T].*)?$/;
const MMM_DD_YY = /^[A-Za-z]{3}-\d{1,2}-(\d{2}|\d{4})$/;
const ORDER_AMOUNTS: readonly Field[] = ['salesTax', 'subTotal', 'discountTotal', 'grandTotal'];

/** `columns`: the column each field was guessed from; `rows`: the first rows' cells as text. */
export function readValueHints(columns: ReadonlyMap<Field, number>, rows: readonly (readonly string[])[]): ValueHints {
  const hints: ValueHints = { summed: [], notes: [] };
  const valuesOf = (column: number) => rows.map((r) => (r[column] ?? '').trim()).filter((v) => v !== '');

  const dateColumns = [...columns].filter(([field]) => COLUMN_BY_FIELD.get(field)?.kind === 'date').map(([, c]) => c);
  const dates = dateColumns.flatMap(valuesOf);
  if (dates.length > 0 && dates.every((d) => MMM_DD_YY.test(d))) {
    hints.dateFormat = dates[0]!.length > 9 ? 'MMM-DD-YYYY' : 'MMM-DD-YY';
    hints.notes.push(`dateFormat: dates are written like ${dates[0]}, so they are read as ${hints.dateFormat}`);
  }
  let dayFirst = 0;
  let monthFirst = 0;
  for (const d of dates) {
    const m = NUMERIC_DATE.exec(d);
    if (m === null) continue;
    if (m[2] === '.' || +m[1]! > 12) dayFirst++;
    else if (+m[3]! > 12) monthFirst++;
  }
  if (dayFirst > 0 && monthFirst === 0) {
    hints.dateOrder = 'dmy';
    hints.notes.push(`dateOrder: dates such as ${dates.find((d) => NUMERIC_DATE.test(d))} are written day first`);
  } else if (monthFirst > 0 && dayFirst === 0) {
    hints.dateOrder = 'mdy';
  } else if (dayFirst > 0 && monthFirst > 0) {
    hints.notes.push('dateOrder: some dates are written day first and some month first; set "dateOrder" to the one the file uses');
  }

  const counts = emptyCounts();
  for (const [field, column] of columns) {
    const kind = COLUMN_BY_FIELD.get(field)?.kind;
    if (kind === 'money' || kind === 'integer') for (const v of valuesOf(column)) countEvidence(counts, v);
  }
  const decision = decideDecimalMark('the file', counts);
  if (decision.mark === 'comma') {
    hints.decimalMark = 'comma';
    hints.notes.push(`decimalMark: amounts such as ${firstWithComma(columns, rows)} are written with a decimal comma`);
  } else if (decision.mark === 'dot' && counts.ambiguous > 0) {
    hints.decimalMark = 'dot';
  }

  const id = columns.get('customerOrderId');
  if (id !== undefined) {
    for (const field of ORDER_AMOUNTS) {
      const column = columns.get(field);
      if (column === undefined) continue;
      const differing = differingOrder(rows, id, column);
      if (differing === null) continue;
      hints.summed.push(field);
      hints.notes.push(`${field}: order ${differing.order} has ${differing.values.join(' and ')} on its lines, so the order's is their sum ("sum": true); if each line repeats the order's amount with the first line's the right one, use "first": true instead`);
    }
  }
  return hints;
}

function firstWithComma(columns: ReadonlyMap<Field, number>, rows: readonly (readonly string[])[]): string {
  for (const [, c] of columns) for (const r of rows) if (/\d,\d{1,2}$/.test((r[c] ?? '').trim())) return `"${r[c]!.trim()}"`;
  return '"12,50"';
}

/** The first order whose lines give different non-blank values in `column`. */
function differingOrder(rows: readonly (readonly string[])[], id: number, column: number): { order: string; values: string[] } | null {
  const seen = new Map<string, string>();
  for (const r of rows) {
    const order = (r[id] ?? '').trim();
    const value = (r[column] ?? '').trim();
    if (order === '' || value === '') continue;
    const earlier = seen.get(order);
    if (earlier === undefined) seen.set(order, value);
    else if (earlier !== value) return { order, values: [earlier, value] };
  }
  return null;
}
