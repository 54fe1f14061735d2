/**
 * `reconcile --orders <result file>` (and --all) where there is no ledger (QA A3): it runs without one
 * and creates none (so a second run against another API is not refused), and what the file says was
 * sent (marketplaceOrderId, sourceOfSale, lines, amounts) is the expected side. The web app, which
 * reconciles its own ledger and may start one, is unchanged. Over real HTTP, against the sandbox.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImportAt } from '../support/run-import-at.js';
import { runReconcileAt, type ReconcileAtOptions } from '../support/run-reconcile-at.js';
import { silentLogger } from '../../src/log.js';
import { packageStorePathFor } from '../../src/reconcile/package-store-sqlite.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { useTempDir } from '../support/temp-dir.js';

const at = useTempDir('orders-without-ledger');
const NOW = new Date('2026-11-20T12:00:00Z');
const HEADER = 'customerOrderId,marketplaceOrderId,orderDate,sourceOfSale,fullName,addressLine1,city,provinceOrState,postalOrZipCode,countryCode,phone,productId,customerLineItemId,name,quantity,unitPrice,discount,salesTax';
const SHEET = [
  HEADER,
  'QA-001,M1,2026-11-20 09:30,OtherMarketplace,Ann Lee,1 Main St,Springfield,IL,62704,US,217-555-0134,PRD-1001,1,Mug,2,5.00,0.50,0.75',
  'QA-001,M1,2026-11-20 09:30,OtherMarketplace,Ann Lee,1 Main St,Springfield,IL,62704,US,217-555-0134,PRD-1002,2,Cup,1,7.25,,0.75',
  'QA-002,MP-9001,2026-11-20 10:00,OtherMarketplace,Bo Chan,2 Oak Ave,Springfield,IL,62704,US,217-555-0135,PRD-1003,1,Bowl,3,4.00,,0.00',
];

let apiA: SandboxHandle;
let apiB: SandboxHandle;
let resultFile: string;

const connectionTo = (sandbox: SandboxHandle) => ({ auth: 'oauth' as const, baseUrl: sandbox.url, clientId: sandbox.clientId, clientSecret: sandbox.clientSecret });

beforeAll(async () => {
  [apiA, apiB] = await Promise.all([startSandbox({ port: 0, startTime: NOW }), startSandbox({ port: 0, startTime: NOW })]);
  // The import was done elsewhere, with another --ledger: only its result file comes here.
  mkdirSync(at('elsewhere'));
  const sheet = at('elsewhere/late-import.csv');
  writeFileSync(sheet, `${SHEET.join('\n')}\n`);
  const imported = await runImportAt({
    files: [sheet],
    out: at('late-import.xlsx'),
    context: { now: NOW, timezone: 'UTC', sourcesOfSale: ['OtherMarketplace'] },
    connection: connectionTo(apiA),
    useSandbox: false,
    concurrency: 2,
    maxAttempts: 2,
    dryRun: false,
    ledgerPath: at('elsewhere/ledger.db'),
    logger: silentLogger,
    backoff: { baseMs: 1, maxMs: 5 },
  });
  expect(imported.report.summary).toEqual({ accepted: 2 });
  resultFile = at('late-import.xlsx');
  apiA.advanceClock(24 * 5);
});

afterAll(async () => {
  await Promise.all([apiA?.close(), apiB?.close()]);
});

function options(name: string, api: SandboxHandle, extra: Partial<ReconcileAtOptions>): ReconcileAtOptions {
  return {
    connection: connectionTo(api),
    useSandbox: false,
    ledgerPath: at(`${name}/.order-batch/ledger.db`),
    now: api.now(),
    isNowPinned: true,
    out: at(`${name}.xlsx`),
    concurrency: 2,
    maxAttempts: 2,
    lateAfterDays: 3,
    logger: silentLogger,
    ...extra,
  };
}

describe('reconcile --orders where there is no ledger', () => {
  it('creates no ledger and no package store, so another API can be reconciled next from the same folder', async () => {
    const first = await runReconcileAt(options('clean', apiA, { ordersFile: resultFile }));
    expect(first.orders.map((o) => [o.customerOrderId, o.status])).toEqual([
      ['QA-001', 'delivered'],
      ['QA-002', 'delivered'],
    ]);
    const ledgerPath = at('clean/.order-batch/ledger.db');
    expect(existsSync(ledgerPath)).toBe(false);
    expect(existsSync(packageStorePathFor(ledgerPath))).toBe(false);
    expect(existsSync(at('clean/.order-batch'))).toBe(false);

    // The other API never got these orders: they are missing there, not refused as "another API's ledger".
    const second = await runReconcileAt(options('clean', apiB, { ordersFile: resultFile, out: at('clean-b.xlsx') }));
    expect(second.orders.map((o) => [o.customerOrderId, o.status])).toEqual([
      ['QA-001', 'not_found'],
      ['QA-002', 'not_found'],
    ]);
    expect(existsSync(ledgerPath)).toBe(false);
  });

  it('takes what the file says was sent: marketplaceOrderId, sourceOfSale, lines and amounts', async () => {
    const confirmations = at('clean-confirmations.csv');
    const result = await runReconcileAt(options('clean', apiA, { ordersFile: resultFile, confirmationsPath: confirmations }));
    const [first, second] = result.orders;
    expect([first!.marketplaceOrderId, first!.sourceOfSale, first!.isInLedger]).toEqual(['M1', 'OtherMarketplace', false]);
    expect(second!.marketplaceOrderId).toBe('MP-9001');
    expect(first!.lines.map((l) => [l.customerLineItemId, l.productId, l.ordered, l.shipped, l.isAddedByNetwork])).toEqual([
      ['1', 'PRD-1001', 2, 2, false],
      ['2', 'PRD-1002', 1, 1, false],
    ]);
    // The sandbox reads back what was sent: no amount, line or disposition differs.
    expect(result.orders.flatMap((o) => o.exceptions)).toEqual([]);
    expect((result.report.orders as { marketplaceOrderId?: string }[]).map((o) => o.marketplaceOrderId)).toEqual(['M1', 'MP-9001']);
    const rows = readFileSync(confirmations, 'utf8').trim().split(/\r?\n/).slice(1);
    expect(rows.length).toBeGreaterThanOrEqual(2);
    for (const row of rows) expect(row).toMatch(/^(M1,QA-001|MP-9001,QA-002),OtherMarketplace,/);
  });

  it('says the file lists as accepted an order the API does not know, with when (its submittedAt column)', async () => {
    const result = await runReconcileAt(options('clean', apiB, { ordersFile: resultFile, out: at('clean-b2.xlsx') }));
    const detail = result.orders.at(0)!.exceptions.find((e) => e.type === 'missing_order')!.detail;
    expect(detail).toMatch(/^The API does not know this order \(404\), though the orders file lists it as accepted on \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\.$/);
    expect(result.orders.at(0)!.marketplaceOrderId).toBe('M1');
  });

  it('--all creates no ledger either', async () => {
    const result = await runReconcileAt(options('all', apiA, { all: true }));
    expect(result.orders.map((o) => o.customerOrderId).sort()).toEqual(['QA-001', 'QA-002']);
    expect(existsSync(at('all/.order-batch/ledger.db'))).toBe(false);
  });
});

describe('reconcile with a ledger', () => {
  it('--orders uses the ledger there is: the orders are the ledger ones', async () => {
    const result = await runReconcileAt(options('elsewhere', apiA, { ledgerPath: at('elsewhere/ledger.db'), ordersFile: resultFile }));
    expect(result.orders.map((o) => [o.customerOrderId, o.isInLedger, o.marketplaceOrderId])).toEqual([
      ['QA-001', true, 'M1'],
      ['QA-002', true, 'MP-9001'],
    ]);
    expect(existsSync(packageStorePathFor(at('elsewhere/ledger.db')))).toBe(true);
  });

  it('in the web app (no ledger required) still starts one, and then reconciles the orders imported into it', async () => {
    const ledgerPath = at('web/ledger.db');
    const before = await runReconcileAt(options('web', apiB, { ledgerPath, isLedgerRequired: false }));
    expect(before.orders).toEqual([]);
    expect(existsSync(ledgerPath)).toBe(true);

    const sheet = at('web/upload.csv');
    writeFileSync(sheet, `${[HEADER, SHEET[3]!.replace('QA-002', 'WEB-1')].join('\n')}\n`);
    const imported = await runImportAt({
      files: [sheet],
      context: { now: apiB.now(), timezone: 'UTC', sourcesOfSale: ['OtherMarketplace'] },
      connection: connectionTo(apiB),
      useSandbox: false,
      concurrency: 2,
      maxAttempts: 2,
      dryRun: false,
      ledgerPath,
      logger: silentLogger,
      backoff: { baseMs: 1, maxMs: 5 },
    });
    expect(imported.report.summary).toEqual({ accepted: 1 });
    const after = await runReconcileAt(options('web', apiB, { ledgerPath, isLedgerRequired: false, now: apiB.now(), out: at('web-2.xlsx') }));
    expect(after.orders.map((o) => [o.customerOrderId, o.isInLedger, o.marketplaceOrderId, o.status])).toEqual([['WEB-1', true, 'MP-9001', 'waiting']]);
  });
});
