/**
 * The reconciliation workbook (PRODUCT.md section 4): Summary, Orders, Lines, Packages, Exceptions,
 * Confirmations, in that order, written with exceljs's streaming writer to a temporary file renamed
 * at the end, so a failed run never leaves half a workbook. Rows wait for the zip when it falls behind
 * (TableSheet.backlog), and the orders are walked once per sheet: a million orders read from disk
 * are written in the memory of a few.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import ExcelJS from 'exceljs';
import { toOutputError } from '../errors.js';
import { writeFileAtomically } from '../output-files/atomic-file.js';
import { confirmationRows, CONFIRMATION_COLUMNS, RECONCILE_OUTPUT_REMEDY } from './confirmations.js';
import { unitsToShip } from './lines.js';
import { EXCEPTION_TYPES, ROLL_UP_STATUSES, type ReconciledOrder } from './types.js';
import { SUMMARY_PRINT_SETUP, wrappedRowHeight } from '../output-files/xlsx-styles.js';
import { addTableSheet, dateCell, HEADER_STYLE, STATUS_STYLES, type TableColumn, type TableSheet, type TableValue } from './workbook-sheet.js';

export interface WorkbookSummary {
  generatedAt: Date;
  /** Lines of "what was reconciled and how": selection, window fetched, requests made. */
  facts: [string, string | number][];
  lateAfterDays: number;
  notes: string[];
}

/**
 * The orders, walked once per sheet: in memory, or read from disk afresh each time (a run that
 * outgrew memory), so that no sheet needs them all at once.
 */
export type ReconciledOrders = Iterable<ReconciledOrder> & { readonly length: number };

export const SHEET_NAMES = ['Summary', 'Orders', 'Lines', 'Packages', 'Exceptions', 'Confirmations'] as const;

const yesNo = (b: boolean): string => (b ? 'yes' : 'no');

const ORDER_ID_COLUMN: TableColumn = { header: 'customerOrderId', width: 22 };

/** The units of a line, or of an order's lines summed: the Orders and Lines sheets count them alike. */
const UNIT_COLUMNS: TableColumn[] = ['ordered', 'shipped', 'delivered', 'canceled'].map((header) => ({ header, width: 9, kind: 'int' }));

const ORDER_COLUMNS: TableColumn[] = [
  ORDER_ID_COLUMN,
  { header: 'marketplaceOrderId', width: 22 },
  { header: 'sourceOfSale', width: 18 },
  { header: 'orderDate', width: 17, kind: 'datetime' },
  { header: 'status', width: 17, kind: 'status' },
  ...UNIT_COLUMNS,
  { header: 'livePackages', width: 12, kind: 'int' },
  { header: 'trackingNumbers', width: 40, wrap: true },
  { header: 'exceptions', width: 40, wrap: true },
  { header: 'inLedger', width: 9, kind: 'status' },
];

const LINE_COLUMNS: TableColumn[] = [
  ORDER_ID_COLUMN,
  { header: 'customerLineItemId', width: 20 },
  { header: 'productId', width: 14 },
  { header: 'name', width: 30 },
  ...UNIT_COLUMNS,
  { header: 'status', width: 16 },
  { header: 'disposition', width: 26 },
  { header: 'bundleComponentsShipped', width: 30, wrap: true },
  { header: 'addedByNetwork', width: 15, kind: 'status' },
  { header: 'relatedLine', width: 14 },
];

const PACKAGE_COLUMNS: TableColumn[] = [
  ORDER_ID_COLUMN,
  { header: 'packageId', width: 22 },
  { header: 'live', width: 7, kind: 'status' },
  { header: 'trackingNumber', width: 22 },
  { header: 'carrier', width: 12 },
  { header: 'serviceLevel', width: 12 },
  { header: 'originFc', width: 14 },
  { header: 'shipDate', width: 17, kind: 'datetime' },
  { header: 'estimatedDeliveryDate', width: 17, kind: 'datetime' },
  { header: 'delivered', width: 17, kind: 'datetime' },
  { header: 'lastEvent', width: 18 },
  { header: 'dateReplaced', width: 17, kind: 'datetime' },
  { header: 'replacedByPackageId', width: 22 },
  { header: 'replacementChain', width: 40, wrap: true },
  { header: 'contents', width: 40, wrap: true },
  { header: 'trackingUrl', width: 40, wrap: true },
];

