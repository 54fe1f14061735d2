/**
 * The sheet limits (limits.ts) for CSV text, checked on each decoded chunk before papaparse sees it: papaparse
 * holds an unfinished record whole and parses it again with every chunk, so a 20 MB quoted cell used to cost
 * gigabytes and a minute before anything could be said about it. Here it is refused once its first mebibyte
 * has streamed past.
 *
 * It follows papaparse's reading of quotes (a quote opens a quoted cell only at the start of a cell; inside
 * one, a doubled quote is a quote, and a quote closes the cell only when blanks, then the delimiter or the
 * line break, follow it), so it sees the same cells, rows and row numbers. A line break is an LF here: the text
 * comes with each lone CR already turned into one (csv-records.ts). Lines without quotes, nearly all of them,
 * are measured between line breaks found with indexOf instead of character by character.
 */
import { createCellTooLongError, createRowTooLongError, createTooManyColumnsError, type SheetLimits } from './limits.js';

const QUOTE = 34;
const LF = 10;

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
  private readonly fastLimit: number;

  /**
   * @param hasSeparatorLine the file starts with Excel's "sep=;" line, which is not a row (rows are numbered
   * from the line after it).
   */
  constructor(
    private readonly file: string,
    private readonly limits: SheetLimits,
    delimiter: string,
    private readonly hasSeparatorLine: boolean,
  ) {
    this.delimiter = delimiter.charCodeAt(0);
    this.fastLimit = Math.min(limits.maxCellChars, limits.maxRowChars);
  }

  /** Characters of the record the text read so far ends in (0 when it ends with a line break). */
  get partialRecordChars(): number {
    return this.rowChars;
  }

  /** Checks the next decoded text; throws the InputError of the first limit crossed. */
  scan(text: string): void {
    const n = text.length;
    // The end of the record carried over from the last chunk, character by character.
    let at = this.state === FIELD_START && this.col === 0 && this.rowChars === 0 ? 0 : this.scanUntilRecordEnd(text, 0);
    let nextQuote = text.indexOf('"', at);
    while (at < n) {
      const end = text.indexOf('\n', at);
      if (end === -1 || this.isHeaderPending) {
        at = this.scanUntilRecordEnd(text, at);
        continue;
      }
      if (nextQuote !== -1 && nextQuote < at) nextQuote = text.indexOf('"', at);
      // A line without a quote is one record, and one no longer than the smaller limit crosses none.
      if ((nextQuote === -1 || nextQuote > end) && end - at <= this.fastLimit) {
        this.record++;
        at = end + 1;
      } else {
        at = this.scanUntilRecordEnd(text, at);
      }
    }
  }

  /**
   * Scans from `from` to just past the end of the current record, or to the end of the text. The state is held
   * in locals and written back when the scan stops: this loop sees every character of a quoted line.
   */
  private scanUntilRecordEnd(text: string, from: number): number {
    const n = text.length;
    const delimiter = this.delimiter;
    const maxCell = this.limits.maxCellChars;
    let state = this.state;
    let spaces = this.spaces;
    let cell = this.cellChars;
    let row = this.rowChars;
    let col = this.col;
    let hasContent = this.hasContent;
    const rowLimit = this.isHeaderPending ? this.limits.maxHeaderChars : this.limits.maxRowChars;
    // Only the header row is held to the column limit; a data row's cells past the header's are kept as read.
    const colLimit = this.isHeaderPending ? this.limits.maxColumns : Number.POSITIVE_INFINITY;
    let i = from;
    let isRecordEnd = false;
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      let added = 0;
      if (state === FIELD_START) {
        if (c === QUOTE) {
          state = QUOTED;
          continue;
        }
        state = UNQUOTED;
      }
      // Whether the character ends the cell (a delimiter or a line break outside quotes).
      let isEnd = false;
      if (state === UNQUOTED) {
        if (c === delimiter || c === LF) isEnd = true;
        else added = 1;
      } else if (state === QUOTED) {
        if (c === QUOTE) {
          state = AFTER_QUOTE;
          spaces = 0;
        } else added = 1;
      } else if (c === QUOTE && spaces === 0) {
        // AFTER_QUOTE from here on: a doubled quote is a quote.
        state = QUOTED;
        added = 1;
      } else if (c === delimiter || c === LF) {
        isEnd = true;
      } else if (isBlank(c)) {
        spaces++;
      } else if (c === QUOTE) {
        // The quote before the blanks closed nothing: it and they are text; this one may close the cell.
        added = 1 + spaces;
        spaces = 0;
      } else {
        // Text after a quote that closed nothing (papaparse's InvalidQuotes): the cell goes on.
        added = 2 + spaces;
        state = QUOTED;
      }
      if (isEnd) {
        if (c === LF) {
          if (col >= colLimit && hasContent) throw createTooManyColumnsError(this.file, this.rowNumber(), colLimit);
          isRecordEnd = true;
          break;
        }
        state = FIELD_START;
        col++;
        cell = 0;
        row++;
        if (col >= colLimit && hasContent) throw createTooManyColumnsError(this.file, this.rowNumber(), colLimit);
      }
      if (added > 0) {
        cell += added;
        row += added;
        if (!hasContent && !isBlank(c)) hasContent = true;
        if (cell > maxCell) throw createCellTooLongError(this.file, this.rowNumber(), col, maxCell);
      }
      if (row > rowLimit) throw createRowTooLongError(this.file, this.rowNumber(), col, rowLimit, this.isHeaderPending);
    }
    this.state = state;
    this.spaces = spaces;
    this.cellChars = cell;
    this.rowChars = row;
    this.col = col;
    this.hasContent = hasContent;
    if (!isRecordEnd) return n;
    this.endRecord();
    return i + 1;
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
