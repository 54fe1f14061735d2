/**
 * The blank order template (`order-batch template`): an empty Orders sheet to fill in and upload, an
 * Examples sheet, an Instructions sheet, and a hidden Lists sheet feeding the dropdowns; or the CSV
 * header. Everything comes from the column definitions, so the template matches the checker.
 *
 * The example orders live on their own sheet, never on the one that is read: an untouched template
 * holds no orders (validate says so). They stay unsendable anyway, their orderDate blank (with a note
 * saying so): an example copied to the Orders sheet and forgotten, the Examples sheet saved as CSV,
 * or `--sheet Examples` must never put a made-up order in the network. A CSV has one sheet: it is
 * the header alone.
 */
import { writeFile } from 'node:fs/promises';
import ExcelJS from 'exceljs';
import Papa from 'papaparse';
import { COLUMNS } from '../sheet/columns.js';
import { writeFileAtomically } from './atomic-file.js';
import { declareFilterRanges } from './filter-names.js';
import { exampleRows, GENERAL_RULES, instructionRows, type ExampleRow } from './template-content.js';
import { addDropdowns, addListsSheet, templateColumnDefs, templateFormatOf, TEMPLATE_HEADERS } from './template-form.js';
import { cellStyle, FONT, HEADER_STYLE, printSetup, wrappedRowHeight } from './xlsx-styles.js';

export interface TemplateOptions {
  format: 'xlsx' | 'csv';
  /** Configured sourceOfSale values: the dropdown's list and the examples' value. */
  sourcesOfSale: readonly string[];
}

/** Rows of the Orders sheet that get dropdowns: enough for any hand-filled sheet, few enough to read back quickly. */
export const TEMPLATE_INPUT_ROWS = 10_000;

export const ORDERS_SHEET = 'Orders';
export const EXAMPLES_SHEET = 'Examples';

/** Said on the Examples sheet (a note on its first header cell), so nobody fills it in by mistake. */
export const EXAMPLES_NOTE =
  `Examples only: this sheet is never read. Enter your orders on the ${ORDERS_SHEET} sheet; to start from an example, copy its rows there, then change customerOrderId and enter the orderDate.`;

/** On each example's blank orderDate: why it is blank. */
export const EXAMPLE_DATE_NOTE =
  'Left blank on purpose, so an example can never be sent as it is. On your own rows, enter the order date here (less than 30 days ago, e.g. 2026-11-20 14:30).';

export async function writeTemplate(path: string, options: TemplateOptions): Promise<void> {
  if (options.format === 'csv') {
    await writeFile(path, templateCsv(), 'utf8');
    return;
  }
  const examples = exampleRows(options.sourcesOfSale[0] ?? 'OtherMarketplace');
  await writeTemplateXlsx(path, examples, options.sourcesOfSale);
}

/** The header row; a BOM so Excel reads UTF-8, CRLF like the result CSV. */
export function templateCsv(): string {
  return `\ufeff${Papa.unparse([[...TEMPLATE_HEADERS]], { newline: '\r\n' })}\r\n`;
}

/** A template cell's value: amounts and quantities as numbers, dates as date cells (formatted by the column), the rest as text. */
function exampleValue(kind: (typeof COLUMNS)[number]['kind'], text: string): string | number | Date {
  if (kind === 'money' || kind === 'integer') return Number(text);
  // A date cell holds the wall-clock time it shows in its UTC fields (as the reader reads it back).
  if (kind === 'date') return new Date(`${text.length === 10 ? `${text}T00:00` : text.replace(' ', 'T')}:00Z`);
  return text;
}

async function writeTemplateXlsx(path: string, examples: readonly ExampleRow[], sourcesOfSale: readonly string[]): Promise<void> {
  await writeFileAtomically(path, (out) => buildTemplate(out, examples, sourcesOfSale));
}

function writeHeader(sheet: ExcelJS.Worksheet): ExcelJS.Row {
  const header = sheet.getRow(1);
  COLUMNS.forEach((c, i) => {
    const cell = header.getCell(i + 1);
    cell.value = c.field;
    cell.style = HEADER_STYLE;
    // Hovering a header says what goes in the column.
    cell.note = `${c.requiredValue ? 'Required' : 'Optional'}, ${c.level} level. ${c.description}`;
  });
  return header;
}

