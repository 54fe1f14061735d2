/**
 * Header row -> the field each column feeds (PRODUCT.md section 2): case, spaces, `_`, `-` and
 * `.` are ignored and the aliases of src/sheet/columns.ts accepted. Unknown, duplicate and blank
 * headers are warnings (the column is ignored); a missing required column is an error.
 */
import { distance } from 'fastest-levenshtein';
import { severityOf, type Issue, type IssueCode } from '../issues/index.js';
import { isRoleCompatible, roleOf, tokensOf } from './column-roles.js';
import { toColumnLetter } from './column-letters.js';
import { COLUMNS, FIELD_BY_HEADER, normalizeHeader, type Field } from './columns.js';

export interface HeaderMapping {
  /** The field of each column, null for a column that is ignored. */
  columns: (Field | null)[];
  issues: Issue[];
}

/**
 * The columns validate and import append to a result file (output-files/results-sheet.ts, write-result-csv.ts).
 * A result file given back (its Fix sheet, or a corrected result CSV) has them after the order columns:
 * they are ours, not the user's, and are passed over without a warning.
 */
const RESULT_COLUMNS: ReadonlySet<string> = new Set(['status', 'issues', 'httpStatus', 'requestId', 'submittedAt'].map(normalizeHeader));

/** `headerRow` is the row the header was found on (1 unless blank rows came first). */
export function mapHeaders(headers: string[], headerRow = 1): HeaderMapping {
  const columns: (Field | null)[] = [];
  const issues: Issue[] = [];
  const firstColumnOf = new Map<Field, number>();
  // A result file of this tool: an `issues` column, with `status` beside it on the Results sheet and in a result CSV.
  const keys = headers.map((h) => normalizeHeader(h.trim()));
  const isResultFile = keys.includes(normalizeHeader('issues'));

  // Past the first few, columns that are not order fields are counted, not listed: a sheet of a million
  // columns gets one line about them, and only the listed ones are matched against the names for a typo.
  let listedUnknown = 0;
  let moreUnknown = 0;
  const unknown = (make: () => Issue): void => {
    if (listedUnknown < MAX_LISTED_UNKNOWN_COLUMNS) {
      issues.push(make());
      listedUnknown++;
    } else moreUnknown++;
  };
  headers.forEach((raw, index) => {
    const header = raw.trim();
    // Only the columns named in a message need their letters.
    const at = () => `column ${toColumnLetter(index)}`;
    if (header === '') {
      columns.push(null);
      unknown(() => issue('unknown_column', headerRow, null, index,
        `${capitalize(at())} has no header, so its cells are ignored: give it one of the column names of the template if it holds order data, or delete the column`));
      return;
    }
    const field = FIELD_BY_HEADER.get(keys[index]!) ?? null;
    if (field === null && isResultFile && RESULT_COLUMNS.has(keys[index]!)) {
      columns.push(null);
      return;
    }
    if (field === null) {
      columns.push(null);
      unknown(() => {
        const suggestion = suggestField(header);
        const hint = suggestion ? `; did you mean ${suggestion}?` : ': rename it to one of the template\'s column names if it holds order data';
        return issue('unknown_column', headerRow, header, index, `Column "${header}" (${at()}) is not an order field and is ignored${hint}`);
      });
      return;
    }
    const earlier = firstColumnOf.get(field);
    if (earlier !== undefined) {
      columns.push(null);
      issues.push(issue('unknown_column', headerRow, header, index,
        `Column "${header}" (${at()}) also means ${field}, which "${headers[earlier]!.trim()}" (column ${toColumnLetter(earlier)}) already provides; this second one is ignored: delete or rename one of them`));
      return;
    }
    firstColumnOf.set(field, index);
    columns.push(field);
  });
  if (moreUnknown > 0) {
    issues.push(issue('unknown_column', headerRow, null, undefined,
      `${moreUnknown.toLocaleString('en-US')} more column${moreUnknown === 1 ? ' is not an order field' : 's are not order fields'} and ${moreUnknown === 1 ? 'is' : 'are'} ignored (unnamed or not one of the template's column names): delete the columns that hold no order data`));
  }

  for (const column of COLUMNS) {
    if (!column.requiredColumn || firstColumnOf.has(column.field)) continue;
    const aliases = column.aliases.slice(0, 5).map((s) => `"${s}"`).join(', ');
    const also = aliases ? ` (also accepted: ${aliases})` : '';
    issues.push(issue('missing_column', null, column.field, undefined,
      `The sheet has no ${column.field} column: add a column headed "${column.field}"${also}; case, spaces, _ and - in headers do not matter`));
  }
  return { columns, issues };
}

/** Columns that are not order fields named one by one in the warnings; the rest are counted in one. */
export const MAX_LISTED_UNKNOWN_COLUMNS = 10;

const REQUIRED_FIELDS = COLUMNS.filter((c) => c.requiredColumn).map((c) => c.field);
const REQUIRED_SET: ReadonlySet<Field> = new Set(REQUIRED_FIELDS);

/**
 * Whether a row's texts are an order sheet's header row: they name customerOrderId and most of the required
 * columns (matched as mapHeaders matches them). Used to spot the header row below a title and orders on
 * another worksheet, not to accept a sheet: mapHeaders decides that.
 */
export function isOrderHeader(headers: readonly string[]): boolean {
  const fields = new Set<Field>();
  let named = 0;
  for (const header of headers) {
    const field = FIELD_BY_HEADER.get(normalizeHeader(header));
    if (field === undefined || fields.has(field)) continue;
    fields.add(field);
    if (REQUIRED_SET.has(field)) named++;
    // Every required column named: whatever follows (a million more columns) changes nothing.
    if (named === REQUIRED_FIELDS.length) return true;
  }
  return fields.has('customerOrderId') && named * 2 > REQUIRED_FIELDS.length;
}

function issue(code: IssueCode, row: number | null, column: string | null, colIndex: number | undefined, message: string): Issue {
  const result: Issue = { row, column, code, severity: severityOf(code), message };
  if (colIndex !== undefined) result.colIndex = colIndex;
  return result;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

const KNOWN_HEADERS = [...FIELD_BY_HEADER.entries()];

/**
 * The field whose name or alias is within a typo or two of the header, if any, among the fields a column
 * of its role may feed (column-roles.ts): `Shipping Name` is a few letters from `shippername`, and still
 * never the shipper's name.
 */
export function suggestField(header: string): Field | null {
  const key = normalizeHeader(header);
  if (key.length === 0) return null;
  const role = roleOf(tokensOf(header));
  let best: Field | null = null;
  let bestDistance = Infinity;
  for (const [name, field] of KNOWN_HEADERS) {
    if (!isRoleCompatible(field, role)) continue;
    const d = distance(key, name);
    if (d < bestDistance) {
      bestDistance = d;
      best = field;
    }
  }
  // About one edit per four characters: "custmer order id" is a typo, "notes" is not "name".
  const allowed = Math.max(1, Math.floor(key.length / 4));
  return bestDistance <= allowed ? best : null;
}
