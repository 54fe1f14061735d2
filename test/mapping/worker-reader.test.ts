/**
 * A big CSV is parsed on a worker thread that also prepares each row's result text; a sheet read through
 * a profile, or with corrected cells, has other cells than the file's, so its result and its payloads
 * must come from the cells the checker read, on that path as on the main thread.
 */
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkFile } from '../../src/commands/check-file.js';
import { silentLogger } from '../../src/log.js';
import { BUILTIN_PROFILES } from '../../src/mapping/builtin/index.js';
import type { OpenSheetOptions } from '../../src/sheet/read-sheet.js';

const WORKER: Pick<OpenSheetOptions, 'workerMinBytes' | 'workerUrl'> = { workerMinBytes: 0, workerUrl: pathToFileURL(resolve(process.env.CLI_DIST ?? 'dist', 'sheet/csv-parse-worker.js')) };
const SHOPIFY = join(import.meta.dirname, '..', 'fixtures', 'marketplaces', 'shopify-orders.csv');
const context = { now: new Date('2026-11-20T12:00:00Z'), timezone: 'UTC', sourcesOfSale: ['OtherMarketplace'] };

async function check(read?: typeof WORKER, edits = false) {
  const checked = await checkFile(SHOPIFY, {
    context,
    logger: silentLogger,
    ...(read && { read }),
    settings: { mapping: { kind: 'auto', profiles: BUILTIN_PROFILES }, ...(edits && { edits: [{ row: 5, col: 40, value: '02145', by: 'local user', at: '2026-11-20T12:00:00Z' }] }) },
  });
  if (!checked.ok) throw new Error(checked.message);
  const sheet = checked.sheet;
  return {
    statuses: sheet.orders.map((o) => o.status),
    payload: sheet.orders[0]!.payload,
    corrected: sheet.orders[2]!.payload?.customerDetails.shippingAddress.postalOrZipCode,
    rows: [...sheet.rows].map((r) => r.cells.slice(0, sheet.headers.length)),
  };
}

describe('a profile and corrections on the worker path', () => {
  it('give the same orders, payloads and result rows as on the main thread', async () => {
    expect((await check()).statuses).toEqual((await check(WORKER)).statuses);
    const [main, worker] = [await check(undefined, true), await check(WORKER, true)];
    expect(worker.statuses).toEqual(main.statuses);
    expect(worker.payload).toEqual(main.payload);
    expect(worker.corrected).toBe('02145');
    expect(worker.rows).toEqual(main.rows);
  });
});
