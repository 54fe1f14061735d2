/**
 * `reconcile --confirmations <folder>`: confirmations.csv (every confirmable package, the generic file)
 * and, beside it, one file per marketplace the reconciled orders came from, in its own upload format.
 * Streams: orders are read in batches, each batch's kept identifiers and written confirmations asked of
 * the ledger at once, its rows written as one piece per file. Only what is new goes in (a package not
 * yet written to that file, or all of them with `isAll`). What was written is journaled beside the run
 * (written-journal.ts) and told to the ledger only once every file is where it is picked up: renamed
 * into place and, for a remote folder, uploaded (`place`). A crash or a failed upload in between
 * means the next run writes those packages again rather than never.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../log.js';
import type { Marketplace } from '../../mapping/marketplace-identifiers.js';
import { isMarketplace } from '../../mapping/marketplace-identifiers.js';
import { writtenKey, type MarketplaceStore } from '../../ledger/index.js';
import { CONFIRMATION_COLUMNS } from '../confirmations.js';
import type { ReconciledOrder, ReconciledPackage } from '../types.js';
import { FileSink } from './file-sink.js';
import { CONFIRMATION_FORMATS, formatLine, NO_UPLOAD_NOTE, type ConfirmationFormat } from './formats.js';
import { confirmablePackages, shippedItemsOf, type MarketplaceLine, type ShippedItem } from './shipped-items.js';
import { WrittenJournal } from './written-journal.js';

export const GENERIC_FILE = 'confirmations.csv';

/** Orders per ledger lookup. */
const BATCH_ORDERS = 500;

