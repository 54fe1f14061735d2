/**
 * A big CSV is parsed on a worker thread that hands over rows only; a sheet read through a profile, or with
 * corrected cells, has other cells than the file's, mapped and corrected on the main thread whichever path
 * read them: its orders, payloads and result file are the same on that path as on the main thread.
 * The worker cases run the compiled worker: `npm run build` first (or CLI_DIST=<a private build>).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkFile } from '../../src/validate/check-file.js';
import { validationOutcome } from '../../src/validate/run-validate.js';
import { writeResultFile } from '../../src/result-files/write-result.js';
import { silentLogger } from '../../src/log.js';
import { BUILTIN_PROFILES } from '../../src/mapping/builtin/index.js';
import type { OpenSheetOptions } from '../../src/sheet/read-sheet.js';
import { useTempDir } from '../support/temp-dir.js';

const at = useTempDir('mapping-worker-reader');
const WORKER: Pick<OpenSheetOptions, 'workerMinBytes' | 'workerUrl'> = { workerMinBytes: 0, workerUrl: pathToFileURL(resolve(process.env.CLI_DIST ?? 'dist', 'sheet/csv-parse-worker.js')) };
const MAIN_THREAD: Pick<OpenSheetOptions, 'workerMinBytes'> = { workerMinBytes: Number.POSITIVE_INFINITY };
const SHOPIFY = join(import.meta.dirname, '..', 'fixtures', 'marketplaces', 'shopify-orders.csv');
const NOW = new Date('2026-11-20T12:00:00Z');
const context = { now: NOW, timezone: 'UTC', sourcesOfSale: ['OtherMarketplace'] };
/** Row 5's Shipping Zip (column 40), corrected in the page. */
const EDIT = { row: 5, col: 40, value: '02145', by: 'local user', at: '2026-11-20T12:00:00Z' };

async function check(read: OpenSheetOptions, name: string, edits = false) {
  const checked = await checkFile(SHOPIFY, {
    context,
    logger: silentLogger,
    read,
    settings: { mapping: { kind: 'auto', profiles: BUILTIN_PROFILES }, ...(edits && { edits: [EDIT] }) },
  });
  if (!checked.ok) throw new Error(checked.message);
  const sheet = checked.sheet;
  const path = at(`${name}.result.csv`);
  await writeResultFile({
    command: 'validate', sheet, outcomes: sheet.orders.map((o) => validationOutcome(o.issues)), extraColumns: [], path, isDefaultPath: false,
    generatedAt: NOW, notes: [], sourcesOfSale: context.sourcesOfSale, logger: silentLogger,
  });
  const result = {
    profile: checked.mapping?.profile,
    statuses: sheet.orders.map((o) => o.status),
    payload: sheet.orders.at(0)!.payload,
    corrected: sheet.orders.at(2)!.payload?.customerDetails.shippingAddress.postalOrZipCode,
    resultFile: readFileSync(path, 'utf8'),
  };
  sheet.release?.();
  return result;
}

describe('a profile and corrections on the worker path', () => {
  it('give the same orders, payloads and result file, byte for byte, as on the main thread', async () => {
    const [main, worker] = [await check(MAIN_THREAD, 'main'), await check(WORKER, 'worker')];
    expect(main.profile).toBe('shopify');
    expect(worker.statuses).toEqual(main.statuses);
    expect(worker.resultFile).toBe(main.resultFile);

    const [mainEdited, workerEdited] = [await check(MAIN_THREAD, 'main-edited', true), await check(WORKER, 'worker-edited', true)];
    expect(workerEdited.statuses).toEqual(mainEdited.statuses);
    expect(workerEdited.payload).toEqual(mainEdited.payload);
    expect(workerEdited.corrected).toBe('02145');
    expect(workerEdited.resultFile).toBe(mainEdited.resultFile);
    // The result file is the sheet as checked: the corrected cell, in the file's own columns only.
    expect(workerEdited.resultFile).not.toBe(worker.resultFile);
    expect(workerEdited.resultFile).toContain('02145');
    const header = workerEdited.resultFile.split(/\r?\n/, 1)[0]!;
    expect(header).toBe(`\uFEFF${readFileSync(SHOPIFY, 'utf8').split(/\r?\n/, 1)[0]!},status,issues`);
  });
});
