/**
 * The ledger's knowledge comes before verdicts that depend on when the check runs, against the real
 * sandbox on a frozen clock: an order this tool sent (or may have sent) is not judged invalid because
 * its orderDate aged past the API's window since, nor because its product ran out since. Its fate
 * is the ledger's: already_submitted, or looked up before any resend, never "invalid (never sent)".
 * Edited since it was sent, an order is judged as any new one (and a dry run says the edit would not
 * be applied).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { runImportAt, type ImportAtOptions } from '../support/run-import-at.js';
import { sandboxImportOptions } from './sandbox-import-options.js';
import type { JsonOrder } from '../../src/run-report/json.js';
import { importExitCode, validateExitCode } from '../../src/run-report/exit-code.js';
import { runValidate, type ValidateResult } from '../../src/validate/run-validate.js';
import { openLedger } from '../../src/ledger/index.js';
import { silentLogger } from '../../src/log.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { useTempDir } from '../support/temp-dir.js';

const at = useTempDir('ledger-first');
const START = new Date('2026-11-20T12:00:00Z');
const DAY_MS = 86_400_000;
const HEADER = 'customerOrderId,orderDate,sourceOfSale,fullName,addressLine1,city,provinceOrState,postalOrZipCode,countryCode,phone,productId,customerLineItemId,name,quantity,unitPrice,salesTax,subTotal,grandTotal';

let sandbox: SandboxHandle | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

/** A sandbox whose clock moves only when told; PRD-LOW has 2 units in all, PRD-OUT none. */
async function start(): Promise<SandboxHandle> {
  const inventory = at(`inventory-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(inventory, JSON.stringify([
    { productId: 'PRD-1001', fulfillmentCenters: [{ id: 'FC-1', availableQuantity: 500 }] },
    { productId: 'PRD-LOW', fulfillmentCenters: [{ id: 'FC-1', availableQuantity: 2 }] },
    { productId: 'PRD-OUT', fulfillmentCenters: [{ id: 'FC-1', availableQuantity: 0 }] },
  ]));
  sandbox = await startSandbox({ port: 0, startTime: START, freezeClock: true, inventoryPath: inventory });
  return sandbox;
}

/** Moves the sandbox's clock over HTTP, as a script would. */
async function advanceHours(sb: SandboxHandle, hours: number): Promise<void> {
  const res = await fetch(`${sb.url}/sandbox/clock`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ advanceHours: hours }) });
  expect(res.status).toBe(200);
}

interface SheetOrder { id: string; orderDate: Date; address?: string; product?: string }

function writeSheet(path: string, orders: SheetOrder[]): string {
  const rows = orders.map((o) => `${o.id},${o.orderDate.toISOString()},OtherMarketplace,Ann Lee,${o.address ?? '1 Main St'},Springfield,IL,62704,US,217-555-0134,${o.product ?? 'PRD-1001'},1,Item,1,5.00,0.50,5.00,5.50`);
  writeFileSync(path, `${[HEADER, ...rows].join('\n')}\n`);
  return path;
}

/** Each run checks dates as of the sandbox's clock, as a cron job on the API's time would. */
function options(sb: SandboxHandle, overrides: Partial<ImportAtOptions>): ImportAtOptions {
  return sandboxImportOptions(sb, { context: { now: sb.now(), timezone: 'UTC', sourcesOfSale: ['OtherMarketplace'] }, ledgerPath: at('ledger.db') }, overrides);
}

/** Faults switched on once the online checks are done, just before the first POST. */
function faultsAtFirstSend(sb: SandboxHandle, faults: Parameters<SandboxHandle['setFaults']>[0]): ImportAtOptions['orderProgress'] {
  return { start: () => sb.setFaults(faults), tick: () => undefined, stop: () => undefined };
}

async function stateOf(ledgerPath: string, id: string) {
  const ledger = await openLedger(ledgerPath, { logger: silentLogger });
  try {
    return await ledger.get(id);
  } finally {
    await ledger.close();
  }
}

const only = (report: { orders: Iterable<unknown> }) => ([...report.orders] as JsonOrder[])[0]!;

/** validate --online against the sandbox with the ledger (opened as the command opens it), as a check before the import would be run. */
async function validateOnline(sb: SandboxHandle, file: string, ledgerPath: string): Promise<ValidateResult> {
  const ledger = await openLedger(ledgerPath, { logger: silentLogger });
  try {
    return await runValidate({
      files: [file],
      context: { now: sb.now(), timezone: 'UTC', sourcesOfSale: ['OtherMarketplace'] },
      logger: silentLogger,
      skipResultFile: true,
      online: { connection: { auth: 'oauth', baseUrl: sb.url, clientId: sb.clientId, clientSecret: sb.clientSecret }, useSandbox: false, ledgerPath, ledger, maxAttempts: 2, concurrency: 2 },
    });
  } finally {
    await ledger.close();
  }
}

describe('an order whose outcome is unknown, re-imported after its orderDate aged past 30 days', () => {
  it('is looked up, found and reported accepted: no second POST, the ledger accepted, exit 0', async () => {
    const sb = await start();
    const ledgerPath = at('lost-ledger.db');
    const file = writeSheet(at('lost.csv'), [{ id: 'K-a', orderDate: new Date(sb.now().getTime() - 29.5 * DAY_MS) }]);

    // The POST reaches the API and the order is stored, but its reply is lost, and so are the lookups.
    const first = await runImportAt(options(sb, { files: [file], ledgerPath, orderProgress: faultsAtFirstSend(sb, { lostReplyRate: 1, paths: ['/api/v0/orders'] }) }));
    expect(first.report.summary).toEqual({ failed: 1 });
    expect((await stateOf(ledgerPath, 'K-a'))?.state).toBe('unknown');
    expect(sb.stats()).toMatchObject({ orders: 1, postsReceived: 1, duplicatesRejected: 0 });

    sb.setFaults({});
    await advanceHours(sb, 24);
    const again = await runImportAt(options(sb, { files: [file], ledgerPath }));

    expect(again.report.summary).toEqual({ accepted: 1 });
    expect(only(again.report).issues.filter((i) => i.severity === 'error')).toEqual([]);
    expect(only(again.report).requestId).toEqual(expect.any(String));
    expect((await stateOf(ledgerPath, 'K-a'))?.state).toBe('accepted');
    expect(sb.stats()).toMatchObject({ orders: 1, postsReceived: 1, duplicatesRejected: 0 });
    expect(importExitCode(again)).toBe(0);
  });

  it('the API does not hold it: the lookup finds nothing, it is sent once more and the API refuses it as too old (rejected)', async () => {
    const sb = await start();
    const ledgerPath = at('reset-ledger.db');
    const file = writeSheet(at('reset.csv'), [{ id: 'K-b', orderDate: new Date(sb.now().getTime() - 29.5 * DAY_MS) }]);

    // Connections dropped before anything is stored: the outcome is unknown to the tool, and nothing is stored.
    const first = await runImportAt(options(sb, { files: [file], ledgerPath, orderProgress: faultsAtFirstSend(sb, { resetRate: 1, paths: ['/api/v0/orders'] }) }));
    expect(first.report.summary).toEqual({ failed: 1 });
    expect((await stateOf(ledgerPath, 'K-b'))?.state).toBe('unknown');
    expect(sb.stats()).toMatchObject({ orders: 0, postsReceived: 1 });

    sb.setFaults({});
    await advanceHours(sb, 24);
    const again = await runImportAt(options(sb, { files: [file], ledgerPath }));

    expect(again.report.summary).toEqual({ rejected: 1 });
    expect(only(again.report).httpStatus).toBe(400);
    expect(only(again.report).issues).toContainEqual(expect.objectContaining({ code: 'api_rejected', severity: 'error', message: expect.stringMatching(/orderDate/) }));
    expect((await stateOf(ledgerPath, 'K-b'))?.state).toBe('rejected');
    expect(sb.stats()).toMatchObject({ orders: 0, postsReceived: 2 });
    expect(importExitCode(again)).toBe(1);
  });
});

describe('an accepted order imported again a day later', () => {
  it('after its orderDate aged past 30 days: already_submitted with its requestId and submittedAt, exit 0, and valid to validate --online; edited, today\'s verdict stands', async () => {
    const sb = await start();
    const ledgerPath = at('aged-ledger.db');
    const orderDate = new Date(sb.now().getTime() - 29.5 * DAY_MS);
    const file = writeSheet(at('aged.csv'), [{ id: 'AG-1', orderDate }]);
    const first = await runImportAt(options(sb, { files: [file], ledgerPath }));
    expect(first.report.summary).toEqual({ accepted: 1 });

    await advanceHours(sb, 24);
    const again = await runImportAt(options(sb, { files: [file], ledgerPath }));
    expect(again.report.summary).toEqual({ already_submitted: 1 });
    expect(only(again.report).issues).toEqual([]);
    expect(only(again.report).requestId).toBe(only(first.report).requestId);
    expect(only(again.report).submittedAt).toBe(only(first.report).submittedAt);
    expect(sb.stats().postsReceived).toBe(1);
    expect(importExitCode(again)).toBe(0);
    // validate --online agrees: the very order the ledger holds as sent is no invalid one.
    const checked = await validateOnline(sb, file, ledgerPath);
    expect(checked.report.summary).toEqual({ valid: 1 });
    expect(only(checked.report).issues).toEqual([]);
    expect(validateExitCode(checked)).toBe(0);

    // Another order under the same id (another address): not the one the ledger holds, so its age counts.
    writeSheet(file, [{ id: 'AG-1', orderDate, address: '9 Elm St' }]);
    const edited = await runImportAt(options(sb, { files: [file], ledgerPath }));
    expect(edited.report.summary).toEqual({ invalid: 1 });
    expect(only(edited.report).issues).toContainEqual(expect.objectContaining({ code: 'order_date_too_old', severity: 'error' }));
    const editedChecked = await validateOnline(sb, file, ledgerPath);
    expect(editedChecked.report.summary).toEqual({ invalid: 1 });
    expect(only(editedChecked.report).issues).toContainEqual(expect.objectContaining({ code: 'order_date_too_old', severity: 'error' }));
    expect(sb.stats().postsReceived).toBe(1);
  });

  it('after other orders used up its product: already_submitted, exit 0, and valid to validate --online; a new order for it is still out_of_stock', async () => {
    const sb = await start();
    const ledgerPath = at('stock-ledger.db');
    const orderDate = new Date(sb.now().getTime() - DAY_MS);
    const file = writeSheet(at('stock-a.csv'), [{ id: 'ST-1', orderDate, product: 'PRD-LOW' }]);
    expect((await runImportAt(options(sb, { files: [file], ledgerPath }))).report.summary).toEqual({ accepted: 1 });
    // Another sheet takes the last unit (another ledger: another team's tool, or the web shop).
    const other = writeSheet(at('stock-b.csv'), [{ id: 'ST-2', orderDate, product: 'PRD-LOW' }]);
    expect((await runImportAt(options(sb, { files: [other], ledgerPath: at('other-ledger.db') }))).report.summary).toEqual({ accepted: 1 });

    await advanceHours(sb, 24);
    const again = await runImportAt(options(sb, { files: [file], ledgerPath }));
    expect(again.report.summary).toEqual({ already_submitted: 1 });
    expect(only(again.report).issues).toEqual([]);
    expect(importExitCode(again)).toBe(0);
    // validate --online agrees: the stock used up since does not concern an order already stored.
    const checked = await validateOnline(sb, file, ledgerPath);
    expect(checked.report.summary).toEqual({ valid: 1 });
    expect(only(checked.report).issues).toEqual([]);

    const fresh = writeSheet(at('stock-c.csv'), [{ id: 'ST-3', orderDate, product: 'PRD-LOW' }]);
    const refused = await runImportAt(options(sb, { files: [fresh], ledgerPath }));
    expect(refused.report.summary).toEqual({ invalid: 1 });
    expect(only(refused.report).issues).toContainEqual(expect.objectContaining({ code: 'out_of_stock' }));
    expect(only((await validateOnline(sb, fresh, ledgerPath)).report).issues).toContainEqual(expect.objectContaining({ code: 'out_of_stock' }));
    expect(sb.stats().postsReceived).toBe(2);
  });
});

describe('an order whose first POST stored nothing, edited, imported again', () => {
  for (const [product, code] of [['PRD-OUT', 'out_of_stock'], ['PRD-NOPE', 'unknown_product']] as const) {
    it(`to ${product}: is checked online like any order never stored (${code}, invalid, no POST)`, async () => {
      const sb = await start();
      const ledgerPath = at(`edited-${product}.db`);
      const orderDate = new Date(sb.now().getTime() - 3_600_000);
      const file = writeSheet(at(`u-${product}.csv`), [{ id: 'U-1', orderDate }]);
      // Connections dropped before anything is stored: the ledger says unknown, the API holds nothing.
      const first = await runImportAt(options(sb, { files: [file], ledgerPath, orderProgress: faultsAtFirstSend(sb, { resetRate: 1, paths: ['/api/v0/orders'] }) }));
      expect(first.report.summary).toEqual({ failed: 1 });
      expect((await stateOf(ledgerPath, 'U-1'))?.state).toBe('unknown');
      const postsBefore = sb.stats().postsReceived;
      sb.setFaults({});

      writeSheet(file, [{ id: 'U-1', orderDate, product }]);
      const again = await runImportAt(options(sb, { files: [file], ledgerPath }));
      expect(again.report.summary).toEqual({ invalid: 1 });
      expect(only(again.report).issues).toContainEqual(expect.objectContaining({ code }));
      expect(sb.stats().postsReceived).toBe(postsBefore);
    });
  }
});

describe('--dry-run of an order already accepted', () => {
  it('says an edit would not be applied, as the real run does (already_exists, contents differ); unchanged, no issue', async () => {
    const sb = await start();
    const ledgerPath = at('dry.db');
    const file = writeSheet(at('dry.csv'), [{ id: 'D-1', orderDate: new Date(sb.now().getTime() - 3_600_000) }]);
    expect((await runImportAt(options(sb, { files: [file], ledgerPath }))).report.summary).toEqual({ accepted: 1 });

    const unchanged = await runImportAt(options(sb, { files: [file], ledgerPath, dryRun: true }));
    expect(only(unchanged.report).status).toBe('already_submitted');
    expect(only(unchanged.report).issues).toEqual([]);

    writeFileSync(file, readFileSync(file, 'utf8').replace('Ann Lee', 'Ann Leigh'));
    const edited = await runImportAt(options(sb, { files: [file], ledgerPath, dryRun: true }));
    expect(only(edited.report).status).toBe('already_submitted');
    expect(only(edited.report).issues).toContainEqual(expect.objectContaining({ code: 'already_exists', severity: 'error' }));
    expect(sb.stats().postsReceived).toBe(1);
  });
});
