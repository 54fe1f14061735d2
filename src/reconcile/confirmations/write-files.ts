/**
 * `reconcile --confirmations <folder>`: confirmations.csv (every confirmable package, the generic file)
 * and, beside it, one file per marketplace the reconciled orders came from, in its own upload format.
 * Streams: orders are read in batches, each batch's kept identifiers and written confirmations asked of
 * the ledger at once, rows written as they come. Only what is new goes in (a package not yet written to
 * that file, or all of them with `isAll`); what was written is kept in a file beside them and recorded
 * once every file is in place, so a crash in between writes them again next time rather than losing them.
 */
import { createReadStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import type { Logger } from '../../log.js';
import type { Marketplace } from '../../mapping/marketplace-identifiers.js';
import { isMarketplace } from '../../mapping/marketplace-identifiers.js';
import { writtenKey, type MarketplaceStore, type WrittenConfirmation } from '../../ledger/index.js';
import { CONFIRMATION_COLUMNS } from '../confirmations.js';
import type { ReconciledOrder, ReconciledPackage } from '../types.js';
import { FileSink } from './file-sink.js';
import { CONFIRMATION_FORMATS, formatLine, NO_UPLOAD_NOTE, type ConfirmationFormat } from './formats.js';
import { confirmablePackages, shippedItemsOf, type MarketplaceLine, type ShippedItem } from './shipped-items.js';

export const GENERIC_FILE = 'confirmations.csv';

/** Orders per ledger lookup. */
const BATCH_ORDERS = 500;
/** Written confirmations per ledger commit. */
const RECORD_BATCH = 5000;

export interface ConfirmationFilesOptions {
  folder: string;
  orders: Iterable<ReconciledOrder>;
  /** The ledger's store; without one every package is written and nothing is remembered. */
  store?: MarketplaceStore;
  /** --confirmations-all: every confirmable package, written before or not. */
  isAll?: boolean;
  logger: Logger;
}

export interface ConfirmationFile {
  /** `generic` for confirmations.csv. */
  marketplace: Marketplace | 'generic';
  path: string;
  packages: number;
  rows: number;
}

export interface ConfirmationFilesResult {
  files: ConfirmationFile[];
  /** What a seller must know (a marketplace without an upload). */
  notes: string[];
}

/** What one batch of orders puts in each file, and the confirmations that records. */
interface BatchOutput {
  generic: string[][];
  perFormat: Map<ConfirmationFormat, string[][]>;
  written: WrittenConfirmation[];
  noUpload: Map<Marketplace, number>;
}

export async function writeConfirmationFiles(options: ConfirmationFilesOptions): Promise<ConfirmationFilesResult> {
  await mkdir(options.folder, { recursive: true });
  const generic = new FileSink(join(options.folder, GENERIC_FILE));
  const sinks = new Map<ConfirmationFormat, FileSink>();
  const packages = new Map<FileSink, number>([[generic, 0]]);
  const noUpload = new Map<Marketplace, number>();
  // What the files hold, kept on disk until they are in place (one line per package and file), then told to the ledger.
  const pending = options.store ? new FileSink(join(options.folder, `.confirmations-written.${process.pid}.jsonl`)) : null;
  try {
    await generic.writeLine(CONFIRMATION_COLUMNS.join(','));
    for await (const out of decideBatches(options)) {
      for (const cells of out.generic) {
        await generic.writeLine(formatCsv(cells));
        generic.rows++;
      }
      for (const [format, rows] of out.perFormat) {
        let sink = sinks.get(format);
        if (!sink) {
          sink = new FileSink(join(options.folder, format.fileName));
          sinks.set(format, sink);
          packages.set(sink, 0);
          await sink.writeLine(formatLine(format, format.header));
        }
        for (const cells of rows) {
          await sink.writeLine(formatLine(format, cells));
          sink.rows++;
        }
      }
      for (const w of out.written) {
        const sink = w.file === GENERIC_FILE ? generic : sinkOf(sinks, w.file);
        if (sink) packages.set(sink, (packages.get(sink) ?? 0) + 1);
        await pending?.writeLine(JSON.stringify([w.file, w.packageId, w.trackingNumber]));
      }
      for (const [m, n] of out.noUpload) noUpload.set(m, (noUpload.get(m) ?? 0) + n);
    }
    await generic.finish();
    for (const sink of sinks.values()) await sink.finish();
    await pending?.finish();
  } catch (error) {
    await generic.discard();
    for (const sink of sinks.values()) await sink.discard();
    await pending?.discard();
    throw error;
  }
  // Every file is in place: now (and only now) the ledger remembers what they hold.
  if (options.store && pending) await recordPending(options.store, pending.path);
  const files: ConfirmationFile[] = [{ marketplace: 'generic', path: generic.path, packages: packages.get(generic) ?? 0, rows: generic.rows }];
  for (const [format, sink] of sinks) files.push({ marketplace: format.marketplace, path: sink.path, packages: packages.get(sink) ?? 0, rows: sink.rows });
  const notes = [...noUpload].map(([m, n]) => `${n} package(s) of ${m} orders: ${NO_UPLOAD_NOTE[m] ?? 'no upload format'}`);
  for (const note of notes) options.logger.warn({ folder: options.folder }, note);
  return { files, notes };
}

function sinkOf(sinks: ReadonlyMap<ConfirmationFormat, FileSink>, fileName: string): FileSink | undefined {
  for (const [format, sink] of sinks) if (format.fileName === fileName) return sink;
  return undefined;
}

/** Tells the ledger what the kept lines say was written, in batches, then removes them. */
async function recordPending(store: MarketplaceStore, path: string): Promise<void> {
  try {
    let batch: WrittenConfirmation[] = [];
    for await (const line of createInterface({ input: createReadStream(path), crlfDelay: Infinity })) {
      if (line === '') continue;
      const [file, packageId, trackingNumber] = JSON.parse(line) as [string, string, string];
      batch.push({ file, packageId, trackingNumber });
      if (batch.length === RECORD_BATCH) {
        await store.recordWritten(batch);
        batch = [];
      }
    }
    if (batch.length > 0) await store.recordWritten(batch);
  } finally {
    await rm(path, { force: true });
  }
}

/** The orders in batches, each decided against the ledger as it stands. */
async function* decideBatches(options: ConfirmationFilesOptions): AsyncGenerator<BatchOutput> {
  let batch: Confirmable[] = [];
  for (const order of options.orders) {
    const packages = confirmablePackages(order);
    if (packages.length === 0) continue;
    batch.push({ order, packages });
    if (batch.length === BATCH_ORDERS) {
      yield await decideBatch(batch, options);
      batch = [];
    }
  }
  if (batch.length > 0) yield await decideBatch(batch, options);
}

/** An order with its confirmable packages, found once. */
interface Confirmable {
  order: ReconciledOrder;
  packages: ReconciledPackage[];
}

async function decideBatch(batch: readonly Confirmable[], options: ConfirmationFilesOptions): Promise<BatchOutput> {
  const { store } = options;
  const lines = new Map<string, MarketplaceLine>();
  if (store) {
    for (const l of await store.linesOf(batch.map((c) => c.order.customerOrderId))) {
      if (isMarketplace(l.marketplace)) lines.set(lineKey(l.customerOrderId, l.customerLineItemId), l as MarketplaceLine);
    }
  }
  const written = store && !options.isAll ? await store.writtenOf(batch.flatMap((c) => c.packages.map((p) => p.packageId))) : NOTHING_WRITTEN;
  const out: BatchOutput = { generic: [], perFormat: new Map(), written: [], noUpload: new Map() };
  const lineOf = lines.size === 0 ? () => null : (orderId: string, lineId: string) => lines.get(lineKey(orderId, lineId)) ?? null;
  for (const { order, packages } of batch) {
    for (const pkg of packages) {
      const tracking = pkg.trackingNumber!;
      if (!written.has(writtenKey(GENERIC_FILE, pkg.packageId, tracking))) {
        out.generic.push([order.marketplaceOrderId ?? '', order.customerOrderId, order.sourceOfSale ?? '', tracking, pkg.carrier ?? '', pkg.shipDate ?? '']);
        out.written.push({ file: GENERIC_FILE, packageId: pkg.packageId, trackingNumber: tracking });
      }
      const items = shippedItemsOf(order, pkg, lineOf);
      const marketplace = marketplaceOf(items);
      if (!marketplace) continue;
      const format = CONFIRMATION_FORMATS[marketplace];
      if (!format) {
        out.noUpload.set(marketplace, (out.noUpload.get(marketplace) ?? 0) + 1);
        continue;
      }
      if (written.has(writtenKey(format.fileName, pkg.packageId, tracking))) continue;
      const rows = out.perFormat.get(format) ?? [];
      for (const item of items) rows.push(format.rowOf(item));
      out.perFormat.set(format, rows);
      out.written.push({ file: format.fileName, packageId: pkg.packageId, trackingNumber: tracking });
    }
  }
  return out;
}

/** The marketplace a package's order came from: that of its lines the ledger kept identifiers for. */
function marketplaceOf(items: readonly ShippedItem[]): Marketplace | null {
  for (const item of items) if (item.line) return item.line.marketplace;
  return null;
}

const NOTHING_WRITTEN: ReadonlySet<string> = new Set();

const lineKey = (orderId: string, lineId: string) => `${orderId}\u0000${lineId}`;

function formatCsv(cells: readonly string[]): string {
  return cells.map((c) => (/[",\r\n]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c)).join(',');
}