async function buildTemplate(out: NodeJS.WritableStream, examples: readonly ExampleRow[], sourcesOfSale: readonly string[]): Promise<void> {
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out as never, useStyles: true, useSharedStrings: false });
  workbook.creator = 'order-batch';

  const orders = workbook.addWorksheet(ORDERS_SHEET, { views: [{ state: 'frozen', ySplit: 1, activeCell: 'A2' }], pageSetup: printSetup(1) });
  orders.columns = templateColumnDefs();
  writeHeader(orders).commit();
  orders.autoFilter = { from: { row: 1, column: 1 }, to: { row: 1, column: COLUMNS.length } };

  const sample = workbook.addWorksheet(EXAMPLES_SHEET, { views: [{ state: 'frozen', ySplit: 1 }], pageSetup: printSetup(1) });
  sample.columns = templateColumnDefs();
  const sampleHeader = writeHeader(sample);
  sampleHeader.getCell(1).note = EXAMPLES_NOTE;
  sampleHeader.commit();
  const formats = COLUMNS.map(templateFormatOf);
  const orderDateColumn = COLUMNS.findIndex((c) => c.field === 'orderDate') + 1;
  examples.forEach((example, r) => {
    const row = sample.getRow(r + 2);
    COLUMNS.forEach((c, i) => {
      const text = example[c.field];
      if (text === undefined || text === '') return;
      const cell = row.getCell(i + 1);
      cell.value = exampleValue(c.kind, text);
      cell.style = cellStyle(formats[i]!, 'none');
    });
    // An order starts on the row that names its sourceOfSale: that is where its orderDate would go.
    if (example.sourceOfSale !== undefined) row.getCell(orderDateColumn).note = EXAMPLE_DATE_NOTE;
    row.commit();
  });

  const instructions = workbook.addWorksheet('Instructions', {
    pageSetup: { orientation: 'landscape', fitToPage: true, fitToWidth: 1, fitToHeight: 0 },
  });
  writeInstructions(instructions, sourcesOfSale);
  const lists = addListsSheet(workbook, sourcesOfSale);
  addDropdowns(orders, lists.ranges, 2, TEMPLATE_INPUT_ROWS + 1);
  orders.commit();
  sample.commit();
  instructions.commit();
  lists.sheet.commit();

  declareFilterRanges(workbook, [{ sheetIndex: 0, sheetName: ORDERS_SHEET, firstRow: 1, lastRow: 1, lastColumn: COLUMNS.length }]);
  workbook.views = [{ x: 0, y: 0, width: 20000, height: 12000, firstSheet: 0, activeTab: 0, visibility: 'visible' }];
  await workbook.commit();
}

const INSTRUCTION_COLUMNS = [
  { header: 'column', width: 30 },
  { header: 'required', width: 10 },
  { header: 'level', width: 8 },
  { header: 'type', width: 24 },
  { header: 'rules', width: 44 },
  { header: 'what goes in it', width: 64 },
  { header: 'example', width: 22 },
] as const;
const DESCRIPTION_WIDTH = 64;

function writeInstructions(sheet: ExcelJS.Worksheet, sourcesOfSale: readonly string[]): void {
  sheet.columns = INSTRUCTION_COLUMNS.map((c) => ({ width: c.width }));
  const title = sheet.addRow(['How to fill in the Orders sheet']);
  title.getCell(1).style = { font: { ...FONT, bold: true, size: 14 } };
  sheet.addRow([]);
  // Rule lines are not wrapped: each overflows across the empty cells to its right.
  GENERAL_RULES.forEach((rule, i) => sheet.addRow([`${i + 1}. ${rule}`]));
  sheet.addRow([]);
  const section = sheet.addRow(['Columns, in the order of the Orders sheet']);
  section.getCell(1).style = { font: { ...FONT, bold: true, size: 12 } };
  const head = sheet.addRow(INSTRUCTION_COLUMNS.map((c) => c.header));
  head.eachCell((cell) => (cell.style = HEADER_STYLE));
  const wrap: Partial<ExcelJS.Style> = { alignment: { wrapText: true, vertical: 'top' } };
  const top: Partial<ExcelJS.Style> = { alignment: { vertical: 'top' } };
  for (const r of instructionRows(sourcesOfSale)) {
    const row = sheet.addRow([r.column, r.required, r.level, r.type, r.rules, r.description, r.example]);
    row.eachCell((cell, col) => (cell.style = col === 5 || col === 6 ? wrap : top));
    row.getCell(1).style = { ...top, font: { ...FONT, bold: true } };
    const height = Math.max(wrappedRowHeight(r.description, DESCRIPTION_WIDTH, 10) ?? 0, wrappedRowHeight(r.rules, 44, 10) ?? 0);
    if (height > 0) row.height = height;
  }
}
