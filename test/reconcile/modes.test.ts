import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { openLedger } from '../../src/ledger/index.js';
import { silentLogger } from '../../src/log.js';
import { reconcile, workbookPathFor } from '../../src/reconcile/reconcile-run.js';
import { readOrdersFile } from '../../src/reconcile/orders-file.js';
import { expected, nowAt, pkg, readOf, sentPayload } from './builders.js';
import { createFakeApi } from './fake-api.js';
import { useTempFolder } from '../support/temp-dir.js';

const dir = useTempFolder('reconcile-modes');

function apiWith(ids: string[]) {
  const api = createFakeApi();
  for (const id of ids) {
    const order = expected(id, [{ id: 'L1', productId: 'PRD-1001', quantity: 1 }]);
    api.orders.set(id, readOf(order, 'Shipped'));
    api.packages.set(`P-${id}`, pkg({ id: `P-${id}`, order: id, items: [{ line: 'L1', productId: 'PRD-1001', quantity: 1 }] }));
  }
  return api;
}

const base = { now: nowAt(48), lateAfterDays: 3, logger: silentLogger };

describe('--orders <result file>', () => {
  const file = join(dir, 'orders.import-result.csv');
  writeFileSync(
    file,
    [
      'Customer Order ID,name,status,issues',
      'A-1,Mug,accepted,',
      'A-1,Cup,accepted,',
      'A-2,Mug,already_submitted,',
      'A-3,Mug,rejected,out_of_stock',
      'A-4,Mug,invalid,required',
      ',Mug,invalid,required',
    ].join('\r\n'),
  );

  it('takes the accepted and already submitted orders of a result file, once each', async () => {
    const read = await readOrdersFile(file, { logger: silentLogger });
    expect(read.customerOrderIds).toEqual(['A-1', 'A-2']);
    expect(read.skipped).toEqual({ rejected: 1, invalid: 1 });
    expect(read.rows).toBe(6);
  });

  it('reconciles those orders without a ledger, calling none of them unknown', async () => {
    const api = apiWith(['A-1', 'A-2', 'A-3']);
    const out = await reconcile({ ...base, client: api, ordersFile: file, out: join(dir, 'orders.xlsx') });
    expect(out.report.orders.map((o) => (o as { customerOrderId: string }).customerOrderId)).toEqual(['A-1', 'A-2']);
    expect(out.report.summary).toMatchObject({ shipped: 2 });
    expect(out.report.input).toEqual([{ file, sha256: expect.stringMatching(/^[0-9a-f]{64}$/), rows: 6, orders: 2 }]);
    expect(out.hasExceptions).toBe(false);
  });

  it('reports an order of the file the API does not know, with what the ledger recorded', async () => {
    const ledger = await openLedger(':memory:');
    const run = await ledger.startRun({ command: 'import', files: [] });
    await run.recordIntent({ payload: sentPayload('A-2', '2030-03-01T00:00:00Z') });
    await run.markSending('A-2');
    await run.markAccepted('A-2', { submittedAt: '2030-03-01T01:00:00Z' });
    const out = await reconcile({ ...base, ledger, client: apiWith(['A-1']), ordersFile: file, out: join(dir, 'orders-ledger.xlsx') });
    const missing = out.orders.find((o) => o.customerOrderId === 'A-2')!;
    expect([missing.status, missing.exceptions[0]!.detail]).toEqual(['not_found', 'The API does not know this order (404), though the ledger recorded it accepted on 2030-03-01T01:00:00.000Z.']);
    await ledger.close();
  });
});

describe('--all', () => {
  it('reconciles every order the API lists, asking for every order disposition over the window', async () => {
    const api = apiWith(['B-1', 'B-2', 'B-3']);
    const out = await reconcile({ ...base, client: api, all: true, since: nowAt(-24 * 10), out: join(dir, 'all.xlsx') });
    expect(api.callsOf('listOrders').map((c) => c.arg)).toEqual([{ lastDays: 12, orderDisposition: ['all'] }]);
    expect(api.callsOf('getOrder')).toHaveLength(0);
    expect(out.report.summary).toMatchObject({ shipped: 3 });
    expect(out.orders.every((o) => !o.isInLedger && o.exceptions.length === 0)).toBe(true);
  });
});

describe('options', () => {
  it('refuses flags that do not go together, before reading anything', async () => {
    const api = apiWith([]);
    await expect(reconcile({ ...base, client: api, ordersFile: 'x.csv', all: true })).rejects.toBeInstanceOf(UsageError);
    await expect(reconcile({ ...base, client: api, all: true, since: nowAt(0), hours: 5 })).rejects.toThrow('Give --since or --hours, not both.');
    await expect(reconcile({ ...base, client: api })).rejects.toThrow(/needs the ledger/);
    await expect(reconcile({ ...base, client: api, all: true, since: nowAt(100) })).rejects.toThrow(/in the future/);
    expect(api.calls).toEqual([]);
  });

  it('names the workbook after the run time, inside a folder given as --out, and refuses a non-xlsx path', async () => {
    expect(workbookPathFor(undefined, new Date('2030-03-01T10:02:03Z'))).toBe('reconcile-20300301-100203.xlsx');
    expect(workbookPathFor(`${dir}/`, new Date('2030-03-01T10:02:03Z'))).toBe(join(dir, 'reconcile-20300301-100203.xlsx'));
    expect(() => workbookPathFor('out.csv', new Date())).toThrow(/must end in .xlsx/);
  });
});
