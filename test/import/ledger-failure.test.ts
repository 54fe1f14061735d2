/**
 * A ledger that fails under an import: its disk fills up in the middle of the run (SQLite's own
 * SQLITE_FULL, from a page cap put on the ledger's connection: the limit SQLite hits on a full disk),
 * or its file is damaged. The run stops sending (nothing goes out unrecorded), writes the result file
 * for what was settled, says what happened and what to do (exit 3: the ledger stopped working mid-run),
 * and the next run, once the ledger has room again, loses no order and sends none twice.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { runImportAt } from '../support/run-import-at.js';
import { failureOf } from '../../src/cli/exit-codes.js';
import { importExitCode } from '../../src/run-report/exit-code.js';
import { LedgerError, LedgerUnusableError } from '../../src/ledger/errors.js';
import { classifySqliteError } from '../../src/ledger/sqlite/sqlite-errors.js';
import { openLedger } from '../../src/ledger/index.js';
import type { JsonOrder } from '../../src/run-report/json.js';
import { formatValidateText } from '../../src/run-report/text.js';
import { writeOrdersCsv } from '../e2e/make-sheet.js';
import { useSandbox } from '../support/sandbox.js';
import { useTempDir } from '../support/temp-dir.js';
import { sandboxImportOptions } from './sandbox-import-options.js';

/** Pages the ledger's connection may add to its file: 0, no cap. */
const cap = vi.hoisted(() => ({ extraPages: 0 }));

vi.mock('../../src/sqlite/open-database.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/sqlite/open-database.js')>();
  return {
    ...original,
    openDatabase: (...args: Parameters<typeof original.openDatabase>) => {
      const db = original.openDatabase(...args);
      if (cap.extraPages > 0) db.exec(`PRAGMA max_page_count = ${Number(original.readPragma(db, 'page_count')) + cap.extraPages}`);
      return db;
    },
  };
});

const at = useTempDir('ledger-failure');
const NOW = new Date('2026-11-20T12:00:00Z');
const sandbox = useSandbox({ startTime: NOW });

const options = (files: string[], ledgerPath: string) =>
  sandboxImportOptions(sandbox(), { context: { now: NOW, timezone: 'UTC', sourcesOfSale: ['OtherMarketplace'] }, ledgerPath }, { files, concurrency: 4 });

describe('a ledger whose disk fills up in the middle of an import', () => {
  it('stops sending, writes the result for what was settled, says so (exit 3), and the next run loses none and sends none twice', async () => {
    const dir = at('full');
    mkdirSync(dir);
    const sheet = join(dir, 'orders.csv');
    const { ids } = writeOrdersCsv(sheet, { orders: 400, prefix: 'FULL', orderDate: new Date(NOW.getTime() - 3_600_000) });
    const ledgerPath = join(dir, 'ledger.db');
    await (await openLedger(ledgerPath)).close();
    const before = sandbox().stats();

    cap.extraPages = 60;
    const full = await runImportAt(options([sheet], ledgerPath));
    cap.extraPages = 0;

    const orders = full.report.orders as JsonOrder[];
    const { accepted = 0, failed = 0 } = full.report.summary;
    expect(accepted).toBeGreaterThan(0);
    expect(failed).toBeGreaterThan(0);
    expect(accepted + failed).toBe(ids.length);
    expect(full.report.ledgerError).toEqual({ ledger: ledgerPath, message: expect.stringContaining(`The ledger ${ledgerPath} could not be written: the disk is full. Free some space`) });
    expect(full.ledgerFailure?.ledger).toBe(ledgerPath);
    expect(importExitCode(full)).toBe(3);
    expect(full.report.output).toBe(join(dir, 'orders.import-result.xlsx'));
    expect(existsSync(join(dir, 'orders.import-result.xlsx'))).toBe(true);
    for (const order of orders.filter((o) => o.status === 'failed')) {
      expect(order.issues.at(-1)!.message).toMatch(/^Not (sent|settled): .*the disk is full/);
    }
    // The API has every order reported accepted, and no order twice.
    const sent = sandbox().stats();
    expect(sent.orders - before.orders).toBeGreaterThanOrEqual(accepted);
    expect(sent.duplicatesRejected).toBe(before.duplicatesRejected);
    // Said once in the text, not once per order.
    // Said once per kind in the text (the orders in flight, the orders not sent), not once per order.
    expect(formatValidateText(full.report).split('\n').filter((line) => line.includes('the disk is full')).length).toBeLessThanOrEqual(2);

    const again = await runImportAt(options([sheet], ledgerPath));
    expect(again.report.ledgerError).toBeUndefined();
    const settled = again.report.orders as JsonOrder[];
    expect(settled.every((o) => o.status === 'accepted' || o.status === 'already_submitted')).toBe(true);
    // Accepted orders whose mark the full disk lost are looked up (found: accepted), never posted again.
    expect(settled.filter((o) => o.status === 'already_submitted').length).toBeGreaterThan(0);
    expect(importExitCode(again)).toBe(0);
    const after = sandbox().stats();
    expect(after.orders - before.orders).toBe(ids.length);
    expect(after.duplicatesRejected).toBe(before.duplicatesRejected);
  });
});

describe('classifySqliteError', () => {
  const sqlite = (code: string, message: string) => Object.assign(new Error(message), { code });

  it('names the ledger and what to do for a full disk, a damaged file, a disk error and a read-only file', () => {
    const cases: [string, RegExp][] = [
      ['SQLITE_FULL', /^The ledger \/x\/l\.db could not be written: the disk is full\. Free some space on that disk/],
      ['SQLITE_CORRUPT', /^The ledger \/x\/l\.db is damaged \(boom, SQLITE_CORRUPT\)\. Restore it from a backup/],
      ['SQLITE_CORRUPT_INDEX', /is damaged \(boom, SQLITE_CORRUPT_INDEX\)/],
      ['SQLITE_IOERR_WRITE', /^The ledger \/x\/l\.db could not be read or written: the disk reported an error/],
      ['SQLITE_READONLY_DBMOVED', /^The ledger \/x\/l\.db is read-only: make it and its folder writable/],
      ['SQLITE_NOTADB', /^The file \/x\/l\.db is not an order-batch ledger/],
    ];
    for (const [code, message] of cases) {
      const error = classifySqliteError(sqlite(code, 'boom'), '/x/l.db', 'run');
      expect(error, code).toBeInstanceOf(LedgerUnusableError);
      expect((error as LedgerUnusableError).code).toBe(code);
      expect(error!.message).toMatch(message);
      // Met while opening, the same words stop the command before it starts: a usage problem (exit 2), not a ledger lost mid-run (exit 3).
      const atOpen = classifySqliteError(sqlite(code, 'boom'), '/x/l.db', 'open');
      expect(atOpen, code).toBeInstanceOf(LedgerError);
      expect(atOpen, code).not.toBeInstanceOf(LedgerUnusableError);
      expect(atOpen!.message).toBe(error!.message);
      expect(failureOf(atOpen)).toMatchObject({ exitCode: 2, kind: 'file' });
      expect(failureOf(error)).toMatchObject({ exitCode: 3, kind: 'ledger_lost', message: error!.message });
    }
  });

  it('leaves a programming error (bad SQL, a constraint) and a foreign error to be reported as a bug', () => {
    for (const code of ['SQLITE_ERROR', 'SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_MISUSE', 'SQLITE_RANGE']) expect(classifySqliteError(sqlite(code, 'x'), '/x/l.db', 'run'), code).toBeNull();
    expect(classifySqliteError(new TypeError('x'), '/x/l.db', 'run')).toBeNull();
  });
});
