/**
 * The template form of the order sheet, shared by the blank template and the result's Fix sheet:
 * the columns of src/sheet/columns.ts in order, their number formats and widths, and dropdowns fed
 * from a hidden "Lists" sheet (the country list is far past the 255 characters an inline list allows).
 */
import type ExcelJS from 'exceljs';
import { CARRIER_IDS, COUNTRY_CODES } from '../contract/enums.js';
import { COLUMNS, type ColumnDef, type Field } from '../sheet/columns.js';
import { formatOfKind, TEXT_FORMAT, DATETIME_FORMAT, MONEY_FORMAT, widthFor, type ValueFormat } from './xlsx-styles.js';

export const LISTS_SHEET = 'Lists';

/** The template's headers: the API field names, in column order. */
export const TEMPLATE_HEADERS: readonly Field[] = COLUMNS.map((c) => c.field);

export function templateFormatOf(column: ColumnDef): ValueFormat {
  return formatOfKind(column.kind, column.isTextFormatted === true);
}

const NUM_FMT: Partial<Record<ValueFormat, string>> = { text: TEXT_FORMAT, datetime: DATETIME_FORMAT, money: MONEY_FORMAT };

/**
 * Column definitions (width and the number format new entries get) for the template columns,
 * then any trailing columns given by width. Text columns are formatted '@' so Excel keeps leading
 * zeros and long digit strings exactly as typed.
 */
export function templateColumnDefs(trailingWidths: readonly number[] = []): Partial<ExcelJS.Column>[] {
  const defs: Partial<ExcelJS.Column>[] = COLUMNS.map((c) => {
    const numFmt = NUM_FMT[templateFormatOf(c)];
    const def: Partial<ExcelJS.Column> = { width: widthFor(c.field, c.kind, c.maxLength) };
    if (numFmt) def.style = { numFmt };
    return def;
  });
  for (const width of trailingWidths) defs.push({ width });
  return defs;
}

export interface ListRanges {
  sourceOfSale: string;
  carrierId: string;
  countryCode: string;
}

type SheetHost = Pick<ExcelJS.Workbook, 'addWorksheet'>;

/** The hidden Lists sheet: one column per dropdown, header in row 1. Returns the ranges to validate against. */
export function addListsSheet(workbook: SheetHost, sourcesOfSale: readonly string[]): { sheet: ExcelJS.Worksheet; ranges: ListRanges } {
  const sheet = workbook.addWorksheet(LISTS_SHEET, { state: 'hidden' });
  const lists: [string, readonly string[]][] = [
    ['sourceOfSale', sourcesOfSale],
    ['carrierId', CARRIER_IDS],
    ['countryCode', COUNTRY_CODES],
  ];
  const height = Math.max(...lists.map(([, values]) => values.length));
  sheet.addRow(lists.map(([name]) => name));
  for (let i = 0; i < height; i++) sheet.addRow(lists.map(([, values]) => values[i] ?? null));
  const range = (col: string, n: number): string => `${LISTS_SHEET}!$${col}$2:$${col}$${Math.max(2, n + 1)}`;
  return {
    sheet,
    ranges: { sourceOfSale: range('A', sourcesOfSale.length), carrierId: range('B', CARRIER_IDS.length), countryCode: range('C', COUNTRY_CODES.length) },
  };
}

/** Spreadsheet column letters for a 1-based index (1 -> A, 27 -> AA). */
export function columnLetter(index: number): string {
  let n = index;
  let letters = '';
  while (n > 0) {
    const rem = (n - 1) % 26;
    letters = String.fromCharCode(65 + rem) + letters;
    n = Math.floor((n - 1) / 26);
  }
  return letters;
}

const DROPDOWNS: { field: Field; list: keyof ListRanges; strict: boolean; prompt: string }[] = [
  // sourceOfSale is configuration, so a value outside the list only warns: the list in a file can be older than the config.
  { field: 'sourceOfSale', list: 'sourceOfSale', strict: false, prompt: 'Where the order was sold (case sensitive).' },
  { field: 'carrierId', list: 'carrierId', strict: true, prompt: 'Optional: carrier and service.' },
  { field: 'countryCode', list: 'countryCode', strict: true, prompt: 'Two-letter ISO country code, e.g. US.' },
];

/** exceljs keeps data validations on every worksheet (and the streaming writer writes them) but its typings omit them. */
interface WithValidations {
  dataValidations: { add(address: string, validation: ExcelJS.DataValidation): unknown };
}

/** Dropdowns on the template columns for rows firstRow..lastRow; `skip` leaves a list out (e.g. sourceOfSale unknown). */
export function addDropdowns(
  worksheet: ExcelJS.Worksheet,
  ranges: ListRanges,
  firstRow: number,
  lastRow: number,
  skip: readonly Field[] = [],
): void {
  const sheet = worksheet as unknown as WithValidations;
  for (const d of DROPDOWNS) {
    if (skip.includes(d.field)) continue;
    const letter = columnLetter(TEMPLATE_HEADERS.indexOf(d.field) + 1);
    sheet.dataValidations.add(`${letter}${firstRow}:${letter}${lastRow}`, {
      type: 'list',
      allowBlank: true,
      formulae: [ranges[d.list]],
      showInputMessage: true,
      prompt: d.prompt,
      showErrorMessage: true,
      errorStyle: d.strict ? 'stop' : 'warning',
      errorTitle: `Not a ${d.field}`,
      error: d.strict ? `Pick a value from the list.` : `Not in the configured list; check the spelling (case sensitive).`,
    });
  }
}
