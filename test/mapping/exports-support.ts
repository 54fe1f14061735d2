/**
 * What the marketplace-export tests share: the fixtures' folder and clock, validating one export
 * (each order's status and error cells), and importing exports into a sandbox of their own (the
 * payloads the sandbox received, by customerOrderId).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runImportAt } from '../support/run-import-at.js';
import { runValidate } from '../../src/validate/run-validate.js';
import type { CreateOrderPayload } from '../../src/contract/schemas.js';
import { silentLogger } from '../../src/log.js';
import type { JsonOrder } from '../../src/run-report/json.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { sandboxImportOptions } from '../import/sandbox-import-options.js';

export const MARKETPLACE_FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'marketplaces');
export const NOW = new Date('2026-11-20T12:00:00Z');
export const context = { now: NOW, timezone: 'UTC', sourcesOfSale: ['OtherMarketplace'] };

export type Found = { status: string; issues: [number | null, string | null, string][] };
type At = (name: string) => string;

/** Validates one export into `out` (a name in the test's folder): the report, and each order's status and error cells. */
export async function validateExport(at: At, file: string, out: string) {
  const result = await runValidate({ files: [file], out: at(out), context, logger: silentLogger });
  const byId = new Map<string | null, Found>();
  for (const order of [...result.report.orders] as JsonOrder[]) {
    byId.set(order.customerOrderId, { status: order.status, issues: order.issues.filter((i) => i.severity === 'error').map((i) => [i.row, i.column, i.code]) });
  }
  return { result, byId };
}

/** Imports the exports with no option into a sandbox started for them: the report, and what the sandbox received. */
export async function importExports(at: At, files: string[]) {
  const statePath = at('sandbox-state.json');
  const sandbox = await startSandbox({ port: 0, startTime: NOW, statePath });
  try {
    mkdirSync(at('imported'));
    const result = await runImportAt(sandboxImportOptions(sandbox, { context, ledgerPath: at('ledger.db') }, { files, out: at('imported') }));
    await sandbox.close();
    const received = JSON.parse(readFileSync(statePath, 'utf8')) as { orders: { payload: CreateOrderPayload }[] };
    const orders = new Map(received.orders.map((o) => [o.payload.orderDetails.customerOrderId, o.payload]));
    return { result, orders };
  } finally {
    await sandbox.close();
  }
}
