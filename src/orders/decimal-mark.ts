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

/** Why a value with marks is not a number in any locale: marks doubled or misplaced, groups not of three digits. */
export type GroupingProblem = 'grouping';
/** A value whose own decimal mark is not the one the file was said to use (`12.50` under --decimal-comma). */
export type OtherMarkProblem = 'other_mark';
export type LocaleProblem = AmbiguousProblem | GroupingProblem | OtherMarkProblem;

/**
 * What a number's digits and marks say, read strictly: `number` with the decimal mark it shows (`none`:
 * no decimal part, `ambiguous`: `1,234`), `malformed` when its marks cannot be a number in any locale
 * (`12,,50`, `7,0,0`, `1.23.4`, `12 34,50`), `other` when it is not digits and marks at all.
 */
type Shape = { kind: 'number'; mark: MarkEvidence } | { kind: 'malformed' } | { kind: 'other' };

/** The number's text without currency signs, sign or accounting parentheses; grouping spaces become plain spaces. */
function digitsAndMarks(text: string): string {
  let s = text.trim().replace(CURRENCY, '');
  if (s.startsWith('(') && s.endsWith(')')) s = s.slice(1, -1);
  s = s.trim().replace(/^[+-]\s*/, '').replace(CURRENCY, '').replace(/^[+-]/, '');
  return s.trim().replace(GROUP_SPACES, ' ');
}

/** Thousands groups: a first of one to three digits (not starting with 0), then groups of exactly three. */
function isGrouped(runs: readonly string[]): boolean {
  const first = runs[0]!;
  return first.length >= 1 && first.length <= 3 && first[0] !== '0' && runs.slice(1).every((r) => r.length === 3);
}

function shapeOf(text: string): Shape {
  const s = digitsAndMarks(text);
  if (!/^[\d., ]+$/.test(s) || !/\d/.test(s)) return { kind: 'other' };
  const seps = s.replace(/\d/g, '');
  const runs = s.split(/[., ]/);
  if (seps.length === 0) return { kind: 'number', mark: 'none' };
  const last = seps[seps.length - 1]!;
  const groupRuns = runs.slice(0, -1);
  if (last === ' ') {
    // `1 234`: spaces only ever group thousands.
    return /^ +$/.test(seps) && isGrouped(runs) ? { kind: 'number', mark: 'none' } : { kind: 'malformed' };
  }
  const other = last === ',' ? 'dot' : 'comma';
  if (seps.split(last).length - 1 > 1) {
    // `1,234,567` / `1.234.567`: a mark written twice only groups thousands, so the other is the decimal mark.
    return seps.split('').every((c) => c === last) && isGrouped(runs) ? { kind: 'number', mark: other } : { kind: 'malformed' };
  }
  const fraction = runs[runs.length - 1]!;
  if (fraction === '') return { kind: 'malformed' };
  const mark = last === ',' ? 'comma' : 'dot';
  if (seps.length === 1) {
    const whole = runs[0]!;
    // `1,234` / `1.234`: either three decimals or a thousands group; `12,50`, `,99`, `0,125` can only be decimals.
    if (fraction.length === 3 && whole.length >= 1 && whole.length <= 3 && !/^0+$/.test(whole)) return { kind: 'number', mark: 'ambiguous' };
    return { kind: 'number', mark };
  }
  // `1.234,50`, `1 234,50`, `1,234.50`: one kind of group mark, other than the decimal one, between groups of three.
  const group = seps[0]!;
  if (group === last || !seps.slice(0, -1).split('').every((c) => c === group)) return { kind: 'malformed' };
  return isGrouped(groupRuns) ? { kind: 'number', mark } : { kind: 'malformed' };
}

export function markEvidenceOf(text: string): MarkEvidence {
  const shape = shapeOf(text);
  return shape.kind === 'number' ? shape.mark : 'none';
}

/** `1.234,50` -> `1234.50`: the text in the form the dot readers take, given the decimal mark. */
function toDotForm(text: string, mark: DecimalMark): string {
  let s = text.trim().replace(GROUP_SPACES, '');
  if (mark === 'comma') s = s.replace(/\./g, '').replace(',', '.');
  else s = s.replace(/,/g, '');
  return s.replace(/€|£|EUR|USD|GBP/gi, '');
}

/**
 * The mark a value is read with: its own when it shows one (and it is the file's, when the file's is
 * known), else the file's; `none` for whole numbers. A value whose marks cannot make a number is refused
 * here, before any reader could drop a stray mark and read `12,,50` as 1250.
 */
function markFor(text: string, fileMark: DecimalMark | null): DecimalMark | 'none' | 'other' | LocaleProblem {
  const shape = shapeOf(text);
  if (shape.kind === 'other') return 'other';
  if (shape.kind === 'malformed') return 'grouping';
  const evidence = shape.mark;
  if (evidence === 'dot' || evidence === 'comma') return fileMark !== null && fileMark !== evidence ? 'other_mark' : evidence;
  if (evidence === 'none') return 'none';
  return fileMark ?? 'ambiguous';
}

function isProblem(mark: ReturnType<typeof markFor>): mark is LocaleProblem {
  return mark === 'ambiguous' || mark === 'grouping' || mark === 'other_mark';
}

/** Exact cents, reading the decimal mark as described above. */
export function parseLocaleMoney(text: string, fileMark: DecimalMark | null): number | MoneyProblem | LocaleProblem {
  const mark = markFor(text, fileMark);
  if (isProblem(mark)) return mark;
  if (mark === 'other') return parseMoneyText(text);
  return parseMoneyText(toDotForm(text, mark === 'none' ? 'dot' : mark));
}

/** A whole number, reading the decimal mark as described above (`1.000` is a thousand where the comma is the decimal mark). */
export function parseLocaleInteger(text: string, fileMark: DecimalMark | null): number | IntegerProblem | LocaleProblem {
  const mark = markFor(text, fileMark);
  if (isProblem(mark)) return mark;
  if (mark === 'other') return parseIntegerText(text.trim());
  return parseIntegerText(toDotForm(text, mark === 'none' ? 'dot' : mark));
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
