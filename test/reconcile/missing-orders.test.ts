/**
 * Orders the API does not know (404 on the order and on its packages): reported as not_found with
 * a missing_order exception, the workbook written, never a stopped run. Read one by one (few
 * orders) and through tracking updates (many), selected by the ledger and by an --orders file.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { HttpError } from '../../src/api/errors.js';
import { openLedger } from '../../src/ledger/index.js';
import type { Ledger } from '../../src/ledger/types.js';
import { silentLogger } from '../../src/log.js';
import { expectOrderFromPayload } from '../../src/reconcile/expected.js';
import { reconcile, type ReconcileOptions } from '../../src/reconcile/reconcile-run.js';
import { TRACKING_WATERMARK } from '../../src/reconcile/window.js';
import { at, nowAt, pkg, readOf, sentPayload } from './builders.js';
import { httpError, type FakeApi } from './fake-api.js';
import { createWorld } from './support.js';
import { useTempFolder } from '../support/temp-dir.js';

const dir = useTempFolder('reconcile-missing');

/** A ledger that accepted `sent`; the API knows only `known` of them (shipped). */
function world(sent: string[], known: string[]): Promise<{ ledger: Ledger; api: FakeApi }> {
  return createWorld(sent.map((id) => sentPayload(id)), (api, p) => {
    const id = p.orderDetails.customerOrderId;
    if (!known.includes(id)) return;
    api.orders.set(id, readOf(expectOrderFromPayload(p), 'Shipped'));
    api.packages.set(`P-${id}`, pkg({ id: `P-${id}`, order: id, items: [{ line: 'L1', productId: 'PRD-1001', quantity: 1 }] }));
  });
}

let n = 0;
function run(api: FakeApi, extra: Partial<ReconcileOptions>) {
  const out = join(dir, `run-${++n}.xlsx`);
  return reconcile({ client: api, now: nowAt(48), lateAfterDays: 3, out, logger: silentLogger, readerOverrides: { sleep: async () => {}, random: () => 0 }, ...extra });
}

const statusOf = (result: Awaited<ReturnType<typeof run>>) => Object.fromEntries(result.orders.map((o) => [o.customerOrderId, [o.status, o.exceptions.map((e) => e.type)]]));

describe('an order the API does not know', () => {
  for (const [how, perOrderMax] of [
    ['read one by one', 25],
    ['through tracking updates', 0],
  ] as const) {
    it(`is not_found with missing_order, the others reconciled and the workbook written (ledger, ${how})`, async () => {
      const { ledger, api } = await world(['KNOWN-1', 'MISS-1'], ['KNOWN-1']);
      const result = await run(api, { ledger, perOrderMax });
      expect(statusOf(result)).toEqual({ 'KNOWN-1': ['shipped', []], 'MISS-1': ['not_found', ['missing_order']] });
      expect(result.hasExceptions).toBe(true);
      expect(existsSync(result.output)).toBe(true);
      await ledger.close();
    });
  }

  it('every order of the ledger unknown (an API that lost its state) still gives a workbook', async () => {
    const { ledger, api } = await world(['MISS-1', 'MISS-2'], []);
    const result = await run(api, { ledger });
    expect(api.callsOf('getPackages').map((c) => c.arg).sort()).toEqual(['MISS-1', 'MISS-2']);
    expect(result.report.summary).toMatchObject({ not_found: 2 });
    expect(existsSync(result.output)).toBe(true);
    await ledger.close();
  });

  it('stops the run when the API returns an order but answers 404 for its packages (a gateway that does not route them)', async () => {
    for (const perOrderMax of [25, 0]) {
      const { ledger, api } = await world(['GONE-1', 'KNOWN-2'], ['GONE-1', 'KNOWN-2']);
      // Tracking updates: shipped, says the order read, but its package is not in the window's pages, so its packages are read directly.
      api.packages.get('P-GONE-1')!.lastUpdated = at(-100);
      api.failures.set('getPackages', [httpError(404)]);
      await expect(run(api, { ledger, perOrderMax })).rejects.toThrow(/status 404/);
      expect((await ledger.getWatermark(TRACKING_WATERMARK))).toBeNull();
      await ledger.close();
    }
  });

  it('does not take a 404 of a token refresh for an unknown order', async () => {
    const { ledger, api } = await world(['MISS-1', 'KNOWN-2'], ['KNOWN-2']);
    api.failures.set('getPackages', [new HttpError('Token request failed: no route', { method: 'POST', url: 'http://fake/token', status: 404, body: '', stage: 'token' })]);
    await expect(run(api, { ledger })).rejects.toThrow('Token request failed: no route');
    await ledger.close();
  });

  describe('listed in an --orders result file', () => {
    it('is not an unknown order when the ledger at hand never recorded it: the file says it was accepted', async () => {
      const file = join(dir, 'elsewhere.import-result.csv');
      writeFileSync(file, ['customerOrderId,name,status,issues', 'KNOWN-1,Mug,accepted,'].join('\r\n'));
      const { api } = await world(['KNOWN-1'], ['KNOWN-1']);
      const ledger = await openLedger(':memory:');
      const result = await run(api, { ledger, ordersFile: file });
      expect(statusOf(result)).toEqual({ 'KNOWN-1': ['shipped', []] });
      await ledger.close();
    });

    it('warns when the file lists no accepted order (a validate result), instead of reconciling nothing without a word', async () => {
      const file = join(dir, 'orders.result.csv');
      writeFileSync(file, ['customerOrderId,name,status,issues', 'A-1,Mug,valid,', 'A-2,Mug,invalid,required'].join('\r\n'));
      const { api } = await world([], []);
      const warnings: string[] = [];
      const logger = pino({ level: 'warn' }, { write: (line: string) => void warnings.push((JSON.parse(line) as { msg: string }).msg) });
      const result = await run(api, { ordersFile: file, logger });
      expect(result.orders).toEqual([]);
      expect(warnings).toEqual([`${file} lists no accepted or already submitted order (1 valid, 1 invalid): give --orders the result file of an import.`]);
    });
  });

  describe('listed in an --orders result file but never sent', () => {
    const file = join(dir, 'orders.import-result.csv');
    writeFileSync(file, ['customerOrderId,name,status,issues', 'KNOWN-1,Mug,accepted,', 'MISS-1,Mug,accepted,'].join('\r\n'));

    for (const [how, perOrderMax] of [
      ['read one by one', 25],
      ['through tracking updates', 0],
    ] as const) {
      it(`is not_found with missing_order, without a ledger (${how})`, async () => {
        const { api } = await world(['KNOWN-1'], ['KNOWN-1']);
        const result = await run(api, { ordersFile: file, perOrderMax });
        expect(statusOf(result)).toEqual({ 'KNOWN-1': ['shipped', []], 'MISS-1': ['not_found', ['missing_order']] });
        expect(result.orders.at(1)!.exceptions[0]!.detail).toBe('The API does not know this order (404), though the orders file lists it as accepted.');
        expect(result.hasExceptions).toBe(true);
        expect(existsSync(result.output)).toBe(true);
      });

      it(`is not_found with missing_order, with a ledger that never recorded it (${how})`, async () => {
        const { ledger, api } = await world(['KNOWN-1'], ['KNOWN-1']);
        const result = await run(api, { ledger, ordersFile: file, perOrderMax });
        expect(statusOf(result)).toEqual({ 'KNOWN-1': ['shipped', []], 'MISS-1': ['not_found', ['missing_order']] });
        expect(existsSync(result.output)).toBe(true);
        await ledger.close();
      });
    }
  });
});
