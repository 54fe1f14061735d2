/**
 * Shipment confirmations for marketplaces (PRODUCT.md section 4): one row per live package with a
 * tracking number. Replaced packages are left out: confirming a tracking number the carrier no
 * longer follows would send the customer to a dead end.
 *
 * The CSV is a file to upload to a marketplace, not to open in Excel (the workbook's Confirmations
 * sheet is for reading): every value is written exactly as the API gave it. No formula guard, which
 * would turn marketplace order ID `-12345` into `'-12345`, an ID the marketplace does not know; and
 * no byte order mark, which some upload parsers read as part of the first header's name.
 */
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import Papa from 'papaparse';
import { toOutputError } from '../errors.js';
import { writeFileAtomically } from '../output-files/atomic-file.js';
import type { ReconciledOrder } from './types.js';

/** What to do when a reconcile output (the workbook or the confirmations CSV) cannot be written. */
export const RECONCILE_OUTPUT_REMEDY = 'Write it somewhere you can with --out (or --confirmations) <path>, or make that folder writable, and run reconcile again.';

export const CONFIRMATION_COLUMNS = ['marketplaceOrderId', 'customerOrderId', 'sourceOfSale', 'trackingNumber', 'carrier', 'shipDate'] as const;

export interface ConfirmationRow {
  marketplaceOrderId: string | null;
  customerOrderId: string;
  sourceOfSale: string | null;
  trackingNumber: string;
  carrier: string | null;
  /** ISO 8601 as the API gave it. */
  shipDate: string | null;
}

export function* confirmationRows(orders: Iterable<ReconciledOrder>): Generator<ConfirmationRow> {
  for (const o of orders) {
    for (const p of o.packages) {
      if (!p.isLive || !p.trackingNumber) continue;
      yield {
        marketplaceOrderId: o.marketplaceOrderId,
        customerOrderId: o.customerOrderId,
        sourceOfSale: o.sourceOfSale,
        trackingNumber: p.trackingNumber,
        carrier: p.carrier,
        shipDate: p.shipDate,
      };
    }
  }
}

/** Rows per papaparse call: large enough to amortise it, small enough to keep chunks near 1 MB. */
const BATCH_ROWS = 2000;
const NEWLINE = '\r\n';

export function* generateConfirmationsCsv(orders: Iterable<ReconciledOrder>): Generator<string> {
  yield Papa.unparse([[...CONFIRMATION_COLUMNS]], { newline: NEWLINE });
  let batch: (string | null)[][] = [];
  const flush = () => {
    const text = NEWLINE + Papa.unparse(batch, { newline: NEWLINE });
    batch = [];
    return text;
  };
  for (const row of confirmationRows(orders)) {
    batch.push([row.marketplaceOrderId, row.customerOrderId, row.sourceOfSale, row.trackingNumber, row.carrier, row.shipDate]);
    if (batch.length === BATCH_ROWS) yield flush();
  }
  if (batch.length > 0) yield flush();
  yield NEWLINE;
}

/** Returns the path written; a file-system failure (a read-only folder, a full disk) throws an OutputError naming it. */
export async function writeConfirmationsCsv(path: string, orders: Iterable<ReconciledOrder>): Promise<string> {
  try {
    await mkdir(dirname(path), { recursive: true });
    await writeFileAtomically(path, (out) => pipeline(Readable.from(generateConfirmationsCsv(orders)), out));
    return path;
  } catch (error) {
    throw toOutputError(error, path, 'the confirmations file', RECONCILE_OUTPUT_REMEDY) ?? error;
  }
}
