/**
 * The verdicts of a sheet's orders (src/orders/order-verdicts.ts): each order's issues and scattered rows come
 * back as they were finished, whether its record is still in memory among tens of thousands or was written to
 * the temporary file, asked for in order or at random.
 */
import { describe, expect, it } from 'vitest';
import type { Issue } from '../../src/issues/index.js';
import { OrderVerdicts } from '../../src/orders/order-verdicts.js';

function issueOf(order: number): Issue[] {
  return order % 3 === 0 ? [] : [{ row: order + 2, column: 'email', code: 'invalid_email', severity: 'error', message: `order ${order}${'.'.repeat(order % 17)}` }];
}

function finishAll(verdicts: OrderVerdicts, orders: number): void {
  for (let order = 0; order < orders; order++) {
    verdicts.begin(order, order);
    const rows = order % 5 === 0 ? [order, order + 20_000] : null;
    verdicts.finish(order, order % 3 === 0 ? 'valid' : 'invalid', issueOf(order), rows === null ? 1 : 2, rows);
  }
}

describe('the order verdicts', () => {
  it.each([
    ['kept in memory', undefined],
    ['partly written to the temporary file', 64 * 1024],
  ])('give back each of 10,000 orders its own issues and rows, %s', (_, memoryBytes) => {
    const verdicts = new OrderVerdicts(memoryBytes === undefined ? {} : { memoryBytes });
    finishAll(verdicts, 10_000);
    if (memoryBytes !== undefined) expect(verdicts.spilledBytes).toBeGreaterThan(0);
    const order = (k: number) => (k * 7_919) % 10_000;
    for (let k = 0; k < 10_000; k++) {
      expect(verdicts.issuesOf(k)).toEqual(issueOf(k));
      expect(verdicts.scatteredRowsOf(order(k))).toEqual(order(k) % 5 === 0 ? [order(k), order(k) + 20_000] : null);
    }
    verdicts.close();
  });
});
