/**
 * Styles of the result workbook and the template. Every style is a shared constant: exceljs caches a
 * style id per style OBJECT (a WeakMap in its styles writer), so reusing objects keeps a million styled
 * cells cheap; building a new object per cell would re-hash each one.
 */
import type ExcelJS from 'exceljs';
import type { Kind } from '../sheet/columns.js';
import { isDateOnly } from './cell-values.js';

type Style = Partial<ExcelJS.Style>;

const solid = (argb: string): ExcelJS.Fill => ({ type: 'pattern', pattern: 'solid', fgColor: { argb } });

/** Excel's own "Bad" / "Neutral" / "Good" cell style colours, which users already read as such. */
export const COLORS = {
  errorFill: 'FFFFC7CE',
  errorFont: 'FF9C0006',
  warningFill: 'FFFFEB9C',
  warningFont: 'FF9C5700',
  goodFill: 'FFC6EFCE',
  goodFont: 'FF006100',
  infoFill: 'FFDDEBF7',
  infoFont: 'FF1F4E78',
  headerFill: 'FFD9E1F2',
} as const;

export const DATE_FORMAT = 'yyyy-mm-dd';
export const DATETIME_FORMAT = 'yyyy-mm-dd hh:mm';
export const MONEY_FORMAT = '#,##0.00';
export const TEXT_FORMAT = '@';

/** A font without a name renders in a serif fallback in LibreOffice; name the workbook's default font. */
export const FONT: Partial<ExcelJS.Font> = { name: 'Calibri', size: 11, family: 2 };

export const HEADER_STYLE: Style = {
  font: { ...FONT, bold: true },
  fill: solid(COLORS.headerFill),
  border: { bottom: { style: 'thin', color: { argb: 'FF8EA9DB' } } },
  alignment: { vertical: 'top' },
};

export type Mark = 'none' | 'error' | 'warning';

const HEADER_MARKED: Record<Mark, Style> = {
  none: HEADER_STYLE,
  error: { ...HEADER_STYLE, fill: solid(COLORS.errorFill) },
  warning: { ...HEADER_STYLE, fill: solid(COLORS.warningFill) },
};

/** A header cell; an unknown or otherwise flagged column's header carries the highlight. */
export function headerStyle(mark: Mark): Style {
  return HEADER_MARKED[mark];
}
export type ValueFormat = 'general' | 'date' | 'datetime' | 'money' | 'text';

const FORMATS: Record<ValueFormat, string | undefined> = {
  general: undefined,
  date: DATE_FORMAT,
  datetime: DATETIME_FORMAT,
  money: MONEY_FORMAT,
  text: TEXT_FORMAT,
};
const FILLS: Record<Mark, ExcelJS.Fill | undefined> = {
  none: undefined,
  error: solid(COLORS.errorFill),
  warning: solid(COLORS.warningFill),
};

// Every data cell aligns to the top: the issues cell can be several lines high.
const TOP: Partial<ExcelJS.Alignment> = { vertical: 'top' };

// A value of a text column (a phone, a ZIP code, a line id) that happens to be a number is set to the
// left like the text above and below it, not to the right as Excel sets numbers.
const TOP_LEFT: Partial<ExcelJS.Alignment> = { vertical: 'top', horizontal: 'left' };

// Looked up per cell (millions of times): a nested table, no key strings.
const CELL_STYLES = {} as Record<'any' | 'textColumn', Record<ValueFormat, Record<Mark, Style>>>;
for (const column of ['any', 'textColumn'] as const) {
  CELL_STYLES[column] = {} as Record<ValueFormat, Record<Mark, Style>>;
  for (const format of Object.keys(FORMATS) as ValueFormat[]) {
    CELL_STYLES[column][format] = {} as Record<Mark, Style>;
    for (const mark of Object.keys(FILLS) as Mark[]) {
      const style: Style = { alignment: column === 'textColumn' ? TOP_LEFT : TOP };
      const numFmt = FORMATS[format];
      const fill = FILLS[mark];
      if (numFmt) style.numFmt = numFmt;
      if (fill) style.fill = fill;
      CELL_STYLES[column][format][mark] = style;
    }
  }
}

/** The shared style of a data cell with this number format and highlight; `isTextColumn`: left-aligned whatever the value. */
export function cellStyle(format: ValueFormat, mark: Mark, isTextColumn = false): Style {
  return CELL_STYLES[isTextColumn ? 'textColumn' : 'any'][format][mark];
}

/** Columns of text (IDs, phones, ZIP codes, names, codes) as opposed to dates, amounts and quantities. */
export function isTextKind(kind: Kind | null | undefined): boolean {
  return kind === 'text' || kind === 'enum';
}

export const ISSUES_STYLE: Style = { alignment: { vertical: 'top', wrapText: true } };

