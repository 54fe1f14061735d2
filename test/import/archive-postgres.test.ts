/**
 * import --archive on a PostgreSQL ledger, against the real sandbox: a sheet whose orders are all
 * settled moves with its result (the ledger's run names the archived result), a sheet with an order
 * to fix stays in the inbox, and so does one with an order another live run is sending (not sent by
 * this run: only the other run's outcome says how it ended).
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { importExitCode } from '../../src/run-report/exit-code.js';
import { runImportAt, type ImportAtOptions } from '../support/run-import-at.js';
import { openLedger } from '../../src/ledger/index.js';
import { buildIntent } from '../ledger/builders.js';
import { createDatabase, describePostgres, type TestDatabase } from '../support/postgres/database.js';
import { useTempDir } from '../support/temp-dir.js';
import { sandboxImportOptions } from './sandbox-import-options.js';
import { useSandbox } from '../support/sandbox.js';

const at = useTempDir('archive-postgres');
const NOW = new Date('2026-11-20T12:00:00Z');
const context = { now: NOW, timezone: 'UTC', sourcesOfSale: ['OtherMarketplace'] };
const HEADER = 'customerOrderId,orderDate,sourceOfSale,fullName,addressLine1,city,provinceOrState,postalOrZipCode,countryCode,phone,productId,customerLineItemId,name,quantity,unitPrice,salesTax,subTotal,grandTotal';

function writeSheet(path: string, orders: { id: string; quantity?: number }[]): string {
  const rows = orders.map((o) => `${o.id},2026-11-20,OtherMarketplace,Ann Lee,1 Main St,Springfield,IL,62704,US,217-555-0134,PRD-1001,1,Item,${o.quantity ?? 1},5.00,0.50,${5 * (o.quantity ?? 1)},${5 * (o.quantity ?? 1) + 0.5}`);
  writeFileSync(path, `${[HEADER, ...rows].join('\n')}\n`);
  return path;
}

describePostgres('import --archive on a PostgreSQL ledger', () => {
  const sandbox = useSandbox({ startTime: NOW });
  let db: TestDatabase;
  beforeEach(async () => {
    db = await createDatabase();
  });
  afterEach(async () => {
    await db.drop();
  });
  const options = (overrides: Partial<ImportAtOptions>): ImportAtOptions => sandboxImportOptions(sandbox(), { context, ledgerPath: db.url }, overrides);

  it('moves the settled sheets with their results, and keeps those with orders to fix or sent by another run', async () => {
    const inbox = at('inbox');
    const archive = at('done');
    mkdirSync(inbox);
    const monday = writeSheet(join(inbox, 'monday.csv'), [{ id: 'PA-1' }, { id: 'PA-2' }]);
    const tuesday = writeSheet(join(inbox, 'tuesday.csv'), [{ id: 'PA-3' }, { id: 'PA-4', quantity: 0 }]);
    const wednesday = writeSheet(join(inbox, 'wednesday.csv'), [{ id: 'PA-5' }, { id: 'PA-6' }]);
    // Another run, alive, holds PA-6.
    const otherLedger = await openLedger(db.url);
    const other = await otherLedger.startRun({ command: 'import', files: ['elsewhere.csv'] });
    await other.prepareSends([buildIntent('PA-6')]);
    try {
      const result = await runImportAt(options({ files: [inbox], archiveDir: archive }));
      expect(result.report.summary).toEqual({ accepted: 4, invalid: 1, in_progress_elsewhere: 1 });
      expect(importExitCode(result)).toBe(1);
      expect(readdirSync(archive).sort()).toEqual(['monday.csv', 'monday.import-result.xlsx']);
      expect(readdirSync(inbox).sort()).toEqual(['tuesday.csv', 'tuesday.import-result.xlsx', 'wednesday.csv', 'wednesday.import-result.xlsx']);
      expect(result.report.archived).toEqual([{ file: monday, sheet: join(archive, 'monday.csv'), result: join(archive, 'monday.import-result.xlsx') }]);
      expect(result.report.kept).toEqual([
        { file: tuesday, result: join(inbox, 'tuesday.import-result.xlsx'), reason: expect.stringMatching(/^1 order needs fixing/) },
        { file: wednesday, result: join(inbox, 'wednesday.import-result.xlsx'), reason: expect.stringMatching(/^1 order is being sent by another run \(in_progress_elsewhere\)/) },
      ]);
      const run = await otherLedger.getRun(result.runId!);
      expect(run!.resultFiles.sort()).toEqual([join(archive, 'monday.import-result.xlsx'), join(inbox, 'tuesday.import-result.xlsx'), join(inbox, 'wednesday.import-result.xlsx')].sort());
    } finally {
      await other.finish({ summary: {} });
      await otherLedger.close();
    }

    // The other run ended without sending PA-6, and PA-4 is fixed: the next run sends both (PA-6 looked up first), and both sheets go.
    writeSheet(tuesday, [{ id: 'PA-3' }, { id: 'PA-4', quantity: 2 }]);
    const next = await runImportAt(options({ files: [inbox], archiveDir: archive }));
    expect(next.report.summary).toEqual({ already_submitted: 2, accepted: 2 });
    expect(importExitCode(next)).toBe(0);
    expect(readdirSync(inbox)).toEqual([]);
    expect(readdirSync(archive).sort()).toEqual(['monday.csv', 'monday.import-result.xlsx', 'tuesday.csv', 'tuesday.import-result.xlsx', 'wednesday.csv', 'wednesday.import-result.xlsx']);
  });
});
