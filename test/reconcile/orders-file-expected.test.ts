/**
 * What an --orders file says was sent, read as import read it: the expected side of an order the
 * ledger does not hold (QA A3). Cells that cannot be read are named by row and column, never guessed.
 */
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { readOrdersFile } from '../../src/reconcile/orders-file.js';
import { recordingWarnings } from '../support/recording-logger.js';
import { useTempDir } from '../support/temp-dir.js';

const file = useTempDir('orders-file-expected');

const HEADER = 'Customer Order ID,Marketplace Order ID,Order Date,sourceOfSale,productId,customerLineItemId,name,qty,unitPrice,discount,salesTax,subTotal,grandTotal,status,httpStatus,requestId,submittedAt';

describe('the expected side an import result file gives', () => {
  it('takes the order fields, each line, exact cents and the submittedAt import wrote', async () => {
    const path = file('import.import-result.csv');
    writeFileSync(
      path,
      [
        HEADER,
        "A-1,'@MP-1,2026-11-20 09:30,OtherMarketplace,PRD-1001,1,Mug,2,$5.00,0.50,0.75,,,accepted,201,req-1,2026-11-20T12:00:00.000Z",
        'A-1,,,,PRD-1002,2,Cup,1,7.25,,,,,accepted,201,req-1,2026-11-20T12:00:00.000Z',
        'B-2,M2,2026-11-19,OtherMarketplace,PRD-1003,1,Bowl,3,4,,0,12,12,invalid,,,',
      ].join('\r\n'),
    );
    const read = await readOrdersFile(path, { logger: silentLogger });
    expect(read.customerOrderIds).toEqual(['A-1']);
    expect([...read.expected.keys()]).toEqual(['A-1']);
    expect(read.expected.get('A-1')).toEqual({
      customerOrderId: 'A-1',
      // The result writer's formula guard is not part of the ID.
      marketplaceOrderId: '@MP-1',
      sourceOfSale: 'OtherMarketplace',
      orderDate: '2026-11-20T09:30:00.000Z',
      submittedAt: '2026-11-20T12:00:00.000Z',
      lines: [
        { customerLineItemId: '1', productId: 'PRD-1001', name: 'Mug', quantity: 2, unitPriceCents: 500, discountCents: 50 },
        { customerLineItemId: '2', productId: 'PRD-1002', name: 'Cup', quantity: 1, unitPriceCents: 725, discountCents: 0 },
      ],
      subTotalCents: null,
      salesTaxCents: 75,
      discountTotalCents: null,
      grandTotalCents: null,
      source: 'orders-file',
    });
  });

  it('reads a date without an offset in the zone it is given', async () => {
    const path = file('zone.csv');
    writeFileSync(path, `${HEADER}\r\nZ-1,,2026-11-20 09:30,OtherMarketplace,PRD-1001,1,Mug,1,5,,0,,,accepted,,,\r\n`);
    const read = await readOrdersFile(path, { logger: silentLogger, timezone: 'America/New_York' });
    expect(read.expected.get('Z-1')!.orderDate).toBe('2026-11-20T14:30:00.000Z');
  });

  it('leaves the lines of an order unknown when one cannot be read, and names its row and column', async () => {
    const path = file('bad-line.csv');
    writeFileSync(
      path,
      [HEADER, 'C-3,M3,2026-11-20,OtherMarketplace,PRD-1001,1,Mug,2,5,,0,,,accepted,,,', 'C-3,M3,2026-11-20,OtherMarketplace,PRD-1002,2,Cup,two,5,,0,,,accepted,,,'].join('\r\n'),
    );
    const { logger, warnings } = recordingWarnings();
    const read = await readOrdersFile(path, { logger });
    const expected = read.expected.get('C-3')!;
    expect([expected.marketplaceOrderId, expected.hasLines, expected.lines]).toEqual(['M3', false, []]);
    expect(warnings.map((w) => w.msg)).toEqual([`${path} row 3, column qty: "two" is not a quantity (a whole number, 1 or more), so the lines of order C-3 are taken from the API as they are, unchecked.`]);
  });

  it('does not check an amount it cannot read, and says which', async () => {
    const path = file('bad-amount.csv');
    writeFileSync(path, `${HEADER}\r\nD-4,M4,2026-11-20,OtherMarketplace,PRD-1001,1,Mug,2,5,,1.234,,,accepted,,,\r\n`);
    const { logger, warnings } = recordingWarnings();
    const expected = (await readOrdersFile(path, { logger })).expected.get('D-4')!;
    expect([expected.salesTaxCents, expected.hasLines, expected.lines.length]).toEqual([null, undefined, 1]);
    expect(warnings.map((w) => w.msg)).toEqual([`${path} row 2, column salesTax: "1.234" is not an amount, so that amount or date of order D-4 is not checked.`]);
  });

  it('refuses to guess a number with a comma in a semicolon-separated file, as import did', async () => {
    const path = file('semicolon.csv');
    writeFileSync(path, 'customerOrderId;productId;customerLineItemId;quantity;unitPrice;status\r\nE-5;PRD-1001;1;1;1,000;accepted\r\n');
    const { logger, warnings } = recordingWarnings();
    const expected = (await readOrdersFile(path, { logger })).expected.get('E-5')!;
    expect(expected.lines[0]!.unitPriceCents).toBeNull();
    expect(warnings.map((w) => w.msg)).toEqual([`${path} row 2, column unitPrice: "1,000" has a comma, which may be a decimal mark or a thousands separator, so that amount or date of order E-5 is not checked.`]);
  });

  it('gives order fields only, lines unknown, for a file without the line columns', async () => {
    const path = file('ids-only.csv');
    writeFileSync(path, 'customerOrderId,marketplaceOrderId,status\r\nF-6,MP-6,accepted\r\n');
    const { logger, warnings } = recordingWarnings();
    const expected = (await readOrdersFile(path, { logger })).expected.get('F-6')!;
    expect([expected.marketplaceOrderId, expected.hasLines, expected.lines]).toEqual(['MP-6', false, []]);
    expect(warnings.map((w) => w.msg)).toEqual([`${path} has no customerLineItemId, productId or quantity column: the lines of its orders are taken from the API as they are, unchecked.`]);
  });
});
