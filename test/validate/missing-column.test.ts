/**
 * A sheet without a required column is refused as a whole (PRODUCT.md section 2): none of its orders
 * is valid, none is sent, and every order says why, in --json, the text summary and the result file.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { runImportAt } from '../support/run-import-at.js';
import type { JsonOrder } from '../../src/run-report/json.js';
import { importExitCode, validateExitCode } from '../../src/run-report/exit-code.js';
import { formatValidateText } from '../../src/run-report/text.js';
import { runValidate } from '../../src/validate/run-validate.js';
import { silentLogger } from '../../src/log.js';
import { readWorkbook, rowValues, sheet as worksheet } from '../support/xlsx-files.js';
import { useTempDir } from '../support/temp-dir.js';

const at = useTempDir('missing-column');
const NOW = new Date('2026-11-20T12:00:00Z');
const context = { now: NOW, timezone: 'UTC', sourcesOfSale: ['OtherMarketplace'] };

/** Two complete, valid orders but for the sourceOfSale column, which the sheet lacks. */
function writeSheetWithoutSourceOfSale(name: string): string {
  const path = at(name);
  const headers = ['customerOrderId', 'orderDate', 'fullName', 'addressLine1', 'city', 'provinceOrState', 'postalOrZipCode', 'countryCode', 'phone', 'productId', 'customerLineItemId', 'name', 'quantity', 'unitPrice', 'salesTax'];
  const row = (id: string) => [id, '2026-11-19 10:00', 'Maria Lopez', '123 Main St', 'Springfield', 'IL', '62704', 'US', '217-555-0134', 'PRD-1001', '1', 'Mug', '1', '10.00', '1.00'];
  writeFileSync(path, Papa.unparse([headers, row('MC-1'), row('MC-2')]));
  return path;
}

function expectEveryOrderInvalid(orders: JsonOrder[]): void {
  expect(orders.map((o) => o.status)).toEqual(['invalid', 'invalid']);
  for (const order of orders) {
    expect(order.issues.filter((i) => i.severity === 'error')).toEqual([
      expect.objectContaining({ row: order.rows[0], column: 'sourceOfSale', code: 'missing_column', severity: 'error' }),
    ]);
  }
}

describe('a sheet without a required column', () => {
  it('validate: no order is valid, each says why, the text names the column once, exit 2', async () => {
    const file = writeSheetWithoutSourceOfSale('validate.csv');
    const out = at('validate.result.xlsx');
    const result = await runValidate({ files: [file], out, context, logger: silentLogger });

    expect(result.report.summary).toEqual({ invalid: 2 });
    expect(result.report.input[0]!.issues).toEqual([expect.objectContaining({ code: 'missing_column', column: 'sourceOfSale', severity: 'error' })]);
    expectEveryOrderInvalid([...result.report.orders]);
    expect(validateExitCode(result)).toBe(2);

    const text = formatValidateText(result.report);
    expect(text).toContain('Orders: 2 invalid');
    expect(text).not.toContain('valid,');
    expect(text.match(/no sourceOfSale column/g)).toHaveLength(1);

    const results = worksheet(await readWorkbook(out), 'Results');
    const header = rowValues(results, 1);
    const status = header.indexOf('status');
    expect([rowValues(results, 2)[status], rowValues(results, 3)[status]]).toEqual(['invalid', 'invalid']);
    expect(String(rowValues(results, 2)[header.indexOf('issues')])).toContain('sourceOfSale: This order cannot be sent');
  });

  it('import --dry-run: no order is valid and none would be sent', async () => {
    const file = writeSheetWithoutSourceOfSale('import.csv');
    const out = at('import.import-result.csv');
    const sendsStarted: number[] = [];
    const result = await runImportAt({
      files: [file],
      out,
      context,
      connection: { auth: 'oauth' },
      useSandbox: true,
      concurrency: 2,
      maxAttempts: 1,
      dryRun: true,
      ledgerPath: at('ledger.db'),
      logger: silentLogger,
      orderProgress: { start: (total) => void sendsStarted.push(total), tick: () => undefined, stop: () => undefined },
    });

    expect(result.report.summary).toEqual({ invalid: 2 });
    expectEveryOrderInvalid(result.report.orders as JsonOrder[]);
    expect(sendsStarted).toEqual([]);
    expect(importExitCode(result)).toBe(2);
    const lines = Papa.parse<Record<string, string>>(readFileSync(out, 'utf8').replace(/^\ufeff/, ''), { header: true, skipEmptyLines: true }).data;
    expect(lines.map((l) => l.status)).toEqual(['invalid', 'invalid']);
  });
});
