/**
 * `ledger copy` carries the marketplace lines and written confirmations, SQLite to PostgreSQL and back:
 * a team that moves its ledger keeps confirming each package once.
 */
import { beforeEach, expect, it } from 'vitest';
import { copyLedger } from '../../src/ledger/copy/copy-ledger.js';
import { openLedger } from '../../src/ledger/open-ledger.js';
import { writtenKey } from '../../src/ledger/index.js';
import { describePostgres } from '../support/postgres/database.js';
import { buildClock } from './builders.js';
import { useCopyEnds } from './copy-ends.js';

describePostgres('ledger copy of marketplace lines and written confirmations', () => {
  const ends = useCopyEnds();
  beforeEach(async () => {
    const ledger = await openLedger(ends.sqlitePath, { now: buildClock().now });
    await ledger.marketplace.recordLines([
      { customerOrderId: '113-1', customerLineItemId: '5968', marketplace: 'amazon', profile: 'amazon', identifiers: { orderId: '113-1', orderItemId: '5968' } },
      { customerOrderId: '01-2', customerLineItemId: '219', marketplace: 'ebay', profile: 'ebay', identifiers: { orderId: '01-2', itemId: '3255', transactionId: '219' } },
    ]);
    await ledger.marketplace.recordWritten([{ file: 'amazon-shipping-confirmation.txt', packageId: 'P1', trackingNumber: 'T1' }]);
    await ledger.close();
  });

  it('moves every line and confirmation to PostgreSQL and back, and a second copy changes nothing', async () => {
    const { sqlitePath, db } = ends;
    const there = await copyLedger(sqlitePath, db.url);
    expect(there.marketplace).toEqual({ lines: 2, confirmations: 1 });
    const pgLedger = await openLedger(db.url);
    try {
      expect((await pgLedger.marketplace.linesOf(['113-1', '01-2'])).map((l) => l.identifiers).sort((a, b) => a.orderId!.localeCompare(b.orderId!))).toEqual([
        { orderId: '01-2', itemId: '3255', transactionId: '219' },
        { orderId: '113-1', orderItemId: '5968' },
      ]);
      expect([...(await pgLedger.marketplace.writtenOf(['P1']))]).toEqual([writtenKey('amazon-shipping-confirmation.txt', 'P1', 'T1')]);
    } finally {
      await pgLedger.close();
    }
    await copyLedger(db.url, sqlitePath);
    const back = await openLedger(sqlitePath);
    try {
      expect(await back.marketplace.linesOf(['113-1', '01-2'])).toHaveLength(2);
      expect((await back.marketplace.writtenOf(['P1'])).size).toBe(1);
    } finally {
      await back.close();
    }
  });
});
