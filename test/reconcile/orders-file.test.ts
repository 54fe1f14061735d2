import { writeFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { readOrdersFile } from '../../src/reconcile/orders-file.js';
import type { ResultRow } from '../../src/output-files/types.js';
import { writeResultXlsx } from '../../src/output-files/write-result-xlsx.js';
import { openSheet } from '../../src/sheet/read-sheet.js';
import { cells, issue, sampleInput } from '../support/result-rows.js';
import { useTempDir } from '../support/temp-dir.js';

const file = useTempDir('orders-file');

/** An import result: A-1 accepted (rows 2, 3), B-2 invalid (4), C-3 already submitted (5), D-4 rejected (6). */
function importRows(): ResultRow[] {
  const sent = (status: string) => ({ httpStatus: status === 'rejected' ? 400 : 201, requestId: 'req-1', submittedAt: '2026-11-20T12:00:00Z' });
  return [
    { rowNumber: 2, cells: cells('A-1'), status: 'accepted', issues: [], needsFix: false, extra: sent('accepted') },
    { rowNumber: 3, cells: cells('A-1', { customerLineItemId: '2' }), status: 'accepted', issues: [], needsFix: false, extra: sent('accepted') },
    { rowNumber: 4, cells: cells('B-2', { fullName: null }), status: 'invalid', issues: [issue(4, 'fullName', 'required', 'fullName is required.')], needsFix: true },
    { rowNumber: 5, cells: cells('C-3'), status: 'already_submitted', issues: [], needsFix: false, extra: sent('already_submitted') },
    { rowNumber: 6, cells: cells('D-4'), status: 'rejected', issues: [issue(6, 'productId', 'api_rejected', 'The API refused the order.')], needsFix: true, extra: sent('rejected') },
  ];
}

describe('readOrdersFile on an import result workbook', () => {
  const path = file('orders.import-result.xlsx');
  beforeAll(async () => {
    const input = sampleInput({ extraColumns: ['httpStatus', 'requestId', 'submittedAt'] }, importRows());
    input.summary = { ...input.summary, command: 'import', rows: 5, orders: 4, counts: { accepted: 1, invalid: 1, already_submitted: 1, rejected: 1 } };
    await writeResultXlsx(path, input);
  });

  it('reads the Results sheet and takes the accepted and already submitted orders', async () => {
    const read = await readOrdersFile(path, { logger: silentLogger });
    expect(read.hasStatusColumn).toBe(true);
    expect(read.customerOrderIds).toEqual(['A-1', 'C-3']);
    expect(read.skipped).toEqual({ invalid: 1, rejected: 1 });
    expect(read.rows).toBe(5);
  });

  it('still reads the worksheet --sheet names', async () => {
    const read = await readOrdersFile(path, { logger: silentLogger, sheet: 'Fix' });
    expect(read.hasStatusColumn).toBe(false);
    expect(read.customerOrderIds).toEqual(['B-2', 'D-4']);
  });

  it('is read on its Fix sheet for validate and import, and the reader says so', async () => {
    const sheet = await openSheet(path);
    await sheet.rows[Symbol.asyncIterator]().return?.();
    expect(sheet.sheetName).toBe('Fix');
    expect(sheet.notices).toEqual([
      `${path} is a result workbook of order-batch: its "Fix" worksheet (only the rows to correct) was read, not "Results" (to read another, name its worksheet: --sheet, or the Worksheet field of the web app).`,
    ]);
  });

  it('has nothing to say when the worksheet is named', async () => {
    const sheet = await openSheet(path, { sheet: 'Fix' });
    await sheet.rows[Symbol.asyncIterator]().return?.();
    expect(sheet.sheetName).toBe('Fix');
    expect(sheet.notices).toEqual([]);
  });
});

describe('readOrdersFile reads IDs as import sent them', () => {
  it('drops our formula guard and joins a line break, as import did before sending', async () => {
    // A result CSV: '@AT-2 is how the writer guards @AT-2; "NL\n-1" was sent as "NL -1".
    const path = file('ids.import-result.csv');
    writeFileSync(path, 'customerOrderId,status\r\n"NL\n-1",accepted\r\n\'@AT-2,accepted\r\nOK-3,accepted\r\n');
    const read = await readOrdersFile(path, { logger: silentLogger });
    expect(read.customerOrderIds).toEqual(['NL -1', '@AT-2', 'OK-3']);
  });
});
