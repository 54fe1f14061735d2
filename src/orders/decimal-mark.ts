/**
 * Numbers written with a comma as the decimal mark (`12,50`, `1.234,50`, `1 234,50`), as a European
 * Excel saves them in a semicolon-separated CSV. A value is read as itself when it cannot be read two
 * ways (`12,50`, `$1,234.50`); only `1,234` and `1.234` can be either, and those follow the file's
 * decimal mark, decided once from all of its number cells (decideDecimalMark). Never a guess per cell.
 */
import { parseIntegerText, parseMoneyText, type IntegerProblem, type MoneyProblem } from './numbers.js';

export type DecimalMark = 'dot' | 'comma';

/** What one number's text says of the decimal mark: `ambiguous` for `1,234` and `1.234`; `none` without a separator. */
export type MarkEvidence = DecimalMark | 'ambiguous' | 'none';

/** A value that the file's decimal mark must decide, in a file whose mark could not be decided. */
export type AmbiguousProblem = 'ambiguous';

/** Spaces used to group thousands: space, no-break space, narrow no-break space, thin space. */
const GROUP_SPACES = /[ \u00a0\u202f\u2009]/g;
/** Currency symbols written before or after an amount. */
const CURRENCY = /^[$€£]\s*|\s*(?:[$€£]|EUR|USD|GBP)$/gi;

/** The number's text without currency signs, grouping spaces, sign or accounting parentheses: only digits, `,` and `.` remain. */
function digitsAndMarks(text: string): string {
  let s = text.trim().replace(CURRENCY, '');
  if (s.startsWith('(') && s.endsWith(')')) s = s.slice(1, -1);
  s = s.replace(/^[+-]\s*/, '').replace(CURRENCY, '').replace(/^[+-]/, '');
  return s.replace(GROUP_SPACES, '');
}

/** Groups after the first all of three digits: `1,234,567` or `1.234`. */
function isGrouped(parts: readonly string[]): boolean {
  return parts[0]!.length >= 1 && parts[0]!.length <= 3 && parts.slice(1).every((p) => p.length === 3);
}

export function markEvidenceOf(text: string): MarkEvidence {
  const s = digitsAndMarks(text);
  if (!/^[\d.,]+$/.test(s)) return 'none';
  const commas = s.split(',').length - 1;
  const dots = s.split('.').length - 1;
  if (commas === 0 && dots === 0) return 'none';
  if (commas > 0 && dots > 0) return s.lastIndexOf(',') > s.lastIndexOf('.') ? 'comma' : 'dot';
  const mark = commas > 0 ? ',' : '.';
  const count = commas > 0 ? commas : dots;
  const parts = s.split(mark);
  // `1,234,567` / `1.234.567`: several marks can only group thousands, so the other one is the decimal mark.
  if (count > 1) return isGrouped(parts) ? (mark === ',' ? 'dot' : 'comma') : 'none';
  // `12,50` / `12.5` / `,99`: not a group of three, so the mark is the decimal mark.
  if (parts[1]!.length !== 3 || parts[0]!.length === 0 || parts[0]!.length > 3 || /^0+$/.test(parts[0]!)) return mark === ',' ? 'comma' : 'dot';
  // `1,234` / `1.234`: either three decimals or a thousands group.
  return 'ambiguous';
}

/** `1.234,50` -> `1234.50`: the text in the form the dot readers take, given the decimal mark. */
function toDotForm(text: string, mark: DecimalMark): string {
  let s = text.trim().replace(GROUP_SPACES, '');
  if (mark === 'comma') s = s.replace(/\./g, '').replace(',', '.');
  else s = s.replace(/,/g, '');
  return s.replace(/€|£|EUR|USD|GBP/gi, '');
}

/** The mark a value is read with: its own when it shows one, else the file's (null: not decided). */
function markFor(text: string, fileMark: DecimalMark | null): DecimalMark | 'none' | AmbiguousProblem {
  const evidence = markEvidenceOf(text);
  if (evidence === 'dot' || evidence === 'comma') return evidence;
  if (evidence === 'none') return 'none';
  return fileMark ?? 'ambiguous';
}

