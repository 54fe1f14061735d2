/**
 * `reconcile --orders <import result>` without a ledger takes the file's rows as what was sent. An
 * import result also lists as already_submitted, with an already_exists issue ("this change was not
 * applied"), an order whose sheet was edited after it was sent, and the second copy, with other
 * contents, of an order in the same run: those rows are what was NOT sent. Of such an order only the
 * ID is taken; the API's own copy is checked as it is (no false partial shipment, amount mismatch or
 * late shipment, and no marketplaceOrderId that was never sent in the confirmations).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImportAt, type ImportAtOptions } from '../support/run-import-at.js';
import { runReconcileAt, type ReconcileAtOptions } from '../support/run-reconcile-at.js';
import { silentLogger, type Logger } from '../../src/log.js';
import { readOrdersFile } from '../../src/reconcile/orders-file.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { recordingWarnings } from '../support/recording-logger.js';
import { useTempDir } from '../support/temp-dir.js';

const at = useTempDir('orders-file-unapplied-edits');
const NOW = new Date('2026-11-20T12:00:00Z');
const HEADER = 'customerOrderId,marketplaceOrderId,orderDate,sourceOfSale,fullName,addressLine1,city,provinceOrState,postalOrZipCode,countryCode,phone,productId,customerLineItemId,name,quantity,unitPrice,salesTax';
const row = (id: string, quantity: number, marketplaceOrderId: string) =>
  `${id},${marketplaceOrderId},2026-11-20 09:30,OtherMarketplace,Ann Lee,1 Main St,Springfield,IL,62704,US,217-555-0134,PRD-1001,1,Mug,${quantity},5.00,0.00`;

let api: SandboxHandle;
const connection = () => ({ auth: 'oauth' as const, baseUrl: api.url, clientId: api.clientId, clientSecret: api.clientSecret });

function importOptions(files: string[], out?: string): ImportAtOptions {
  return {
    files,
    ...(out !== undefined && { out }),
    context: { now: NOW, timezone: 'UTC', sourcesOfSale: ['OtherMarketplace'] },
    connection: connection(),
    useSandbox: false,
    concurrency: 2,
    maxAttempts: 2,
    dryRun: false,
    ledgerPath: at('import/ledger.db'),
    logger: silentLogger,
    backoff: { baseMs: 1, maxMs: 5 },
  };
}

function reconcileOptions(ordersFile: string, ledgerPath: string, out: string, logger: Logger = silentLogger): ReconcileAtOptions {
  return {
    connection: connection(),
    useSandbox: false,
    ledgerPath,
    now: api.now(),
    isNowPinned: true,
    out,
    concurrency: 2,
    maxAttempts: 2,
    lateAfterDays: 3,
    logger,
    ordersFile,
  };
}

let edited: string;
let firstCopy: string;
let secondCopy: string;

beforeAll(async () => {
  api = await startSandbox({ port: 0, startTime: NOW });
  // CD-1 sent (1 mug, M-CD-1), its sheet edited (3 mugs, M-CD-9) and imported again: not applied.
  const sheet = at('orders.csv');
  writeFileSync(sheet, `${HEADER}\n${row('CD-1', 1, 'M-CD-1')}\n`);
  expect((await runImportAt(importOptions([sheet], at('first-import.xlsx')))).report.summary).toEqual({ accepted: 1 });
  writeFileSync(sheet, `${HEADER}\n${row('CD-1', 3, 'M-CD-9')}\n`);
  edited = at('second-import.xlsx');
  expect((await runImportAt(importOptions([sheet], edited))).report.summary).toEqual({ already_submitted: 1 });

  // DUP-1 in two files of one run, with other contents: the first copy goes out, the second does not.
  const a = at('dup-a.csv');
  const b = at('dup-b.csv');
  writeFileSync(a, `${HEADER}\n${row('DUP-1', 1, 'M-DUP-1')}\n`);
  writeFileSync(b, `${HEADER}\n${row('DUP-1', 3, 'M-DUP-9')}\n`);
  const run = await runImportAt(importOptions([a, b]));
  expect(run.report.summary).toEqual({ accepted: 1, already_submitted: 1 });
  [firstCopy, secondCopy] = run.report.output as [string, string];
  api.advanceClock(24 * 5);
});

afterAll(async () => {
  await api?.close();
});

describe('reconcile --orders without a ledger, on an order whose rows in the file were not sent', () => {
  it('with the ledger, the edited order reconciles clean (the control)', async () => {
    const result = await runReconcileAt(reconcileOptions(edited, at('import/ledger.db'), at('with-ledger.xlsx')));
    expect(result.orders.at(0)!.exceptions).toEqual([]);
    expect(result.orders.at(0)!.marketplaceOrderId).toBe('M-CD-1');
  });

  it('reports no exception for an order whose edit was not applied: the API holds what was sent', async () => {
    const { logger, warnings } = recordingWarnings();
    const result = await runReconcileAt({ ...reconcileOptions(edited, at('nowhere/ledger.db'), at('without-ledger.xlsx'), logger), confirmationsPath: at('confirmations.csv') });
    const order = result.orders.at(0)!;
    expect(order.exceptions.map((e) => `${e.type}: ${e.detail}`)).toEqual([]);
    // The API's lines, as they are: the 1 mug sent, not the 3 of the edit.
    expect(order.lines.map((l) => [l.customerLineItemId, l.ordered])).toEqual([['1', 1]]);
    // M-CD-1 is nowhere but in the ledger and the API keeps no marketplaceOrderId: blank, never the unsent M-CD-9.
    expect(order.marketplaceOrderId).toBeNull();
    expect(readFileSync(at('confirmations.csv'), 'utf8')).not.toContain('M-CD-9');
    const said = warnings.filter((w) => w.customerOrderId === 'CD-1');
    expect(said).toHaveLength(1);
    expect(said[0]!.row).toBe(2);
    expect(said[0]!.msg).toContain(`${edited} row 2: its issues column says the change was not applied`);
    expect(said[0]!.msg).toContain('only the ID of order CD-1 is taken from the file');
  });

  it('reports no exception for the second copy of an order a run held twice with other contents', async () => {
    const result = await runReconcileAt(reconcileOptions(secondCopy, at('nowhere/ledger.db'), at('second-copy.xlsx')));
    expect(result.orders.at(0)!.exceptions.map((e) => `${e.type}: ${e.detail}`)).toEqual([]);
    expect(result.orders.at(0)!.marketplaceOrderId).toBeNull();
  });

  it('still takes the first copy, which was sent, as what was sent', async () => {
    const result = await runReconcileAt(reconcileOptions(firstCopy, at('nowhere/ledger.db'), at('first-copy.xlsx')));
    expect(result.orders.at(0)!.exceptions).toEqual([]);
    expect(result.orders.at(0)!.marketplaceOrderId).toBe('M-DUP-1');
  });
});

describe('the rows an orders file gives as sent, by their issues column', () => {
  const RESULT_HEADER = 'customerOrderId,marketplaceOrderId,orderDate,sourceOfSale,productId,customerLineItemId,quantity,unitPrice,salesTax,status,issues,submittedAt';

  it('takes only the ID of an accepted order whose issues hold an error, saying so once, naming the row', async () => {
    const path = at('hand-edited.csv');
    writeFileSync(
      path,
      [
        RESULT_HEADER,
        'E-1,M-E-1,2026-11-20,OtherMarketplace,PRD-1001,1,3,5.00,0,accepted,quantity: must be a whole number,2026-11-20T12:00:00.000Z',
        'E-1,,,,PRD-1002,2,1,7.00,,accepted,order has errors on row 2,2026-11-20T12:00:00.000Z',
      ].join('\n'),
    );
    const { logger, warnings } = recordingWarnings();
    const read = await readOrdersFile(path, { logger });
    expect(read.customerOrderIds).toEqual(['E-1']);
    expect(read.expected.get('E-1')).toEqual({
      customerOrderId: 'E-1',
      marketplaceOrderId: null,
      sourceOfSale: null,
      orderDate: null,
      submittedAt: null,
      lines: [],
      subTotalCents: null,
      salesTaxCents: null,
      discountTotalCents: null,
      grandTotalCents: null,
      source: 'orders-file',
      hasLines: false,
    });
    expect(warnings.map((w) => w.msg)).toEqual([
      `${path} row 2: its issues column holds an error ("quantity: must be a whole number"): its rows may not be what was sent, so only the ID of order E-1 is taken from the file: its lines and amounts are the API's, unchecked, and it has no marketplaceOrderId (blank in the confirmations).`,
    ]);
  });

  it("reads the result's issues column, not the old one of a Fix sheet imported again", async () => {
    const path = at('fix-sheet-again.csv');
    writeFileSync(
      path,
      [
        'customerOrderId,marketplaceOrderId,orderDate,sourceOfSale,productId,customerLineItemId,quantity,unitPrice,salesTax,issues,status,issues,submittedAt',
        'F-1,M-F-1,2026-11-20,OtherMarketplace,PRD-1001,1,2,5.00,0,quantity: must be a whole number,accepted,issues (warning): unknown column,2026-11-20T12:00:00.000Z',
      ].join('\n'),
    );
    const { logger, warnings } = recordingWarnings();
    const read = await readOrdersFile(path, { logger });
    expect(read.expected.get('F-1')!.marketplaceOrderId).toBe('M-F-1');
    expect(read.expected.get('F-1')!.lines.map((l) => l.quantity)).toEqual([2]);
    expect(warnings).toEqual([]);
  });

  it('keeps the rows of an order whose issues are warnings only', async () => {
    const path = at('warnings.csv');
    writeFileSync(
      path,
      [
        RESULT_HEADER,
        '"W-1","M-W-1","2026-11-20","OtherMarketplace","PRD-1001","1","2","5.00","0","accepted","subTotal (warning): computed\nwarning: something else","2026-11-20T12:00:00.000Z"',
      ].join('\n'),
    );
    const { logger, warnings } = recordingWarnings();
    const read = await readOrdersFile(path, { logger });
    const expected = read.expected.get('W-1')!;
    expect(expected.marketplaceOrderId).toBe('M-W-1');
    expect(expected.lines.map((l) => l.quantity)).toEqual([2]);
    expect(expected.hasLines).toBeUndefined();
    expect(warnings).toEqual([]);
  });
});
