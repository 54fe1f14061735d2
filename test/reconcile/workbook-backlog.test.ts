/**
 * The workbook is written at the pace of its output: exceljs's streaming writer takes rows whatever
 * the zip's pace, so the rows wait when the zip falls behind, and a sheet of a million rows is never
 * held whole. Against an output that stops taking bytes, the walk over the orders stops too.
 */
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { reconcileOrder } from '../../src/reconcile/match.js';
import type { ReconciledOrder } from '../../src/reconcile/types.js';
import { writeWorkbookTo } from '../../src/reconcile/workbook.js';
import { expected, nowAt, pkg, readOf } from './builders.js';

const ORDERS = 12_000;

/** Text that does not compress much (a seeded sequence): the zip cannot swallow it into its buffers. */
function noise(seed: number, length: number): string {
  let x = seed + 1;
  let text = '';
  while (text.length < length) {
    x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
    text += x.toString(36);
  }
  return text.slice(0, length);
}

/** An order shipped in a package with a long tracking number: rows of about 1 KB of XML each. */
function orderOf(i: number): ReconciledOrder {
  const id = `BL-${i}`;
  const sent = expected(id, [{ id: 'L1', productId: 'PRD-1001', quantity: 1 }]);
  const record = pkg({ id: `P-${i}`, order: id, items: [{ line: 'L1', productId: 'PRD-1001', quantity: 1 }], tracking: `TRK-${noise(i, 600)}` });
  return reconcileOrder({ expected: sent, read: readOf(sent, 'Shipped'), packages: [record], now: nowAt(20), lateAfterDays: 3 });
}

/** The orders, walked once per sheet: how far each walk has got. */
function countedOrders(): { orders: Iterable<ReconciledOrder> & { length: number }; walks: number[] } {
  const walks: number[] = [];
  return {
    walks,
    orders: {
      length: ORDERS,
      *[Symbol.iterator]() {
        const walk = walks.push(0) - 1;
        for (let i = 0; i < ORDERS; i++) {
          walks[walk]!++;
          yield orderOf(i);
        }
      },
    },
  };
}

describe('writing the workbook', () => {
  it('stops walking the orders while its output takes nothing, and goes on once it does', async () => {
    const chunks: Buffer[] = [];
    let release: (() => void) | undefined;
    let isStalled = true;
    const out = new Writable({
      write(chunk: Buffer, _encoding, done) {
        chunks.push(chunk);
        if (isStalled) release = done;
        else done();
      },
    });
    const { orders, walks } = countedOrders();
    const writing = writeWorkbookTo(out, orders, { generatedAt: nowAt(20), facts: [], lateAfterDays: 3, notes: [] });
    // Turns enough for every row of a sheet, were they taken whatever the output's pace.
    for (let i = 0; i < 200; i++) await sleep(1);
    // The Summary counted every order; the Orders sheet waits for the zip, which waits for the output.
    expect(walks[0]).toBe(ORDERS);
    expect(walks[1]).toBeLessThan(ORDERS);
    isStalled = false;
    release?.();
    await writing;
    expect(walks).toEqual([ORDERS, ORDERS, ORDERS, ORDERS, ORDERS, ORDERS]);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(Buffer.concat(chunks) as unknown as ArrayBuffer);
    expect(book.getWorksheet('Packages')!.rowCount).toBe(ORDERS + 1);
  });
});
