/** In-memory builders and temp-dir helpers for the ledger tests. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CreateOrderPayload } from '../../src/contract/schemas.js';
import type { OrderIntent } from '../../src/ledger/index.js';

export function buildPayload(customerOrderId: string, unitPrice = 10): CreateOrderPayload {
  return {
    customerDetails: {
      shippingAddress: {
        fullName: 'Ada Lovelace',
        addressLines: ['1 Main St'],
        city: 'Springfield',
        provinceOrState: 'IL',
        postalOrZipCode: '62701',
        countryCode: 'US',
        phone: '555-123-4567',
      },
    },
    orderDetails: {
      customerOrderId,
      marketplaceOrderId: `MP-${customerOrderId}`,
      orderDate: '2024-01-02T00:00:00.000Z',
      sourceOfSale: 'OtherMarketplace',
      lineItems: [{ productId: 'P-1', customerLineItemId: 'L1', name: 'Widget', quantity: 2, unitPrice }],
      subTotal: unitPrice * 2,
      salesTax: 1,
      grandTotal: unitPrice * 2 + 1,
    },
  };
}

export function buildIntent(customerOrderId: string, unitPrice = 10): OrderIntent {
  return { payload: buildPayload(customerOrderId, unitPrice), sourceFile: 'orders.csv', sourceSha256: 'abc', sourceRows: [2, 3] };
}

/** A fixed, injected clock that tests move by hand; any date works. */
export function buildClock(startIso = '2031-05-06T07:08:09.000Z') {
  let now = new Date(startIso);
  return {
    now: () => new Date(now),
    advance(ms: number) {
      now = new Date(now.getTime() + ms);
    },
  };
}

/** A fresh temp directory and a cleanup for afterEach. */
export function makeTempDir(): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'order-batch-ledger-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Every item of an async iterable, in order (Array.fromAsync needs Node 22). */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}