const EXCEPTION_COLUMNS: TableColumn[] = [
  ORDER_ID_COLUMN,
  { header: 'marketplaceOrderId', width: 22 },
  { header: 'type', width: 22, kind: 'status' },
  { header: 'customerLineItemId', width: 18 },
  { header: 'packageId', width: 22 },
  { header: 'detail', width: 60, wrap: true },
  { header: 'orderStatus', width: 17, kind: 'status' },
];

/** Returns the path written; a file-system failure (a read-only folder, a full disk) throws an OutputError naming it. */
export async function writeReconcileWorkbook(path: string, orders: ReconciledOrders, summary: WorkbookSummary): Promise<string> {
  try {
    mkdirSync(dirname(path) || '.', { recursive: true });
    await writeFileAtomically(path, (out) => writeWorkbookTo(out, orders, summary));
    return path;
  } catch (error) {
    throw toOutputError(error, path, 'the reconciliation workbook', RECONCILE_OUTPUT_REMEDY) ?? error;
  }
}

/** The workbook into `out`, at the pace `out` takes it. */
export async function writeWorkbookTo(out: NodeJS.WritableStream, orders: ReconciledOrders, summary: WorkbookSummary): Promise<void> {
  // Inline strings: shared strings would hold every distinct tracking number in memory.
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out as never, useStyles: true, useSharedStrings: false });
  workbook.creator = 'order-batch';
  workbook.created = summary.generatedAt;
  writeSummary(workbook, orders, summary);

  await fillSheet(addTableSheet(workbook, 'Orders', ORDER_COLUMNS), orders, (o, sheet) => sheet.add(orderRow(o)));
  await fillSheet(addTableSheet(workbook, 'Lines', LINE_COLUMNS), orders, (o, sheet) => {
    for (const l of o.lines) sheet.add(lineRow(o, l));
  });
  await fillSheet(addTableSheet(workbook, 'Packages', PACKAGE_COLUMNS), orders, (o, sheet) => {
    for (const p of o.packages) sheet.add(packageRow(o, p));
  });
  await fillSheet(addTableSheet(workbook, 'Exceptions', EXCEPTION_COLUMNS), orders, (o, sheet) => {
    for (const e of o.exceptions) sheet.add([o.customerOrderId, o.marketplaceOrderId, e.type, e.customerLineItemId ?? null, e.packageId ?? null, e.detail, o.status]);
  });
  const confirmationSheet = addTableSheet(
    workbook,
    'Confirmations',
    CONFIRMATION_COLUMNS.map((header) => ({ header, width: header === 'shipDate' ? 17 : 22, kind: header === 'shipDate' ? 'datetime' : 'text' })),
  );
  await fillSheet(confirmationSheet, confirmationRows(orders), (row, sheet) =>
    sheet.add([row.marketplaceOrderId, row.customerOrderId, row.sourceOfSale, row.trackingNumber, row.carrier, dateCell(row.shipDate)]),
  );
  await workbook.commit();
}

/** Each item's rows into `sheet`, waiting between items while the output lags behind; then the sheet is done. */
async function fillSheet<T>(sheet: TableSheet, items: Iterable<T>, addRows: (item: T, sheet: TableSheet) => void): Promise<void> {
  for (const item of items) {
    addRows(item, sheet);
    await sheet.backlog();
  }
  sheet.finish();
}

type Line = ReconciledOrder['lines'][number];
type Package = ReconciledOrder['packages'][number];

function orderRow(o: ReconciledOrder): TableValue[] {
  const sum = (pick: (l: Line) => number) => o.lines.reduce((n, l) => n + pick(l), 0);
  const types = [...new Set(o.exceptions.map((e) => e.type))];
  return [
    o.customerOrderId,
    o.marketplaceOrderId,
    o.sourceOfSale,
    dateCell(o.orderDate),
    o.status,
    sum((l) => (l.isAddedByNetwork ? 0 : l.ordered)),
    sum((l) => l.shipped),
    sum((l) => l.delivered),
    sum((l) => (l.isAddedByNetwork ? 0 : Math.min(l.ordered, l.canceledUnits))),
    o.packages.filter((p) => p.isLive).length,
    o.trackingNumbers.join(', '),
    types.join(', '),
    yesNo(o.isInLedger),
  ];
}