export interface ConfirmationFilesOptions {
  folder: string;
  orders: Iterable<ReconciledOrder>;
  /** The ledger's store; without one every package is written and nothing is remembered. */
  store?: MarketplaceStore;
  /** --confirmations-all: every confirmable package, written before or not. */
  isAll?: boolean;
  /**
   * Puts the written folder where it is picked up (a remote folder's upload), before the ledger is
   * told; when it throws, nothing is recorded and the error is passed on.
   */
  place?: () => Promise<void>;
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

/** What one batch of orders adds to one file. */
interface FileText {
  text: string;
  rows: number;
  packages: number;
}

/** What one batch of orders puts in each file, and the journal lines of the packages that records. */
interface BatchOutput {
  generic: FileText;
  perFormat: Map<ConfirmationFormat, FileText>;
  journal: string;
  noUpload: Map<Marketplace, number>;
}

interface OpenFile {
  sink: FileSink;
  rows: number;
  packages: number;
}

export async function writeConfirmationFiles(options: ConfirmationFilesOptions): Promise<ConfirmationFilesResult> {
  await mkdir(options.folder, { recursive: true });
  const generic: OpenFile = { sink: new FileSink(join(options.folder, GENERIC_FILE)), rows: 0, packages: 0 };
  const perFormat = new Map<ConfirmationFormat, OpenFile>();
  const noUpload = new Map<Marketplace, number>();
  const journal = options.store ? await WrittenJournal.open() : null;
  try {
    try {
      await generic.sink.write(`${CONFIRMATION_COLUMNS.join(',')}\r\n`);
      for await (const out of decideBatches(options)) {
        await append(generic, out.generic);
        for (const [format, text] of out.perFormat) {
          let file = perFormat.get(format);
          if (!file) {
            file = { sink: new FileSink(join(options.folder, format.fileName)), rows: 0, packages: 0 };
            perFormat.set(format, file);
            await file.sink.write(`${formatLine(format, format.header)}\r\n`);
          }
          await append(file, text);
        }
        await journal?.write(out.journal);
        for (const [m, n] of out.noUpload) noUpload.set(m, (noUpload.get(m) ?? 0) + n);
      }
      await generic.sink.finish();
      for (const file of perFormat.values()) await file.sink.finish();
      await journal?.finish();
    } catch (error) {
      await generic.sink.discard();
      for (const file of perFormat.values()) await file.sink.discard();
      throw error;
    }
    // Only once every file is in place (and, for a remote folder, uploaded) does the ledger learn what they hold.
    await options.place?.();
    if (options.store && journal) await journal.record(options.store);
  } finally {
    await journal?.remove();
  }
  const files: ConfirmationFile[] = [{ marketplace: 'generic', path: generic.sink.path, packages: generic.packages, rows: generic.rows }];
  for (const [format, file] of perFormat) files.push({ marketplace: format.marketplace, path: file.sink.path, packages: file.packages, rows: file.rows });
  const notes = [...noUpload].map(([m, n]) => `${n} package(s) of ${m} orders: ${NO_UPLOAD_NOTE[m] ?? 'no upload format'}`);
  for (const note of notes) options.logger.warn({ folder: options.folder }, note);
  return { files, notes };
}

async function append(file: OpenFile, text: FileText): Promise<void> {
  if (text.rows === 0) return;
  await file.sink.write(text.text);
  file.rows += text.rows;
  file.packages += text.packages;
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

const emptyText = (): FileText => ({ text: '', rows: 0, packages: 0 });

async function decideBatch(batch: readonly Confirmable[], options: ConfirmationFilesOptions): Promise<BatchOutput> {
  const { store } = options;
  // Per order, its lines by line ID: no key string built per lookup.
  const lines = new Map<string, Map<string, MarketplaceLine>>();
  if (store) {
    for (const l of await store.linesOf(batch.map((c) => c.order.customerOrderId))) {
      if (!isMarketplace(l.marketplace)) continue;
      let ofOrder = lines.get(l.customerOrderId);
      if (!ofOrder) lines.set(l.customerOrderId, (ofOrder = new Map()));
      ofOrder.set(l.customerLineItemId, l as MarketplaceLine);
    }
  }
  const written = store && !options.isAll ? await store.writtenOf(batch.flatMap((c) => c.packages.map((p) => p.packageId))) : NOTHING_WRITTEN;
  const out: BatchOutput = { generic: emptyText(), perFormat: new Map(), journal: '', noUpload: new Map() };
  const lineOf = (orderId: string, lineId: string) => lines.get(orderId)?.get(lineId) ?? null;
  const files: string[] = [];
  for (const { order, packages } of batch) {
    for (const pkg of packages) {
      const tracking = pkg.trackingNumber!;
      files.length = 0;
      if (written.size === 0 || !written.has(writtenKey(GENERIC_FILE, pkg.packageId, tracking))) {
        out.generic.text += `${formatLine(GENERIC_FORMAT, [order.marketplaceOrderId ?? '', order.customerOrderId, order.sourceOfSale ?? '', tracking, pkg.carrier ?? '', pkg.shipDate ?? ''])}\r\n`;
        out.generic.rows++;
        out.generic.packages++;
        files.push(GENERIC_FILE);
      }
      const format = lines.size === 0 ? undefined : formatOf(order, pkg, lineOf, out);
      if (format && (written.size === 0 || !written.has(writtenKey(format.format.fileName, pkg.packageId, tracking)))) {
        let text = out.perFormat.get(format.format);
        if (!text) out.perFormat.set(format.format, (text = emptyText()));
        for (const item of format.items) text.text += `${formatLine(format.format, format.format.rowOf(item))}\r\n`;
        text.rows += format.items.length;
        text.packages++;
        files.push(format.format.fileName);
      }
      if (files.length > 0) out.journal += WrittenJournal.lineOf(pkg.packageId, tracking, files);
    }
  }
  return out;
}

/** The upload format a package goes into with its items, or undefined (no marketplace, or one without an upload: counted). */
function formatOf(order: ReconciledOrder, pkg: ReconciledPackage, lineOf: (orderId: string, lineId: string) => MarketplaceLine | null, out: BatchOutput): { format: ConfirmationFormat; items: ShippedItem[] } | undefined {
  const items = shippedItemsOf(order, pkg, lineOf);
  const marketplace = marketplaceOf(items);
  if (!marketplace) return undefined;
  const format = CONFIRMATION_FORMATS[marketplace];
  if (!format) {
    out.noUpload.set(marketplace, (out.noUpload.get(marketplace) ?? 0) + 1);
    return undefined;
  }
  return { format, items };
}

/** The marketplace a package's order came from: that of its lines the ledger kept identifiers for. */
function marketplaceOf(items: readonly ShippedItem[]): Marketplace | null {
  for (const item of items) if (item.line) return item.line.marketplace;
  return null;
}

const NOTHING_WRITTEN: ReadonlySet<string> = new Set();

/** confirmations.csv's lines are written as a format's: quoted only where a value needs it. */
const GENERIC_FORMAT = { delimiter: ',' } as const;
