/**
 * The sheet limits (limits.ts) for CSV text, checked on each decoded chunk before papaparse sees it: papaparse
 * holds an unfinished record whole and parses it again with every chunk, so a 20 MB quoted cell used to cost
 * gigabytes and a minute before anything could be said about it. Here it is refused once its first mebibyte
 * has streamed past.
 *
 * It follows papaparse's reading of quotes (a quote opens a quoted cell only at the start of a cell; inside
 * one, a doubled quote is a quote, and a quote closes the cell only when blanks, then the delimiter or the
 * line break, follow it), so it sees the same cells, rows and row numbers. Lines without quotes, nearly all
 * of them, are measured between line breaks found with indexOf instead of character by character.
 */
import { createCellTooLongError, createRowTooLongError, type SheetLimits } from './limits.js';

const QUOTE = 34;

const FIELD_START = 0;
const UNQUOTED = 1;
const QUOTED = 2;
/** Inside a quoted cell, just after a quote (and `spaces` blanks): the next character says what it was. */
const AFTER_QUOTE = 3;

export class CsvSizeGuard {
  private state = FIELD_START;
  private spaces = 0;
  /** Records started so far (1-based number of the current one), as csv-records.ts numbers them. */
  private record = 1;
  private col = 0;
  private cellChars = 0;
  private rowChars = 0;
  private hasContent = false;
  private isHeaderPending = true;
  private readonly delimiter: number;
  private readonly newline: number;
  private readonly fastLimit: number;

  /**
   * @param hasSeparatorLine the file starts with Excel's "sep=;" line, which is not a row (rows are numbered
   * from the line after it).
   */
  constructor(
    private readonly file: string,
    private readonly limits: SheetLimits,
    delimiter: string,
    newline: '\n' | '\r',
    private readonly hasSeparatorLine: boolean,
  ) {
    this.delimiter = delimiter.charCodeAt(0);
    this.newline = newline.charCodeAt(0);
    this.fastLimit = Math.min(limits.maxCellChars, limits.maxRowChars);
  }

  /** Checks the next decoded text; throws the InputError of the first limit crossed. */
  scan(text: string): void {
    const n = text.length;
    const newline = this.newline === 10 ? '\n' : '\r';
    // The end of the record carried over from the last chunk, character by character.
    let at = this.state === FIELD_START && this.col === 0 && this.rowChars === 0 ? 0 : this.scanUntilRecordEnd(text, 0);
    if (at >= n) return;
    if (text.indexOf('"', at) === -1 && !this.isHeaderPending) {
      // No quote: every line break ends a record, and a line no longer than the smaller limit crosses none.
      for (;;) {
        const end = text.indexOf(newline, at);
        if (end === -1) break;
        if (end - at > this.fastLimit) {
          at = this.scanUntilRecordEnd(text, at);
          continue;
        }
        this.record++;
        at = end + 1;
      }
    }
    while (at < n) at = this.scanUntilRecordEnd(text, at);
  }

  /** Scans from `from` to just past the end of the current record, or to the end of the text. */
  private scanUntilRecordEnd(text: string, from: number): number {
    const n = text.length;
    const delimiter = this.delimiter;
    const newline = this.newline;
    for (let i = from; i < n; i++) {
      const c = text.charCodeAt(i);
      let state = this.state;
      if (state === FIELD_START) {
        if (c === QUOTE) {
          this.state = QUOTED;
          continue;
        }
        state = this.state = UNQUOTED;
      }
      if (state === UNQUOTED) {
        if (c === delimiter) this.endCell();
        else if (c === newline) {
          this.endRecord();
          return i + 1;
        } else this.addChars(1, c);
      } else if (state === QUOTED) {
        if (c === QUOTE) {
          this.state = AFTER_QUOTE;
          this.spaces = 0;
        } else this.addChars(1, c);
      } else if (c === QUOTE && this.spaces === 0) {
        // AFTER_QUOTE from here on: a doubled quote is a quote.
        this.state = QUOTED;
        this.addChars(1, c);
      } else if (c === delimiter) {
        this.endCell();
      } else if (c === newline) {
        this.endRecord();
        return i + 1;
      } else if (isBlank(c)) {
        this.spaces++;
      } else if (c === QUOTE) {
        // The quote before the blanks closed nothing: it and they are text; this one may close the cell.
        this.addChars(1 + this.spaces, c);
        this.spaces = 0;
      } else {
        // Text after a quote that closed nothing (papaparse's InvalidQuotes): the cell goes on.
        this.addChars(2 + this.spaces, c);
        this.state = QUOTED;
      }
    }
    return n;
  }

  private addChars(chars: number, c: number): void {
    this.cellChars += chars;
    this.rowChars += chars;
    if (!this.hasContent && !isBlank(c)) this.hasContent = true;
    if (this.cellChars > this.limits.maxCellChars) throw createCellTooLongError(this.file, this.rowNumber(), this.col, this.limits.maxCellChars);
    this.checkRow();
  }

  private endCell(): void {
    this.state = FIELD_START;
    this.col++;
    this.cellChars = 0;
    this.rowChars++;
    this.checkRow();
  }

  private checkRow(): void {
    const limit = this.isHeaderPending ? this.limits.maxHeaderChars : this.limits.maxRowChars;
    if (this.rowChars > limit) throw createRowTooLongError(this.file, this.rowNumber(), this.col, limit, this.isHeaderPending);
  }

  private endRecord(): void {
    // The first non-blank record is the header row (the "sep=" line before it is not a row).
    if (this.hasContent && !(this.hasSeparatorLine && this.record === 1)) this.isHeaderPending = false;
    this.record++;
    this.state = FIELD_START;
    this.col = 0;
    this.cellChars = 0;
    this.rowChars = 0;
    this.hasContent = false;
  }

  private rowNumber(): number {
    return this.hasSeparatorLine ? this.record - 1 : this.record;
  }
}

/** What papaparse lets stand between a closing quote and the delimiter (String.prototype.trim's blanks, roughly). */
function isBlank(c: number): boolean {
  return c === 32 || c === 9 || c === 13 || c === 10 || c === 11 || c === 12 || c === 0xa0 || c === 0xfeff;
}
