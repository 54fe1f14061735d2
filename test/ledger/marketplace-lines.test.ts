/**
 * The marketplace lines and written confirmations on each backend: lines kept per order line (a sheet
 * imported again replaces them), read back by order; confirmations recorded once, read back by package.
 */
import { describe, expect, it } from 'vitest';
import { writtenKey } from '../../src/ledger/index.js';
import { BACKENDS } from './backends.js';
import { useLedgers } from './team-support.js';

describe.each(BACKENDS)('the marketplace lines of the $name ledger', (backend) => {
  const ledgers = useLedgers(backend);

  it('keeps each line\'s identifiers and profile, read back by order; a later import of the line replaces them', async () => {
    const ledger = await ledgers.open();
    await ledger.marketplace.recordLines([
      { customerOrderId: '113-1', customerLineItemId: '5968', marketplace: 'amazon', profile: 'amazon', identifiers: { orderId: '113-1', orderItemId: '5968' } },
      { customerOrderId: '113-1', customerLineItemId: '5969', marketplace: 'amazon', profile: 'amazon', identifiers: { orderId: '113-1', orderItemId: '5969' } },
      { customerOrderId: '01-2', customerLineItemId: '219', marketplace: 'ebay', profile: 'ebay', identifiers: { orderId: '01-2', itemId: '3255', transactionId: '219' } },
    ]);
    await ledger.marketplace.recordLines([{ customerOrderId: '113-1', customerLineItemId: '5969', marketplace: 'amazon', profile: 'amazon-uk', identifiers: { orderId: '113-1', orderItemId: '5969' } }]);
    const other = await ledgers.open();
    const lines = await other.marketplace.linesOf(['113-1', 'none']);
    expect(lines.map((l) => [l.customerLineItemId, l.profile, l.identifiers.orderItemId]).sort()).toEqual([
      ['5968', 'amazon', '5968'],
      ['5969', 'amazon-uk', '5969'],
    ]);
    expect(await other.marketplace.linesOf([])).toEqual([]);
  });

  it('remembers which package went into which file, once, whoever asks', async () => {
    const ledger = await ledgers.open();
    const entries = [
      { file: 'confirmations.csv', packageId: 'P1', trackingNumber: 'T1' },
      { file: 'amazon-shipping-confirmation.txt', packageId: 'P1', trackingNumber: 'T1' },
    ];
    await ledger.marketplace.recordWritten(entries);
    await ledger.marketplace.recordWritten(entries);
    const written = await (await ledgers.open()).marketplace.writtenOf(['P1', 'P2']);
    expect([...written].sort()).toEqual([writtenKey('amazon-shipping-confirmation.txt', 'P1', 'T1'), writtenKey('confirmations.csv', 'P1', 'T1')]);
    const all = [];
    for await (const batch of ledger.marketplace.allWritten(1)) all.push(...batch);
    expect(all.map((w) => w.file)).toEqual(['amazon-shipping-confirmation.txt', 'confirmations.csv']);
    expect(all.every((w) => w.writtenAt === ledgers.clock.now().toISOString())).toBe(true);
  });

  it('records whole packages handed over as the journal\'s JSON, each file once, and ignores those recorded before', async () => {
    const ledger = await ledgers.open();
    await ledger.marketplace.recordWritten([{ file: 'confirmations.csv', packageId: 'P1', trackingNumber: 'T1' }]);
    await ledger.marketplace.recordWrittenPackages(JSON.stringify([
      ['P1', 'T1', 'confirmations.csv', 'ebay-tracking-upload.csv'],
      ['P2', 'T "2", with a comma', 'confirmations.csv'],
    ]));
    const written = await (await ledgers.open()).marketplace.writtenOf(['P1', 'P2']);
    expect([...written].sort()).toEqual([
      writtenKey('confirmations.csv', 'P1', 'T1'),
      writtenKey('confirmations.csv', 'P2', 'T "2", with a comma'),
      writtenKey('ebay-tracking-upload.csv', 'P1', 'T1'),
    ]);
    const all = [];
    for await (const batch of ledger.marketplace.allWritten(10)) all.push(...batch);
    expect(all).toHaveLength(3);
    expect(all.every((w) => w.writtenAt === ledgers.clock.now().toISOString())).toBe(true);
  });
});
