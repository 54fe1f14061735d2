/**
 * What the ledger costs per order, on a temp file, as an import uses it: intents and first-send
 * marks in one commit per group of orders (prepareSends), accepted answers in one commit per group
 * (markAcceptedMany); groups of 64, the size an import commits. Beside it, the one-commit-per-
 * transition way (recordIntent, markSending, markAccepted for each order) that retries and lookups
 * still use. better-sqlite3 is synchronous: whatever the ledger takes is main-thread time the HTTP
 * work cannot use (the budget for ~800 orders/s is 1.25 ms per order in total).
 *
 * Run: `node dist-bench/bench/ledger.js [orders]` prints the figures.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CreateOrderPayload } from '../src/contract/schemas.js';
import { openLedger } from '../src/ledger/index.js';

export interface LedgerBenchResult {
  /** As an import commits: grouped. */
  perOrderMs: number;
  ordersPerSecond: number;
  /** Three commits per order. */
  perOrderMsOneByOne: number;
}

/** Orders per commit, for intents and for accepted answers alike. */
const GROUP = 64;

export async function benchLedger(orders: number): Promise<LedgerBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'order-batch-bench-'));
  const ledger = await openLedger(join(dir, 'ledger.db'));
  try {
    const run = await ledger.startRun({ command: 'bench', files: [] });
    const intentsFrom = (first: number) =>
      Array.from({ length: orders }, (_, i) => ({ payload: buildBenchPayload(first + i), sourceFile: 'bench.csv', sourceRows: [i + 2] }));

    const grouped = intentsFrom(0);
    const start = performance.now();
    for (let from = 0; from < orders; from += GROUP) {
      const chunk = grouped.slice(from, from + GROUP);
      await run.prepareSends(chunk);
      for (let at = 0; at < chunk.length; at += GROUP) {
        await run.markAcceptedMany(chunk.slice(at, at + GROUP).map((intent, k) => ({ customerOrderId: intent.payload.orderDetails.customerOrderId, info: { httpStatus: 201, requestId: `req-${from + at + k}` } })));
      }
    }
    const elapsedMs = performance.now() - start;

    const oneByOne = intentsFrom(orders);
    const startOneByOne = performance.now();
    for (const [i, intent] of oneByOne.entries()) {
      const id = intent.payload.orderDetails.customerOrderId;
      await run.recordIntent(intent);
      await run.markSending(id);
      await run.markAccepted(id, { httpStatus: 201, requestId: `req-${i}` });
    }
    const oneByOneMs = performance.now() - startOneByOne;
    return { perOrderMs: elapsedMs / orders, ordersPerSecond: (orders * 1000) / elapsedMs, perOrderMsOneByOne: oneByOneMs / orders };
  } finally {
    await ledger.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A realistic order: two lines, a full address (about 700 bytes of JSON). */
export function buildBenchPayload(i: number): CreateOrderPayload {
  const id = `BENCH-${String(i).padStart(7, '0')}`;
  return {
    customerDetails: {
      shippingAddress: {
        fullName: 'Grace Hopper',
        email: 'grace@example.com',
        addressLines: ['1200 Harbor Boulevard', 'Suite 400'],
        city: 'Arlington',
        provinceOrState: 'VA',
        postalOrZipCode: '22202-4101',
        countryCode: 'US',
        phone: '+1 703 555 0100',
      },
    },
    orderDetails: {
      customerOrderId: id,
      marketplaceOrderId: `MP-${i}`,
      orderDate: '2024-03-01T12:00:00.000Z',
      sourceOfSale: 'OtherMarketplace',
      lineItems: [
        { productId: 'SKU-100', customerLineItemId: `${id}-1`, name: 'Widget, large', quantity: 2, unitPrice: 19.99 },
        { productId: 'SKU-200', customerLineItemId: `${id}-2`, name: 'Gadget', quantity: 1, unitPrice: 5.5, discount: 0.5 },
      ],
      subTotal: 45.48,
      discountTotal: 0.5,
      salesTax: 3.64,
      grandTotal: 49.12,
    },
  };
}

async function main(): Promise<void> {
  const orders = Number(process.argv[2] ?? 10_000);
  const { perOrderMs, ordersPerSecond, perOrderMsOneByOne } = await benchLedger(orders);
  console.log(`ledger, ${orders} orders: ${perOrderMs.toFixed(3)} ms/order grouped (${Math.round(ordersPerSecond)} orders/s); ${perOrderMsOneByOne.toFixed(3)} ms/order one commit per transition`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main();
}
