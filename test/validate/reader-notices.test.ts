/**
 * How a file was read, when a user must know it (README: a result workbook given to validate or
 * import is read on its Fix sheet "and says so"): in the text summary and in --json, not only in the log.
 */
import { writeFileSync } from 'node:fs';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { formatValidateText } from '../../src/run-report/text.js';
import { runValidate } from '../../src/validate/run-validate.js';
import { silentLogger } from '../../src/log.js';
import { useTempDir } from '../support/temp-dir.js';

const at = useTempDir('reader-notices');
const context = { now: new Date('2026-11-20T12:00:00Z'), timezone: 'UTC', sourcesOfSale: ['OtherMarketplace'] };
const HEADERS = ['customerOrderId', 'orderDate', 'sourceOfSale', 'fullName', 'addressLine1', 'city', 'provinceOrState', 'postalOrZipCode', 'countryCode', 'phone', 'productId', 'customerLineItemId', 'name', 'quantity', 'unitPrice', 'salesTax'];
const row = (id: string, quantity: string) => [id, '2026-11-19 10:00', 'OtherMarketplace', 'Maria Lopez', '123 Main St', 'Springfield', 'IL', '62704', 'US', '217-555-0134', 'PRD-1001', '1', 'Mug', quantity, '10.00', '1.00'];

describe('a result workbook given back to validate', () => {
  it('says, in the text and in --json, that its Fix sheet was read', async () => {
    const sheet = at('orders.csv');
    writeFileSync(sheet, Papa.unparse([HEADERS, row('RN-1', '1'), row('RN-2', '0')]));
    const resultWorkbook = at('orders.result.xlsx');
    await runValidate({ files: [sheet], out: resultWorkbook, context, logger: silentLogger });

    const again = await runValidate({ files: [resultWorkbook], out: at('again.result.xlsx'), context, logger: silentLogger });
    const notices = again.report.input[0]!.notices ?? [];
    expect(notices).toEqual([expect.stringContaining('its "Fix" worksheet (only the rows to correct) was read')]);
    expect(formatValidateText(again.report)).toContain(`  note: ${notices[0]}`);
    // Only the order to correct is on the Fix sheet.
    expect(again.report.orders.map((o) => (o as { customerOrderId: string }).customerOrderId)).toEqual(['RN-2']);
    // The Fix sheet's own issues column is ours: no unknown_column warning for it.
    expect(again.report.input[0]!.issues).toEqual([]);
  });

  it('says nothing of the kind for an ordinary sheet', async () => {
    const sheet = at('plain.csv');
    writeFileSync(sheet, Papa.unparse([HEADERS, row('RN-3', '1')]));
    const result = await runValidate({ files: [sheet], out: at('plain.result.xlsx'), context, logger: silentLogger });
    expect(result.report.input[0]!.notices).toBeUndefined();
    expect(formatValidateText(result.report)).not.toContain('note:');
  });
});