function lineRow(o: ReconciledOrder, l: Line): TableValue[] {
  const components = l.components.map((c) => `${c.productId} x${c.quantity}`).join(', ');
  return [
    o.customerOrderId,
    l.customerLineItemId,
    l.productId,
    l.name,
    l.ordered,
    l.shipped,
    l.delivered,
    l.ordered - unitsToShip(l),
    l.status ?? (l.isMissingFromApi ? '(not in the API)' : null),
    l.disposition,
    components || null,
    yesNo(l.isAddedByNetwork),
    l.relatedLineId,
  ];
}

function packageRow(o: ReconciledOrder, p: Package): TableValue[] {
  const contents = p.items
    .map((i) => `${i.customerLineItemId}: ${i.productId} x${i.quantity}${i.lineItemProductId && i.lineItemProductId !== i.productId ? ` (of ${i.lineItemProductId})` : ''}`)
    .join('; ');
  const chain = p.chain.join(' → ') + (p.chainEnd === 'loop' ? ' (loops)' : p.chainEnd === 'missing' ? ' → (not visible yet)' : '');
  return [
    o.customerOrderId,
    p.packageId,
    yesNo(p.isLive),
    p.trackingNumber,
    p.carrier,
    p.serviceLevel,
    p.originFc,
    dateCell(p.shipDate),
    dateCell(p.estimatedDeliveryDate),
    dateCell(p.deliveredAt),
    p.lastEvent,
    dateCell(p.dateReplaced),
    p.replacedByPackageId,
    p.chain.length > 1 || p.chainEnd !== 'live' ? chain : null,
    contents,
    p.trackingUrl,
  ];
}

/** The Summary's value column: wide enough for a date or a count beside its label, long text wrapped in it. */
const SUMMARY_VALUE_WIDTH = 60;
const SUMMARY_VALUE: Partial<ExcelJS.Style> = { alignment: { vertical: 'top', horizontal: 'left', wrapText: true } };
const SUMMARY_DATE: Partial<ExcelJS.Style> = { ...SUMMARY_VALUE, numFmt: 'yyyy-mm-dd hh:mm:ss' };
const SUMMARY_LABEL: Partial<ExcelJS.Style> = { alignment: { vertical: 'top' } };

function writeSummary(workbook: ExcelJS.stream.xlsx.WorkbookWriter, orders: ReconciledOrders, summary: WorkbookSummary): void {
  const sheet = workbook.addWorksheet('Summary', { pageSetup: SUMMARY_PRINT_SETUP });
  sheet.columns = [{ width: 24 }, { width: SUMMARY_VALUE_WIDTH }];
  const heading = (text: string) => {
    const row = sheet.addRow([text]);
    row.getCell(1).style = HEADER_STYLE;
    row.commit();
  };
  const line = (label: string, value: string | number | Date, status?: string) => {
    const row = sheet.addRow([label, value]);
    // Counts, dates and sentences alike start at the left of the column, under one another.
    row.getCell(2).style = value instanceof Date ? SUMMARY_DATE : SUMMARY_VALUE;
    if (typeof value === 'string') {
      const height = wrappedRowHeight(value, SUMMARY_VALUE_WIDTH);
      if (height) row.height = height;
    }
    row.getCell(1).style = (status === undefined ? undefined : STATUS_STYLES[status]) ?? SUMMARY_LABEL;
    row.commit();
  };
  heading('Reconciliation');
  line('Generated (UTC)', summary.generatedAt);
  for (const [label, value] of summary.facts) line(label, value);
  line('Late after (days)', summary.lateAfterDays);
  line('Times', 'All dates and times in this workbook are UTC.');
  sheet.addRow([]).commit();

  // One walk for both tables: the orders may be read from disk.
  const counts = new Map<string, number>(ROLL_UP_STATUSES.map((s) => [s, 0]));
  const byType = new Map<string, number>(EXCEPTION_TYPES.map((t) => [t, 0]));
  for (const o of orders) {
    counts.set(o.status, (counts.get(o.status) ?? 0) + 1);
    for (const e of o.exceptions) byType.set(e.type, (byType.get(e.type) ?? 0) + 1);
  }
  heading('Orders by status');
  line('orders', orders.length);
  for (const [status, n] of counts) line(status, n, n > 0 ? status : undefined);
  sheet.addRow([]).commit();

  heading('Exceptions by type');
  for (const [type, n] of byType) line(type, n);
  if (summary.notes.length > 0) {
    sheet.addRow([]).commit();
    heading('Notes');
    for (const note of summary.notes) line('', note);
  }
  sheet.commit();
}