const STATUS_STYLES: Record<string, Style> = {
  valid: { fill: solid(COLORS.goodFill), font: { ...FONT, color: { argb: COLORS.goodFont } }, alignment: TOP },
  accepted: { fill: solid(COLORS.goodFill), font: { ...FONT, color: { argb: COLORS.goodFont } }, alignment: TOP },
  already_submitted: { fill: solid(COLORS.infoFill), font: { ...FONT, color: { argb: COLORS.infoFont } }, alignment: TOP },
  in_progress_elsewhere: { fill: solid(COLORS.infoFill), font: { ...FONT, color: { argb: COLORS.infoFont } }, alignment: TOP },
  invalid: { fill: solid(COLORS.errorFill), font: { ...FONT, color: { argb: COLORS.errorFont } }, alignment: TOP },
  rejected: { fill: solid(COLORS.errorFill), font: { ...FONT, color: { argb: COLORS.errorFont } }, alignment: TOP },
  failed: { fill: solid(COLORS.warningFill), font: { ...FONT, color: { argb: COLORS.warningFont } }, alignment: TOP },
};
const OTHER_STATUS: Style = { alignment: TOP };

/** Green for done, red for what needs the user, amber for what a re-run will retry, blue for already done. */
export function statusStyle(status: string): Style {
  return STATUS_STYLES[status] ?? OTHER_STATUS;
}

/** A date cell shows its time only when it has one. */
export function dateFormatOf(date: Date): ValueFormat {
  return isDateOnly(date) ? 'date' : 'datetime';
}

/** The number format a template column gets from its kind. */
export function formatOfKind(kind: Kind, isTextFormatted: boolean): ValueFormat {
  if (isTextFormatted) return 'text';
  if (kind === 'date') return 'datetime';
  if (kind === 'money') return 'money';
  return 'general';
}

/** Row height in points of a 11pt row. */
export const LINE_HEIGHT = 15;
/** Excel's tallest row, 409 points: 27 lines. */
const MAX_ROW_LINES = 27;

/**
 * Lines a wrapped text takes in a column `width` characters wide, wrapped at spaces as Excel and
 * LibreOffice wrap it. Neither grows a row for wrapped text when opening a file, so writers set the
 * height. A width unit is one digit of Calibri 11; a line of ordinary text holds about 1.1 characters
 * per unit (Excel's Calibri fits a few more, LibreOffice's Carlito more still), so a row is rather a
 * little high than its last lines cut off.
 */
export function wrappedLineCount(text: string, width: number): number {
  const perLine = Math.max(1, Math.floor(width * 1.1) - 1);
  let lines = 0;
  for (const paragraph of text.split('\n')) {
    let used = 0;
    lines++;
    for (const word of paragraph.split(' ')) {
      const needed = used === 0 ? word.length : used + 1 + word.length;
      if (needed <= perLine) {
        used = needed;
        continue;
      }
      // A word longer than a line is broken across lines.
      if (used > 0) lines++;
      lines += Math.max(0, Math.ceil(word.length / perLine) - 1);
      used = word.length % perLine || Math.min(word.length, perLine);
    }
  }
  return lines;
}

/** The height for a row holding this wrapped text: at least one line, at most `maxLines` (Excel's tallest row by default). */
export function wrappedRowHeight(text: string, width: number, maxLines = MAX_ROW_LINES): number | undefined {
  const lines = Math.min(wrappedLineCount(text, width), maxLines, MAX_ROW_LINES);
  return lines > 1 ? LINE_HEIGHT * lines : undefined;
}

/**
 * Print setup of a table sheet: landscape, every column on one page wide and as many pages down as the
 * rows need (fitToHeight 0: the rows are not squeezed onto one page), the header row repeated on every
 * page, notes listed at the end.
 */
export function printSetup(headerRow: number): Partial<ExcelJS.PageSetup> {
  return { orientation: 'landscape', fitToPage: true, fitToWidth: 1, fitToHeight: 0, printTitlesRow: `${headerRow}:${headerRow}`, cellComments: 'atEnd' } as Partial<ExcelJS.PageSetup>;
}

/** Print setup of a sheet of labels and values (a Summary): portrait, one page wide, as many pages down as needed. */
export const SUMMARY_PRINT_SETUP: Partial<ExcelJS.PageSetup> = { orientation: 'portrait', fitToPage: true, fitToWidth: 1, fitToHeight: 0 };

/** Column width in characters for a column of this kind (and header), within sane bounds. */
export function widthFor(header: string, kind: Kind | null, maxLength?: number): number {
  let typical: number;
  switch (kind) {
    case 'date':
      typical = 17;
      break;
    case 'money':
      typical = 12;
      break;
    case 'integer':
      typical = 9;
      break;
    case 'enum':
      typical = 18;
      break;
    case 'text':
      typical = maxLength ? Math.min(maxLength, 28) : 20;
      break;
    default:
      typical = 16;
  }
  return Math.min(40, Math.max(typical, header.length + 3));
}
