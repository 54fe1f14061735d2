/** In-memory builders and temp-dir helpers for the ledger tests (orders: test/support/order-payload.ts). */
import { rmSync } from 'node:fs';
import type { OrderIntent } from '../../src/ledger/index.js';
import { buildOrderPayload } from '../support/order-payload.js';
import { makeTempFolder } from '../support/temp-dir.js';

/** The intent to send an order whose one line costs `unitPrice`, read from rows 2 and 3 of orders.csv. */
export function buildIntent(customerOrderId: string, unitPrice = 10): OrderIntent {
  return { payload: buildOrderPayload(customerOrderId, { lines: [{ unitPrice }] }), sourceFile: 'orders.csv', sourceSha256: 'abc', sourceRows: [2, 3] };
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
  const dir = makeTempFolder('ledger');
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Every item of an async iterable, in order (Array.fromAsync needs Node 22). */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}