/** Exact cents, reading the decimal mark as described above. */
export function parseLocaleMoney(text: string, fileMark: DecimalMark | null): number | MoneyProblem | AmbiguousProblem {
  const mark = markFor(text, fileMark);
  if (mark === 'ambiguous') return mark;
  if (mark === 'none') {
    const plain = parseMoneyText(text);
    return typeof plain === 'number' ? plain : parseMoneyText(toDotForm(text, 'dot'));
  }
  return parseMoneyText(toDotForm(text, mark));
}

/** A whole number, reading the decimal mark as described above (`1.000` is a thousand where the comma is the decimal mark). */
export function parseLocaleInteger(text: string, fileMark: DecimalMark | null): number | IntegerProblem | AmbiguousProblem {
  const mark = markFor(text, fileMark);
  if (mark === 'ambiguous') return mark;
  if (mark === 'none') return parseIntegerText(text.trim().replace(GROUP_SPACES, ''));
  return parseIntegerText(toDotForm(text, mark));
}

export interface DecimalMarkCounts {
  dot: number;
  comma: number;
  ambiguous: number;
  /** A few ambiguous values as written, for the explanation. */
  ambiguousExamples: string[];
}

export function emptyCounts(): DecimalMarkCounts {
  return { dot: 0, comma: 0, ambiguous: 0, ambiguousExamples: [] };
}

export function countEvidence(counts: DecimalMarkCounts, text: string): void {
  const evidence = markEvidenceOf(text);
  if (evidence === 'dot') counts.dot++;
  else if (evidence === 'comma') counts.comma++;
  else if (evidence === 'ambiguous') {
    counts.ambiguous++;
    if (counts.ambiguousExamples.length < 3 && !counts.ambiguousExamples.includes(text.trim())) counts.ambiguousExamples.push(text.trim());
  }
}

export interface DecimalMarkDecision {
  /** The mark ambiguous values are read with; null when the file does not say. */
  mark: DecimalMark | null;
  /** One sentence for the whole file (null when there is nothing worth saying: only plain numbers). */
  statement: string | null;
  /** Ambiguous values had to be refused: the statement explains why, once. */
  isUndecided: boolean;
}

const NAMES: Record<DecimalMark, string> = { dot: 'a point (12.50)', comma: 'a comma (12,50)' };

/**
 * The file's decimal mark from what its number cells show: the one its unambiguous values use, when they
 * agree; forced by a setting (`forced`, naming it) otherwise. Values that show both marks, or none, leave
 * `1,234` undecided.
 */
export function decideDecimalMark(file: string, counts: DecimalMarkCounts, forced?: { mark: DecimalMark; by: string }): DecimalMarkDecision {
  if (forced) {
    return { mark: forced.mark, statement: `Numbers in ${file} are read with ${NAMES[forced.mark]} as the decimal mark (${forced.by}).`, isUndecided: false };
  }
  const examples = counts.ambiguousExamples.map((e) => `"${e}"`).join(', ');
  if (counts.comma > 0 && counts.dot === 0) {
    return { mark: 'comma', statement: `Numbers in ${file} are read with a comma as the decimal mark (12,50 = 12.50), as ${counts.comma} of its amounts show${counts.ambiguous > 0 ? `; so ${examples} ${counts.ambiguous === 1 ? 'is' : 'are'} read with the comma as decimal mark too` : ''}.`, isUndecided: false };
  }
  if (counts.dot > 0 && counts.comma === 0) {
    if (counts.ambiguous === 0) return { mark: 'dot', statement: null, isUndecided: false };
    return { mark: 'dot', statement: `Numbers in ${file} are read with a point as the decimal mark (12.50), as ${counts.dot} of its amounts show; so the comma in ${examples} groups thousands.`, isUndecided: false };
  }
  if (counts.ambiguous === 0) return { mark: null, statement: null, isUndecided: false };
  const why = counts.dot > 0
    ? `its amounts use both marks (${counts.comma} with a decimal comma, ${counts.dot} with a decimal point)`
    : 'none of its amounts shows which mark is the decimal one';
  return {
    mark: null,
    statement: `The decimal mark of ${file} could not be decided: ${why}, so ${counts.ambiguous} number${counts.ambiguous === 1 ? '' : 's'} such as ${examples} could mean a thousand or one, and ${counts.ambiguous === 1 ? 'is' : 'are'} not read. Write them without thousands separators and with the decimal mark of the rest (like 1234 or 12.50), or say which mark the file uses: --decimal-comma, or "decimalMark" in the mapping profile.`,
    isUndecided: true,
  };
}
