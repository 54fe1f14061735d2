/**
 * Fixes to the XML of a workbook's parts on their way into exceljs's streaming reader, for what valid
 * files hold and exceljs mishandles (see xlsx-stream-fixes.ts for where each is applied). Each works on
 * whole tags: wholeTags never cuts a tag between two pieces of text.
 */
import { TextDecoder } from 'node:util';

/** The decoded text of a part, in pieces that never end inside a tag, nor with the blank after a tag. */
export async function* wholeTags(source: AsyncIterable<Buffer | string>): AsyncGenerator<string, void, undefined> {
  const decoder = new TextDecoder('utf-8');
  let carry = '';
  for await (const chunk of source) {
    let text = carry + (typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
    // What follows the last tag waits for the next piece when it is a cut tag or blank: whether a blank is
    // indentation (dropIndentation) depends on the tag after it.
    const last = text.lastIndexOf('>') + 1;
    const open = text.indexOf('<', last);
    const rest = open !== -1 ? open : /^\s+$/.test(text.slice(last)) ? last : text.length;
    carry = text.slice(rest);
    text = text.slice(0, rest);
    if (text.length > 0) yield text;
  }
  const rest = carry + decoder.decode();
  if (rest.length > 0) yield rest;
}

/** A `<row>` or `<c>` start tag, its attributes, and whether it closes itself. */
const ROW_OR_CELL = /<(row|c)(?=[\s/>])([^>]*?)(\/?)>/g;
/** Some `<row>` or `<c>` start tag without an `r` attribute: rare (Excel always writes them), so looked for before any rewriting. */
const WITHOUT_REF = /<(?:row|c)(?=[\s/>])(?![^>]*\sr\s*=)/;
const REF_ATTRIBUTE = /\sr\s*=\s*["']([A-Za-z]*)(\d*)["']/;

/**
 * Writes in the `r` of rows and cells that leave it out (whole tags only, in document order): a row
 * without one is the row after the previous row, a cell without one the column after the previous cell.
 * Text whose tags all have theirs passes unchanged, the position being taken from its last tags.
 */
export class CellRefs {
  private row = 0;
  private col = 0;

  fill(xml: string): string {
    if (!WITHOUT_REF.test(xml)) {
      this.follow(xml);
      return xml;
    }
    return xml.replace(ROW_OR_CELL, (tag: string, name: string, attributes: string, selfClosing: string) => {
      const ref = REF_ATTRIBUTE.exec(attributes);
      if (name === 'row') {
        this.row = ref?.[2] ? Number(ref[2]) : this.row + 1;
        this.col = 0;
        return ref ? tag : `<row r="${this.row}"${attributes}${selfClosing}>`;
      }
      this.col = ref?.[1] ? columnNumber(ref[1]) : this.col + 1;
      return ref ? tag : `<c r="${columnLetters(this.col)}${this.row}"${attributes}${selfClosing}>`;
    });
  }

  /** The position after text that needs no filling: its last row and, after that row's start, its last cell. */
  private follow(xml: string): void {
    const rowAt = lastTag(xml, '<row');
    if (rowAt !== -1) {
      this.row = Number(REF_ATTRIBUTE.exec(xml.slice(rowAt, xml.indexOf('>', rowAt)))?.[2] ?? this.row + 1);
      this.col = 0;
    }
    const cellAt = lastTag(xml, '<c');
    if (cellAt > rowAt) this.col = columnNumber(REF_ATTRIBUTE.exec(xml.slice(cellAt, xml.indexOf('>', cellAt)))?.[1] ?? '') || this.col + 1;
  }
}

/** Where the last `<name` start tag (not a longer name: `<c` is not `<cols`) begins, or -1. */
function lastTag(xml: string, open: string): number {
  for (let at = xml.lastIndexOf(open); at !== -1; at = xml.lastIndexOf(open, at - 1)) {
    if (/[\s/>]/.test(xml.charAt(at + open.length))) return at;
    if (at === 0) break;
  }
  return -1;
}

function columnNumber(letters: string): number {
  let n = 0;
  for (const letter of letters.toUpperCase()) n = n * 26 + letter.charCodeAt(0) - 64;
  return n;
}

function columnLetters(n: number): string {
  let letters = '';
  for (let rest = n; rest > 0; rest = Math.floor((rest - 1) / 26)) letters = String.fromCharCode(65 + ((rest - 1) % 26)) + letters;
  return letters;
}

const ERROR_TYPE = /(<c\s[^>]*?\bt=)(?:"e"|'e')/g;

/** Error cells (`t="e"`) as strings, so that exceljs keeps their text (#N/A): see xlsx-stream-fixes.ts. */
export function retypeErrorCells(xml: string): string {
  if (!xml.includes('t="e"') && !xml.includes("t='e'")) return xml;
  return xml.replace(ERROR_TYPE, '$1"str"');
}

const INDENTATION = /(<\/[^>]+>|\/>)\s+(?=<)/g;

/**
 * Without the line breaks and spaces a pretty-printed worksheet has after each closing tag: exceljs adds
 * the text after a cell's value, up to the cell's end, to the value ("SO-1\n   "). Only blanks between a
 * closing (or empty) tag and the next tag go: never the text of a `<t>` or a `<v>`.
 */
export function dropIndentation(xml: string): string {
  return />\s+</.test(xml) ? xml.replace(INDENTATION, '$1') : xml;
}

const INLINE_STRING = /<is(?:\s[^>]*)?>([\s\S]*?)<\/is>/g;
const PHONETIC_RUN = /<rPh(?:\s[^>]*)?>[\s\S]*?<\/rPh>/g;
const TEXT_ELEMENT = /<t(?:\s[^>]*)?>([\s\S]*?)<\/t>/g;
/** An inline string that is one `<t>` and nothing else: exceljs reads it right. */
const ONE_TEXT = /^<t(?:\s[^>]*)?>[^<]*<\/t>$/;

/**
 * Each inline string (`<is>`, whole in `xml`) as one `<t>` holding the text of all its `<t>` elements,
 * phonetic runs left out. exceljs keeps the last `<t>` it meets and the indentation after it, so to it a
 * cell "ARREST BOOKINGS for <r><t>01/30/17</t></r>" reads "01/30/17\n".
 */
export function joinInlineStrings(xml: string): string {
  if (!xml.includes('<is')) return xml;
  return xml.replace(INLINE_STRING, (whole: string, inner: string) => {
    if (ONE_TEXT.test(inner)) return whole;
    let text = '';
    for (const match of inner.replace(PHONETIC_RUN, '').matchAll(TEXT_ELEMENT)) text += match[1];
    return `<is><t xml:space="preserve">${text}</t></is>`;
  });
}

/** Where an inline string that `xml` does not close starts (its end is in the next piece), or -1. */
export function openInlineStringAt(xml: string): number {
  const at = lastTag(xml, '<is');
  return at !== -1 && !xml.includes('</is>', at) ? at : -1;
}

/**
 * The shared strings as exceljs must see them: the text of `<t>` elements only, without phonetic runs.
 * exceljs adds every text node of an `<si>` to its string, so a pretty-printed file (SpreadsheetGear's)
 * reads "String Value 1\n    ", and the reading guide of Japanese text (`<rPh><t>カンジ</t></rPh>`)
 * even replaces the text itself.
 */
export async function* fixSharedStringsXml(source: AsyncIterable<Buffer | string>): AsyncGenerator<string, void, undefined> {
  const filter = new SharedStringsFilter();
  for await (const text of wholeTags(source)) {
    const kept = filter.pass(text);
    if (kept.length > 0) yield kept;
  }
}

const TAG = /<[^>]*>/g;
const TAG_NAME = /^<\/?([^\s/>]+)/;

/** Passes every tag but those of phonetic runs, and text only inside `<t>` (outside phonetic runs). */
export class SharedStringsFilter {
  private isInText = false;
  private phoneticDepth = 0;

  pass(xml: string): string {
    let kept = '';
    let at = 0;
    for (const match of xml.matchAll(TAG)) {
      if (this.isInText && this.phoneticDepth === 0) kept += xml.slice(at, match.index);
      const tag = match[0];
      at = match.index + tag.length;
      const name = TAG_NAME.exec(tag)?.[1]?.replace(/^.*:/, '');
      const isClosing = tag.startsWith('</');
      const isEmpty = tag.endsWith('/>');
      if (name === 'rPh') {
        if (!isEmpty) this.phoneticDepth += isClosing ? -1 : 1;
        continue;
      }
      if (this.phoneticDepth > 0) continue;
      if (name === 't' && !isEmpty) this.isInText = !isClosing;
      kept += tag;
    }
    if (this.isInText && this.phoneticDepth === 0) kept += xml.slice(at);
    return kept;
  }
}
