/**
 * A result file that cannot be written (a read-only folder, a file where a folder should be) is the
 * user's to fix, not a bug: the run's outcome is still reported, the failure names the file and what
 * to do, the exit code is 2, and no half-written `.partial` file is left behind.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runImportAt, type ImportAtOptions } from '../support/run-import-at.js';
import { importExitCode, validateExitCode } from '../../src/run-report/exit-code.js';
import { formatOutputErrors } from '../../src/run-report/output-errors.js';
import { runValidate } from '../../src/validate/run-validate.js';
import { silentLogger } from '../../src/log.js';
import { writeOrdersCsv } from '../e2e/make-sheet.js';
import { useTempDir } from '../support/temp-dir.js';

const at = useTempDir('unwritable');
const lockedFolders: string[] = [];
afterAll(() => {
  for (const dir of lockedFolders) chmodSync(dir, 0o755); // so the temp dir can be removed
});

const NOW = new Date('2026-11-20T12:00:00Z');
const context = { now: NOW, timezone: 'UTC', sourcesOfSale: ['OtherMarketplace'] };

/**
 * A folder the tests cannot write into: a read-only one, or, where chmod does not stop writes (tests
 * run as root in CI), a "folder" under a regular file, which no one can create.
 */
function unwritableFolder(name: string): string {
  const dir = at(name);
  mkdirSync(dir);
  chmodSync(dir, 0o555);
  lockedFolders.push(dir);
  try {
    writeFileSync(join(dir, 'probe'), '');
  } catch {
    return dir;
  }
  const file = at(`${name}.txt`);
  writeFileSync(file, 'a file, not a folder');
  return join(file, 'sub');
}

/** Every file under the test's folders whose name says it is half written. */
function partialFiles(...dirs: string[]): string[] {
  return dirs.flatMap((dir) => (existsSync(dir) ? readdirSync(dir).filter((name) => name.includes('.partial')) : []));
}

function importOptions(overrides: Partial<ImportAtOptions>): ImportAtOptions {
  return {
    files: [],
    context,
    connection: { auth: 'oauth' },
    useSandbox: true,
    concurrency: 2,
    maxAttempts: 2,
    dryRun: false,
    ledgerPath: at('ledger.db'),
    logger: silentLogger,
    ...overrides,
  };
}

describe('a result file that cannot be written', () => {
  it('validate: still reports every verdict, names the file and the fix, and exits 2', async () => {
    const sheet = at('validate.csv');
    writeOrdersCsv(sheet, { orders: 2, prefix: 'VRO', orderDate: new Date(NOW.getTime() - 3_600_000) });
    const folder = unwritableFolder('validate-out');
    const result = await runValidate({ files: [sheet], out: `${folder}/`, context, logger: silentLogger });

    expect(result.report.summary).toEqual({ valid: 2 });
    expect(result.report.output).toBeNull();
    const [failure] = result.report.outputErrors ?? [];
    expect(failure).toMatchObject({ file: sheet, path: join(folder, 'validate.result.xlsx') });
    expect(['EACCES', 'ENOTDIR']).toContain(failure!.code);
    expect(failure!.message).toContain(join(folder, 'validate.result.xlsx'));
    expect(failure!.message).toMatch(/permission denied \(EACCES\)|a part of the path is a file, not a folder \(ENOTDIR\)/);
    expect(failure!.message).toContain('--out');
    expect(failure!.message).not.toContain('.partial');
    expect(validateExitCode(result)).toBe(2);
    expect(formatOutputErrors(result.report)).toBe(`order-batch: ${failure!.message}\n`);
    expect(partialFiles(folder, at(''))).toEqual([]);
  });

  it('import: the orders sent stay reported as sent, with a word that a re-run sends none twice', async () => {
    const sheet = at('import.csv');
    writeOrdersCsv(sheet, { orders: 2, prefix: 'IRO', orderDate: new Date(NOW.getTime() - 3_600_000) });
    const folder = unwritableFolder('import-out');
    const ledgerPath = at('import-ledger.db');
    const result = await runImportAt(importOptions({ files: [sheet], out: `${folder}/`, ledgerPath }));

    expect(result.report.summary).toEqual({ accepted: 2 });
    expect(result.report.orders).toHaveLength(2);
    expect(result.report.output).toBeNull();
    const failure = result.report.outputErrors?.[0];
    expect(failure?.path).toBe(join(folder, 'import.import-result.xlsx'));
    expect(failure?.message).toContain('--out');
    expect(importExitCode(result)).toBe(2);
    const text = formatOutputErrors(result.report);
    expect(text).toContain(`order-batch: Could not write the result file ${join(folder, 'import.import-result.xlsx')}: `);
    expect(text).toContain('the orders were sent all the same: 2 accepted');
    expect(text).toContain('sends none of them twice');
    expect(partialFiles(folder, at(''))).toEqual([]);

    // The way out the message gives: run again with a writable --out; nothing goes twice.
    const again = await runImportAt(importOptions({ files: [sheet], out: at('import-again.xlsx'), ledgerPath }));
    expect(again.report.summary).toEqual({ already_submitted: 2 });
    expect(again.report.outputErrors).toBeUndefined();
    expect(existsSync(at('import-again.xlsx'))).toBe(true);
    expect(importExitCode(again)).toBe(0);
  });

  it('import --archive: a folder it cannot move the sheet into is reported, and the sheet stays', async () => {
    const inbox = at('inbox');
    mkdirSync(inbox);
    const sheet = join(inbox, 'monday.csv');
    writeOrdersCsv(sheet, { orders: 1, prefix: 'ARO', orderDate: new Date(NOW.getTime() - 3_600_000) });
    const archive = join(unwritableFolder('archive'), 'done');
    const result = await runImportAt(importOptions({ files: [inbox], archiveDir: archive, ledgerPath: at('archive-ledger.db') }));

    expect(result.report.summary).toEqual({ accepted: 1 });
    expect(result.report.output).toBe(join(inbox, 'monday.import-result.xlsx'));
    expect(result.report.outputErrors).toHaveLength(1);
    expect(result.report.outputErrors![0]!.message).toContain(`Could not move ${sheet} into the archive ${archive}`);
    expect(result.report.outputErrors![0]!.message).toContain('--archive');
    expect(readdirSync(inbox).sort()).toEqual(['monday.csv', 'monday.import-result.xlsx']);
    expect(importExitCode(result)).toBe(2);
  });

  it('import: a --out that cannot name the result stops the run before anything is sent', async () => {
    const sheet = at('bad-out.csv');
    writeOrdersCsv(sheet, { orders: 1, prefix: 'BAD', orderDate: new Date(NOW.getTime() - 3_600_000) });
    const ledgerPath = at('bad-out-ledger.db');
    await expect(runImportAt(importOptions({ files: [sheet], out: at('result.pdf'), ledgerPath }))).rejects.toThrow(/must end in \.xlsx or \.csv/);
    const again = await runImportAt(importOptions({ files: [sheet], out: at('bad-out.xlsx'), ledgerPath, dryRun: true }));
    expect(again.report.summary).toEqual({ valid: 1 });
  });
});
