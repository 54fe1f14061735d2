import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LazyOrders, writeJsonReport } from '../../src/run-report/json.js';

async function printed(report: object, highWaterMark = 16): Promise<string> {
  const out = new PassThrough({ highWaterMark });
  const chunks: Buffer[] = [];
  out.on('data', (chunk: Buffer) => chunks.push(chunk));
  await writeJsonReport(report, out);
  out.end();
  return Buffer.concat(chunks).toString('utf8');
}

describe('printing a --json report', () => {
  const order = (i: number) => ({ customerOrderId: `SO-${i}`, rows: [i + 2, i + 3], status: i % 2 ? 'valid' : 'invalid', issues: [{ row: i + 2, column: 'name', code: 'required', severity: 'error', message: 'name is "empty"\nreally' }] });
  const report = (orders: unknown) => ({ command: 'validate', input: [{ file: 'a.csv', rows: 2 }], summary: { valid: 1 }, orders, output: 'a.result.csv' });

  it('prints what JSON.stringify(report, null, 2) prints, its orders one by one', async () => {
    const orders = Array.from({ length: 3_000 }, (_, i) => order(i));
    expect(await printed(report(orders))).toBe(`${JSON.stringify(report(orders), null, 2)}\n`);
    expect(await printed(report(new LazyOrders([{ length: 3_000, at: order }])))).toBe(`${JSON.stringify(report(orders), null, 2)}\n`);
  });

  it('prints a report without orders and an error object alike', async () => {
    expect(await printed(report([]))).toBe(`${JSON.stringify(report([]), null, 2)}\n`);
    const failure = { command: 'validate', error: { kind: 'file', message: 'x' }, exitCode: 2 };
    expect(await printed(failure)).toBe(`${JSON.stringify(failure, null, 2)}\n`);
  });

  it('stops once the output is gone (its reader closed the pipe), without waiting for a drain that never comes', async () => {
    let built = 0;
    const lazy = new LazyOrders([{ length: 100_000, at: (i) => (built++, order(i)) }]);
    // Nothing reads this output: it fills at once, then goes as a closed pipe does.
    const out = new PassThrough({ highWaterMark: 16 });
    out.on('error', () => {});
    const printing = writeJsonReport(report(lazy), out);
    out.destroy(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    await printing;
    expect(built).toBeLessThan(1_000);
    // Gone before anything was printed, small reports alike.
    await writeJsonReport(report([]), out);
  });
});
