/**
 * Text cells: trimming, Unicode spaces, the apostrophe our result CSV puts before formula-like text,
 * numbers that Excel stored in text columns, and the scientific notation Excel turns long digit strings into.
 */
import { removeFormulaGuard } from '../formula-guard.js';
import type { CellValue } from '../sheet/types.js';

const APOSTROPHE = 0x27;
/** Unicode space characters that are not the ASCII space; pasted text (web pages, PDFs) is full of them. */
const UNICODE_SPACES = /[\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/g;
/** Invisible characters that mean nothing in an address or ID. */
const INVISIBLES = /[\u200b\ufeff]/g;
/** What Excel shows for a long number: 1.23457E+10. Only the `E+` form: an ID like `12E3` is left alone. */
const SCIENTIFIC = /^-?\d+(?:[.,]\d+)?[eE]\+\d{1,3}$/;
const LINE_BREAKS = /\r\n|\r|\n/;
/** Excel keeps 15 significant digits: a number this large may already have lost some. */
const MAX_EXACT_NUMBER = 1e15;

/**
 * Trimmed text with every Unicode space turned into a plain space (runs inside are kept).
 * `String.prototype.trim` already removes NBSP and the other Unicode spaces at the ends.
 * A result CSV's formula guard (`'+1 617 555 0100`, `'=x`) is not data: it goes, before trimming,
 * since it was put before the untrimmed text (see output-files/cell-values.ts).
 */
export function cleanText(raw: string): string {
  const s = (raw.charCodeAt(0) === APOSTROPHE ? removeFormulaGuard(raw) : raw).trim();
  // Fast path: plain Latin text has nothing at or above U+00A0 to replace.
  for (let i = 0; i < s.length; i++) {
    if (s.charCodeAt(i) >= 0xa0) return s.replace(UNICODE_SPACES, ' ').replace(INVISIBLES, '').trim();
  }
  return s;
}

/**
 * A one-line field's text with its lines (a quoted line break in a CSV cell, Alt+Enter in Excel) joined by
 * single spaces, blank lines dropped: the API takes a name or an ID on one line, and `Ann` and `Lee` on
 * two lines mean `Ann Lee`. Only address cells keep their lines, as address lines (orders/cells.ts).
 */
export function joinLines(text: string): string {
  return hasLineBreak(text) ? nonBlankLines(text).join(' ') : text;
}

/** The non-blank lines of a cell, trimmed (an address cell's address lines; a one-line field's parts). */
export function nonBlankLines(text: string): string[] {
  if (!hasLineBreak(text)) return [text];
  return text
    .split(LINE_BREAKS)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

function hasLineBreak(text: string): boolean {
  return text.includes('\n') || text.includes('\r');
}

/**
 * A copy of `s` that shares no memory with the chunk it was cut from. CSV parsers hand out
 * slices of 64 KB chunks; keeping one slice per order alive would keep the whole file alive.
 */
export function detach(s: string): string {
  // V8 copies substrings shorter than 13 characters; longer ones are slices of their parent.
  return s.length < 13 ? s : (' ' + s).slice(1);
}

export function isScientificNotation(s: string): boolean {
  const c = s.charCodeAt(0);
  if (!((c >= 48 && c <= 57) || c === 45)) return false;
  return (s.includes('E+') || s.includes('e+')) && SCIENTIFIC.test(s);
}

export type TextFromCell =
  | { kind: 'text'; text: string; fromNumber: boolean }
  | { kind: 'blank' }
  | { kind: 'scientific'; text: string };

/**
 * The text of a cell as a user would read it. Whole numbers (xlsx number cells in a text column)
 * become their digits; numbers too large to be exact, or text in scientific notation when
 * `isIdLike`, are reported so the user can format the column as text.
 */
export function textFromCell(raw: CellValue, isIdLike: boolean): TextFromCell {
  if (raw === null || raw === undefined) return BLANK;
  if (typeof raw === 'string') {
    const text = cleanText(raw);
    if (text === '') return BLANK;
    if (isIdLike && isScientificNotation(text)) return { kind: 'scientific', text };
    return { kind: 'text', text, fromNumber: false };
  }
  if (typeof raw === 'number') {
    const text = String(raw);
    if (!Number.isFinite(raw) || Math.abs(raw) >= MAX_EXACT_NUMBER || text.includes('e')) return { kind: 'scientific', text };
    return { kind: 'text', text, fromNumber: true };
  }
  if (typeof raw === 'boolean') return { kind: 'text', text: raw ? 'TRUE' : 'FALSE', fromNumber: false };
  // A date cell in a text column: show it as the sheet does (its UTC fields are the wall clock).
  if (Number.isNaN(raw.getTime())) return BLANK;
  const iso = raw.toISOString();
  const text = iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso.slice(0, 19).replace('T', ' ');
  return { kind: 'text', text, fromNumber: false };
}

const BLANK: TextFromCell = { kind: 'blank' };

/** A value quoted for a message, shortened so one long cell does not drown the sentence. */
export function quote(value: string): string {
  const shown = value.length > 60 ? `${value.slice(0, 57)}...` : value;
  return `"${shown.replace(/[\r\n]+/g, ' ')}"`;
}
