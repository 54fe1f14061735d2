/**
 * The cost of the marketplace confirmation files (`npm run bench -- confirmations`): 100,000 live
 * packages of 50,000 orders, a third each from Amazon, eBay and Shopify (their lines' identifiers in an
 * SQLite ledger), written as today's generic CSV alone and as a confirmations folder (confirmations.csv
 * and the three marketplace files, the ledger asked per batch of orders and told what was written).
 * The ratio puts the extra time on top of a reconcile of 100,000 packages measured by the `reconcile`
 * part's child (its reconciliation plus its workbook): what a nightly run with a folder costs against
 * the same run with the generic CSV alone. The peak RSS growth while the folder is written is printed:
 * the writer holds one batch of orders' rows at a time, whatever the number of packages.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { openSqliteLedger } from '../src/ledger/sqlite/sqlite-ledger.js';
import type { Ledger } from '../src/ledger/types.js';
import { silentLogger } from '../src/log.js';
import type { Marketplace } from '../src/mapping/marketplace-identifiers.js';
import { writeConfirmationsCsv } from '../src/reconcile/confirmations.js';
import { writeConfirmations } from '../src/reconcile/confirmations/index.js';
import type { ReconciledOrder, ReconciledPackage } from '../src/reconcile/types.js';

export interface ConfirmationsBench {
  packages: number;
  csvMs: number;
  folderMs: number;
  peakRssGrowthMb: number;
}

const MARKETPLACES: Marketplace[] = ['amazon', 'ebay', 'shopify'];

function pkg(orderId: string, id: string, items: [string, number][]): ReconciledPackage {
  return {
    packageId: id, customerOrderId: orderId, trackingNumber: `CX${id}`, trackingUrl: `https://tracking.example/${id}`, carrier: 'UPS', serviceLevel: 'Ground',
    originFc: 'FC1', shipDate: '2031-05-04T10:00:00.000Z', estimatedDeliveryDate: null, deliveredAt: null, lastEvent: 'tendered_to_carrier', lastUpdated: null,
    isLive: true, dateReplaced: null, replacedByPackageId: null, chain: [id], livePackageId: id, chainEnd: 'live',
    items: items.map(([line, quantity]) => ({ productId: `SKU-${line}`, quantity, customerLineItemId: line, lineItemProductId: `SKU-${line}`, sku: null })),
  };
}

function ordersOf(count: number): ReconciledOrder[] {
  return Array.from({ length: count }, (_, n) => {
    const id = `ORD-${n}`;
    return {
      customerOrderId: id, marketplaceOrderId: id, sourceOfSale: 'OtherMarketplace', orderDate: null, orderDisposition: 'api', isInLedger: true, status: 'shipped',
      trackingNumbers: [], lines: [], exceptions: [],
      packages: [pkg(id, `${n}A`, [['1', 1], ['2', 1]]), pkg(id, `${n}B`, [['1', 1]])],
    };
  });
}

async function ledgerWithLines(path: string, orders: readonly ReconciledOrder[]): Promise<Ledger> {
  const ledger = openSqliteLedger(path);
  for (let i = 0; i < orders.length; i += 1000) {
    await ledger.marketplace.recordLines(orders.slice(i, i + 1000).flatMap((o, k) => {
      const marketplace = MARKETPLACES[(i + k) % 3]!;
      return ['1', '2'].map((line) => ({ customerOrderId: o.customerOrderId, customerLineItemId: line, marketplace, profile: marketplace, identifiers: { orderId: o.customerOrderId, orderItemId: `OI${line}`, itemId: `IT${line}`, transactionId: `TX${line}`, sku: `SKU-${line}` } }));
    }));
  }
  return ledger;
}

export async function benchConfirmations(packages = 100_000, rounds = 3): Promise<ConfirmationsBench> {
  const orders = ordersOf(packages / 2);
  const dir = mkdtempSync(join(tmpdir(), 'bench-confirmations-'));
  let csvMs = Infinity;
  let folderMs = Infinity;
  let peak = 0;
  try {
    for (let round = 0; round < rounds; round++) {
      const t0 = performance.now();
      await writeConfirmationsCsv(join(dir, `generic-${round}.csv`), orders);
      csvMs = Math.min(csvMs, performance.now() - t0);
      // A fresh ledger each round: every package is new, as on the first run after an import.
      const ledger = await ledgerWithLines(join(dir, `ledger-${round}.db`), orders);
      globalThis.gc?.();
      const base = process.memoryUsage.rss();
      // memoryUsage.rss() alone: the full memoryUsage() reads the heap's spaces too, slow enough to count in the time.
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss() - base)), 50);
      const t1 = performance.now();
      await writeConfirmations(join(dir, `folder-${round}`), orders, { store: ledger.marketplace, logger: silentLogger });
      folderMs = Math.min(folderMs, performance.now() - t1);
      clearInterval(sampler);
      await ledger.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { packages, csvMs, folderMs, peakRssGrowthMb: peak / 1024 / 1024 };
}
