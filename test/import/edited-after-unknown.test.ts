/**
 * An order the ledger holds as sent is not judged on today's stock or catalogue only when the sheet
 * still holds that very payload. Edited since (another product), an order whose earlier POST stored
 * nothing is checked online like any new order: out_of_stock / unknown_product on the cell, nothing sent.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { importFiles, type ImportOptions } from '../../src/commands/import.js';
import type { JsonOrder } from '../../src/commands/json-report.js';
import { openLedger } from '../../src/ledger/index.js';
import { silentLogger } from '../../src/log.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { useTempDir } from '../report/temp-dir.js';

const at = useTempDir('edited-after-unknown');
const START = new Date('2026-11-20T12:00:00Z');
const HEADER = 'customerOrderId,orderDate,sourceOfSale,fullName,addressLine1,city,provinceOrState,postalOrZipCode,countryCode,phone,productId,customerLineItemId,name,quantity,unitPrice,salesTax,subTotal,grandTotal';

let sandbox: SandboxHandle | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

async function start(): Promise<SandboxHandle> {
  const inventory = at(`inventory-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(inventory, JSON.stringify([
    { productId: 'PRD-1001', fulfillmentCenters: [{ id: 'FC-1', availableQuantity: 500 }] },
    { productId: 'PRD-OUT', fulfillmentCenters: [{ id: 'FC-1', availableQuantity: 0 }] },
  ]));
  sandbox = await startSandbox({ port: 0, startTime: START, freezeClock: true, inventoryPath: inventory });
  return sandbox;
}

function writeSheet(path: string, id: string, product: string): string {
  writeFileSync(path, `${HEADER}\n${id},2026-11-19T10:00:00Z,OtherMarketplace,Ann Lee,1 Main St,Springfield,IL,62704,US,217-555-0134,${product},1,Item,1,5.00,0.50,5.00,5.50\n`);
  return path;
}

function options(sb: SandboxHandle, overrides: Partial<ImportOptions>): ImportOptions {
  return {
    files: [],
    context: { now: sb.now(), timezone: 'UTC', sourcesOfSale: ['OtherMarketplace'] },
    connection: { auth: 'oauth', baseUrl: sb.url, clientId: sb.clientId, clientSecret: sb.clientSecret },
    useSandbox: false,
    concurrency: 2,
    maxAttempts: 2,
    dryRun: false,
    ledgerPath: at('ledger.db'),
    logger: silentLogger,
    backoff: { baseMs: 1, maxMs: 5 },
    ...overrides,
  };
}

function stateOf(ledgerPath: string, id: string) {
  const ledger = openLedger(ledgerPath, { logger: silentLogger });
  try {
    return ledger.get(id)?.state;
  } finally {
    ledger.close();
  }
}

const only = (report: { orders: unknown[] }) => (report.orders as JsonOrder[])[0]!;

describe('an order whose first POST stored nothing, edited, imported again', () => {
  for (const [product, code] of [['PRD-OUT', 'out_of_stock'], ['PRD-NOPE', 'unknown_product']] as const) {
    it(`to ${product}: is checked online like any order never stored (${code}, invalid, no POST)`, async () => {
      const sb = await start();
      const ledgerPath = at(`ledger-${product}.db`);
      const file = writeSheet(at(`u-${product}.csv`), 'U-1', 'PRD-1001');
      // Connections dropped before anything is stored: the ledger says unknown, the API holds nothing.
      const first = await importFiles(options(sb, {
        files: [file],
        ledgerPath,
        orderProgress: { start: () => sb.setFaults({ resetRate: 1, paths: ['/api/v0/orders'] }), tick: () => undefined, stop: () => undefined },
      }));
      expect(first.report.summary).toEqual({ failed: 1 });
      expect(stateOf(ledgerPath, 'U-1')).toBe('unknown');
      const postsBefore = sb.stats().postsReceived;
      sb.setFaults({});

      writeSheet(file, 'U-1', product);
      const again = await importFiles(options(sb, { files: [file], ledgerPath }));
      expect(again.report.summary).toEqual({ invalid: 1 });
      expect(only(again.report).issues).toContainEqual(expect.objectContaining({ code }));
      expect(sb.stats().postsReceived).toBe(postsBefore);
    });
  }
});

describe('--dry-run of an order already accepted', () => {
  it('says an edit would not be applied, as the real run does (already_exists, contents differ); unchanged, no issue', async () => {
    const sb = await start();
    const ledgerPath = at('ledger-dry.db');
    const file = writeSheet(at('dry.csv'), 'D-1', 'PRD-1001');
    expect((await importFiles(options(sb, { files: [file], ledgerPath }))).report.summary).toEqual({ accepted: 1 });

    const unchanged = await importFiles(options(sb, { files: [file], ledgerPath, dryRun: true }));
    expect(only(unchanged.report).status).toBe('already_submitted');
    expect(only(unchanged.report).issues).toEqual([]);

    writeFileSync(file, readFileSync(file, 'utf8').replace('Ann Lee', 'Ann Leigh'));
    const edited = await importFiles(options(sb, { files: [file], ledgerPath, dryRun: true }));
    expect(only(edited.report).status).toBe('already_submitted');
    expect(only(edited.report).issues).toContainEqual(expect.objectContaining({ code: 'already_exists', severity: 'error' }));
    expect(sb.stats().postsReceived).toBe(1);
  });
});
