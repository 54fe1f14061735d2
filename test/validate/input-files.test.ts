import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { expandInputs, listFolderSheets } from '../../src/validate/input-files.js';
import { runValidate } from '../../src/validate/run-validate.js';
import { DEFAULT_SOURCES_OF_SALE } from '../../src/contract/enums.js';
import { InputError } from '../../src/errors.js';
import { silentLogger } from '../../src/log.js';
import { openSheet } from '../../src/sheet/read-sheet.js';
import { whyNotOrderSheet } from '../../src/sheet/sheet-files.js';
import { recordingWarnings } from '../support/recording-logger.js';
import { useTempFolders } from '../support/temp-dir.js';

const newFolder = useTempFolders('inputs');
const root = newFolder();

describe('a folder of inputs', () => {
  const inbox = join(root, 'inbox');
  const at = (name: string): string => join(inbox, name);
  beforeAll(() => {
    mkdirSync(inbox);
    copyFileSync(join(import.meta.dirname, '..', '..', 'samples', 'orders-valid.csv'), at('orders.csv'));
    writeFileSync(at('orders.xlsx'), 'a workbook');
    writeFileSync(at('night.tsv'), 'customerOrderId\tname\n');
    writeFileSync(at('export.txt'), Buffer.from('\ufeffCustomer Order ID\tname\tqty\r\nSO-1\tMug\t1\r\n', 'utf16le'));
    writeFileSync(at('readme.txt'), 'Drop the order sheets here; the nightly job imports them at 2:00.\nAsk Dana about anything else.\n');
    writeFileSync(at('~$orders.xlsx'), 'lock');
    writeFileSync(at('.DS_Store'), 'x');
    writeFileSync(at('orders.result.xlsx'), 'a result');
    writeFileSync(at('orders-csv.import-result.xlsx'), 'a result');
    writeFileSync(at('reconcile-20261120-120008.xlsx'), 'a workbook');
    writeFileSync(at('photo.png'), 'png');
    mkdirSync(at('done.csv'));
  });

  it('yields the sheets, and a .txt only when its first line is an order header', () => {
    expect(listFolderSheets(inbox).files).toEqual([at('export.txt'), at('night.tsv'), at('orders.csv'), at('orders.xlsx')]);
  });

  it('names every file it skips, and why, in one warning', () => {
    const { logger, warnings } = recordingWarnings();
    expandInputs([inbox], { logger });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.skipped).toEqual([
      at('.DS_Store'),
      at('orders-csv.import-result.xlsx'),
      at('orders.result.xlsx'),
      at('photo.png'),
      at('readme.txt'),
      at('reconcile-20261120-120008.xlsx'),
      at('~$orders.xlsx'),
    ]);
    expect(warnings[0]!.msg).toContain(`Skipped 7 files in ${inbox} that are not order sheets: `);
    expect(warnings[0]!.msg).toContain(`${at('readme.txt')} (text without order columns on its first line)`);
    expect(warnings[0]!.msg).toContain(`${at('~$orders.xlsx')} (Excel's lock file)`);
    expect(warnings[0]!.msg).toContain(`${at('orders.result.xlsx')} (result file of order-batch)`);
  });

  it('keeps a file named on the command line, whatever its name', () => {
    expect(expandInputs([at('readme.txt'), inbox, at('orders.csv')]).files).toEqual([
      at('readme.txt'),
      at('export.txt'),
      at('night.tsv'),
      at('orders.csv'),
      at('orders.xlsx'),
    ]);
  });

  it('lets a note in the folder no longer fail the run', async () => {
    const only = join(root, 'only-sheets');
    mkdirSync(only);
    copyFileSync(at('orders.csv'), join(only, 'orders.csv'));
    copyFileSync(at('readme.txt'), join(only, 'readme.txt'));
    const result = await runValidate({
      files: [only],
      skipResultFile: true,
      context: { now: new Date('2026-11-20T12:00:00Z'), timezone: 'UTC', sourcesOfSale: DEFAULT_SOURCES_OF_SALE },
      logger: silentLogger,
    });
    expect(result.report.input.map((i) => i.file)).toEqual([join(only, 'orders.csv')]);
    expect(result.hasUnusableInput).toBe(false);
    // The --json report names it too, not only the log: a cron job's report says what it passed over.
    expect(result.report.skipped).toEqual([{ file: join(only, 'readme.txt'), reason: 'text without order columns on its first line' }]);
  });
});

describe('a text file named on the command line that is not a sheet', () => {
  it('is refused as not an order sheet, naming the file', async () => {
    const file = join(root, 'readme.txt');
    writeFileSync(file, 'Drop the order sheets here.\n');
    const error = await openSheet(file).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).code).toBe('unsupported_format');
    expect((error as InputError).message).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is not an order sheet: it reads as text, but its first line names none of the order columns`));
  });

  it('is read like a CSV when its first line is an order header (Excel\'s tab-delimited export)', async () => {
    const file = join(root, 'export.txt');
    writeFileSync(file, 'customerOrderId\tname\nSO-1\tMug\n');
    const sheet = await openSheet(file);
    await sheet.rows[Symbol.asyncIterator]().return?.();
    expect(sheet.headers).toEqual(['customerOrderId', 'name']);
  });
});

describe('a .txt of a folder that cannot be read', () => {
  it('is taken, so the reader reports it, instead of being passed over as a note', () => {
    const dir = newFolder();
    chmodSync(dir, 0o755);
    writeFileSync(join(dir, 'orders.txt'), 'customerOrderId\tname\nSO-1\tMug\n');
    chmodSync(join(dir, 'orders.txt'), 0o000);
    // As root every file is readable: ask as an unprivileged user (setpriv, util-linux), through the built module.
    const asNobody = process.getuid?.() === 0;
    const reason = asNobody ? askAsNobody(dir, 'orders.txt') : whyNotOrderSheet(dir, 'orders.txt');
    expect(reason).toBeNull();
  });
});

/**
 * whyNotOrderSheet as uid 65534 sees it. That user may not reach the checkout (cloned under root's
 * 0700 home), so the built modules and the one package they load are copied to a temp folder anyone can read.
 */
function makeReadableByAll(path: string): void {
  if (!statSync(path).isDirectory()) {
    chmodSync(path, 0o644);
    return;
  }
  chmodSync(path, 0o755);
  for (const name of readdirSync(path)) makeReadableByAll(join(path, name));
}

function askAsNobody(dir: string, name: string): unknown {
  const copy = newFolder();
  chmodSync(copy, 0o755);
  cpSync(join(import.meta.dirname, '..', '..', 'dist'), join(copy, 'dist'), { recursive: true });
  const papaparse = dirname(createRequire(import.meta.url).resolve('papaparse/package.json'));
  cpSync(papaparse, join(copy, 'node_modules', 'papaparse'), { recursive: true });
  writeFileSync(join(copy, 'package.json'), '{ "type": "module" }\n');
  // A checkout made under a private umask has files only their owner reads; the copies keep those modes.
  makeReadableByAll(copy);
  const module = join(copy, 'dist', 'sheet', 'sheet-files.js');
  const script = `import(${JSON.stringify(module)}).then((m) => console.log(JSON.stringify(m.whyNotOrderSheet(${JSON.stringify(dir)}, ${JSON.stringify(name)}))))`;
  return JSON.parse(execFileSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '-e', script], { encoding: 'utf8', cwd: copy }));
}
