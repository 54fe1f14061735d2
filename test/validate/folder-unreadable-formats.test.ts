/**
 * A sheet in a format the reader cannot take (.xls, .ods, .xlsb, .numbers) dropped in an import folder
 * fails the run as when it is named directly: listed in the report's input with the reason, exit 2,
 * left in the inbox. Notes, hidden files and lock files are still skipped.
 */
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runImportAt } from '../support/run-import-at.js';
import { listFolderSheets } from '../../src/validate/input-files.js';
import { importExitCode } from '../../src/run-report/exit-code.js';
import { silentLogger } from '../../src/log.js';
import { useSandbox } from '../support/sandbox.js';
import { useTempDir } from '../support/temp-dir.js';

const at = useTempDir('folder-formats');
const NOW = new Date('2026-11-20T12:00:00Z');
const SAMPLES = join(import.meta.dirname, '..', '..', 'samples');
const HEADER = 'customerOrderId,orderDate,sourceOfSale,fullName,addressLine1,city,provinceOrState,postalOrZipCode,countryCode,phone,productId,customerLineItemId,name,quantity,unitPrice,salesTax,subTotal,grandTotal';
const ROW = 'FF-1,2026-11-20,OtherMarketplace,Ann Lee,1 Main St,Springfield,IL,62704,US,217-555-0134,PRD-1001,1,Item,1,5.00,0.50,5.00,5.50';

const sandbox = useSandbox({ startTime: NOW });

function inbox(name: string): string {
  const dir = at(name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'orders.csv'), `${HEADER}\n${ROW}\n`);
  copyFileSync(join(SAMPLES, 'orders-valid.xlsx'), join(dir, 'legacy.xls'));
  writeFileSync(join(dir, 'export.ods'), `${HEADER}\n${ROW}\n`);
  writeFileSync(join(dir, 'binary.xlsb'), 'not readable here');
  writeFileSync(join(dir, 'Orders.NUMBERS'), 'not readable here');
  writeFileSync(join(dir, 'notes.md'), '# Inbox\nDrop the sheets here.\n');
  writeFileSync(join(dir, 'readme.txt'), 'Ask Dana about the nightly job.\n');
  writeFileSync(join(dir, '~$legacy.xls'), 'lock');
  writeFileSync(join(dir, '.backup.ods'), 'hidden');
  return dir;
}

describe('a folder holding sheets in formats the reader cannot take', () => {
  it('lists them with the sheets, and still skips notes, hidden and lock files', () => {
    const dir = inbox('listing');
    const folder = listFolderSheets(dir);
    expect(folder.files).toEqual(['Orders.NUMBERS', 'binary.xlsb', 'export.ods', 'legacy.xls', 'orders.csv'].map((f) => join(dir, f)));
    expect(folder.skipped.map((s) => s.file)).toEqual(['.backup.ods', 'notes.md', 'readme.txt', '~$legacy.xls'].map((f) => join(dir, f)));
  });

  it('fails the import with exit 2, names each in the report, and leaves them in the inbox', async () => {
    const dir = inbox('import');
    const done = at('done');
    const result = await runImportAt({
      files: [dir],
      context: { now: NOW, timezone: 'UTC', sourcesOfSale: ['OtherMarketplace'] },
      connection: { auth: 'oauth', baseUrl: sandbox().url, clientId: sandbox().clientId, clientSecret: sandbox().clientSecret },
      useSandbox: false,
      concurrency: 2,
      maxAttempts: 2,
      dryRun: false,
      ledgerPath: at('ledger.db'),
      archiveDir: done,
      logger: silentLogger,
      backoff: { baseMs: 1, maxMs: 5 },
    });
    const refused = result.report.input.filter((i) => i.error !== undefined);
    expect(refused.map((i) => [i.file, i.error?.code])).toEqual([
      [join(dir, 'Orders.NUMBERS'), 'unsupported_format'],
      [join(dir, 'binary.xlsb'), 'unsupported_format'],
      [join(dir, 'export.ods'), 'unsupported_format'],
      [join(dir, 'legacy.xls'), 'unsupported_format'],
    ]);
    for (const input of refused) expect(input.error?.message).toContain(input.file);
    // The readable sheet went out and was archived; the refused ones stay for someone to convert.
    expect(result.report.summary).toEqual({ accepted: 1 });
    expect(importExitCode(result)).toBe(2);
    expect(existsSync(join(done, 'orders.csv'))).toBe(true);
    for (const name of ['legacy.xls', 'export.ods', 'binary.xlsb', 'Orders.NUMBERS', 'notes.md']) expect(existsSync(join(dir, name))).toBe(true);
    expect(existsSync(join(done, 'legacy.xls'))).toBe(false);
  });
});
