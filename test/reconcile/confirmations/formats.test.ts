/**
 * Each marketplace's upload file: the documented header and example row (test/fixtures/confirmations),
 * and what a folder gets for one package, a split order, a replaced package and an unknown carrier.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteLedger } from '../../../src/ledger/sqlite/sqlite-ledger.js';
import type { Ledger } from '../../../src/ledger/types.js';
import { silentLogger } from '../../../src/log.js';
import type { LineIdentifiers, Marketplace } from '../../../src/mapping/marketplace-identifiers.js';
import { carrierFor } from '../../../src/reconcile/confirmations/carriers.js';
import { AMAZON_FORMAT, CONFIRMATION_FORMATS, EBAY_FORMAT, formatLine, SHOPIFY_FORMAT, WOOCOMMERCE_FORMAT, type ConfirmationFormat } from '../../../src/reconcile/confirmations/formats.js';
import type { ShippedItem } from '../../../src/reconcile/confirmations/shipped-items.js';
import { writeConfirmationFiles } from '../../../src/reconcile/confirmations/write-files.js';
import type { ReconciledOrder, ReconciledPackage } from '../../../src/reconcile/types.js';
import { useTempFolders } from '../../support/temp-dir.js';

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'confirmations');
const linesOf = (text: string) => text.split('\r\n').filter((l) => l !== '');

function item(over: Partial<ShippedItem> & { identifiers?: LineIdentifiers; marketplace?: Marketplace }): ShippedItem {
  const { identifiers, marketplace, ...rest } = over;
  return {
    customerOrderId: 'X',
    marketplaceOrderId: null,
    customerLineItemId: '1',
    productId: 'SKU',
    quantity: 1,
    packageId: 'P1',
    trackingNumber: 'T1',
    trackingUrl: null,
    carrier: 'UPS',
    serviceLevel: null,
    shipDate: null,
    line: identifiers ? { customerOrderId: 'X', customerLineItemId: '1', marketplace: marketplace ?? 'amazon', profile: marketplace ?? 'amazon', identifiers } : null,
    ...rest,
  };
}

describe('each format against its documented template', () => {
  const examples: [ConfirmationFormat, ShippedItem][] = [
    [AMAZON_FORMAT, item({ identifiers: { orderId: '058-3563777-5518068', orderItemId: '05835637773450' }, quantity: 1, shipDate: '2018-11-19T15:00:00Z', carrier: 'UPS', trackingNumber: '1Z999AA10123456784', serviceLevel: 'Ground' })],
    [EBAY_FORMAT, item({ marketplace: 'ebay', identifiers: { orderId: '01-13579-24680', itemId: '325512340001', transactionId: '2190000001' }, carrier: 'usps', trackingNumber: '9400111899560000000000' })],
    [SHOPIFY_FORMAT, item({ marketplace: 'shopify', identifiers: { orderId: '#1049', sku: 'TFD0121' }, quantity: 2, shipDate: '2018-11-19T10:00:00.000Z', carrier: 'FedEx', trackingNumber: '67890', trackingUrl: 'https://fedex.com/track?no=67890' })],
    [WOOCOMMERCE_FORMAT, item({ marketplace: 'woocommerce', identifiers: { orderId: '119', sku: 't-shirt' }, quantity: 2, shipDate: '2025-06-12T09:00:00Z', carrier: 'USPS', trackingNumber: '9200190244541430003' })],
  ];
  for (const [format, example] of examples) {
    it(`${format.marketplace}: writes the documented header and the example row`, () => {
      const [header, row] = linesOf(readFileSync(join(FIXTURES, format.fileName), 'utf8'));
      expect(formatLine(format, format.header)).toBe(header);
      expect(formatLine(format, format.rowOf(example))).toBe(row);
    });
  }

  it('writes an unknown carrier in each marketplace\'s "other" form, never dropping its name', () => {
    expect(carrierFor('amazon', 'Speedy Parcels')).toEqual({ code: 'Other', name: 'Speedy Parcels', isKnown: false });
    expect(AMAZON_FORMAT.rowOf(item({ carrier: 'Speedy Parcels' })).slice(4, 6)).toEqual(['Other', 'Speedy Parcels']);
    for (const m of ['ebay', 'shopify', 'woocommerce'] as const) expect(carrierFor(m, 'Speedy Parcels').code).toBe('Speedy Parcels');
  });

  it('quotes a CSV value only when it holds a comma, a quote or a line break, and turns a tab or line break of a tab-delimited value into a space', () => {
    expect(formatLine(EBAY_FORMAT, ['Status', '01-2', 'a,b', 'say "hi"', 'two\nlines', '-12345'])).toBe('Status,01-2,"a,b","say ""hi""","two\nlines",-12345');
    expect(formatLine(EBAY_FORMAT, ['Status', '01-2', '325', '219'])).toBe('Status,01-2,325,219');
    expect(formatLine(AMAZON_FORMAT, ['113-1', 'a\tb', 'c\r\nd', 'e,"f"'])).toBe('113-1\ta b\tc d\te,"f"');
  });

  it('maps a known carrier to each marketplace\'s own code, whatever its case and spacing', () => {
    expect(carrierFor('amazon', 'fed ex').code).toBe('FedEx');
    expect(carrierFor('shopify', 'DHL').code).toBe('DHL Express');
    expect(carrierFor('ebay', 'Royal Mail').code).toBe('RoyalMail');
  });
});

function pkg(id: string, items: [string, number][], over: Partial<ReconciledPackage> = {}): ReconciledPackage {
  return {
    packageId: id,
    customerOrderId: '',
    trackingNumber: `TRK-${id}`,
    trackingUrl: null,
    carrier: 'UPS',
    serviceLevel: 'Ground',
    originFc: null,
    shipDate: '2030-03-02T10:00:00.000Z',
    estimatedDeliveryDate: null,
    deliveredAt: null,
    lastEvent: null,
    lastUpdated: null,
    isLive: true,
    dateReplaced: null,
    replacedByPackageId: null,
    chain: [id],
    livePackageId: id,
    chainEnd: 'live',
    items: items.map(([line, quantity]) => ({ productId: `SKU-${line}`, quantity, customerLineItemId: line, lineItemProductId: `SKU-${line}`, sku: null })),
    ...over,
  };
}

function order(id: string, packages: ReconciledPackage[]): ReconciledOrder {
  return {
    customerOrderId: id,
    marketplaceOrderId: id,
    sourceOfSale: 'OtherMarketplace',
    orderDate: null,
    orderDisposition: 'api',
    isInLedger: true,
    status: 'shipped',
    trackingNumbers: packages.filter((p) => p.isLive).map((p) => p.trackingNumber!),
    lines: [],
    packages: packages.map((p) => ({ ...p, customerOrderId: id })),
    exceptions: [],
  };
}

/** Identifiers as each built-in profile keeps them, for an order id and its line ids. */
function identifiersFor(m: Marketplace, orderId: string, line: string): LineIdentifiers {
  if (m === 'amazon') return { orderId, orderItemId: `OI-${line}` };
  if (m === 'ebay') return { orderId, itemId: `IT-${line}`, transactionId: `TX-${line}` };
  if (m === 'woocommerce') return { orderId, itemId: `IT-${line}`, sku: `SKU-${line}` };
  return { orderId, sku: `SKU-${line}` };
}

describe('a confirmations folder', () => {
  const newFolder = useTempFolders('confirm-formats');
  let dir: string;
  let ledger: Ledger;
  beforeEach(() => {
    dir = newFolder();
    ledger = openSqliteLedger(':memory:');
  });
  afterEach(async () => {
    await ledger.close();
  });

  const cases = (m: Marketplace) => [
    order(`${m}-single`, [pkg(`${m}-S1`, [['1', 2]])]),
    order(`${m}-split`, [pkg(`${m}-A`, [['1', 1], ['2', 1]]), pkg(`${m}-B`, [['1', 2]])]),
    order(`${m}-replaced`, [pkg(`${m}-OLD`, [['1', 1]], { isLive: false, replacedByPackageId: `${m}-NEW`, chain: [`${m}-OLD`, `${m}-NEW`], livePackageId: `${m}-NEW` }), pkg(`${m}-NEW`, [['1', 1]])]),
    order(`${m}-unknown`, [pkg(`${m}-U`, [['1', 1]], { carrier: 'Speedy Parcels' })]),
  ];

  for (const m of ['amazon', 'ebay', 'shopify', 'woocommerce'] as const) {
    it(`${m}: one row per item per package for a single package, a split order, a replaced package and an unknown carrier`, async () => {
      const orders = cases(m);
      await ledger.marketplace.recordLines(orders.flatMap((o) => ['1', '2'].map((line) => ({ customerOrderId: o.customerOrderId, customerLineItemId: line, marketplace: m, profile: m, identifiers: identifiersFor(m, o.customerOrderId, line) }))));
      const result = await writeConfirmationFiles({ folder: dir, orders, store: ledger.marketplace, logger: silentLogger });
      const format = CONFIRMATION_FORMATS[m]!;
      const written = linesOf(readFileSync(join(dir, format.fileName), 'utf8'));
      expect(written[0]).toBe(formatLine(format, format.header));
      const expectedRows = orders.flatMap((o) =>
        o.packages.filter((p) => p.isLive).flatMap((p) =>
          p.items.map((i) => {
            const line = { customerOrderId: o.customerOrderId, customerLineItemId: i.customerLineItemId, marketplace: m, profile: m, identifiers: identifiersFor(m, o.customerOrderId, i.customerLineItemId) };
            return formatLine(format, format.rowOf({ customerOrderId: o.customerOrderId, marketplaceOrderId: o.customerOrderId, customerLineItemId: i.customerLineItemId, productId: i.productId, quantity: i.quantity, packageId: p.packageId, trackingNumber: p.trackingNumber!, trackingUrl: null, carrier: p.carrier, serviceLevel: p.serviceLevel, shipDate: p.shipDate, line }));
          }),
        ),
      );
      expect(written.slice(1)).toEqual(expectedRows);
      // The replaced package's dead tracking number is never confirmed; the unknown carrier is kept.
      expect(written.some((r) => r.includes(`TRK-${m}-OLD`))).toBe(false);
      expect(written.filter((r) => r.includes('Speedy Parcels'))).toHaveLength(1);
      expect(result.files.find((f) => f.marketplace === m)).toMatchObject({ packages: 5, rows: 6 });
    });
  }

  it('writes only packages not confirmed before, unless asked for all', async () => {
    const orders = cases('amazon');
    await ledger.marketplace.recordLines(orders.map((o) => ({ customerOrderId: o.customerOrderId, customerLineItemId: '1', marketplace: 'amazon', profile: 'amazon', identifiers: { orderId: o.customerOrderId } })));
    await writeConfirmationFiles({ folder: join(dir, 'one'), orders: orders.slice(0, 2), store: ledger.marketplace, logger: silentLogger });
    const second = await writeConfirmationFiles({ folder: join(dir, 'two'), orders, store: ledger.marketplace, logger: silentLogger });
    expect(second.files.find((f) => f.marketplace === 'amazon')?.packages).toBe(2);
    expect(linesOf(readFileSync(join(dir, 'two', 'confirmations.csv'), 'utf8'))).toHaveLength(3);
    const all = await writeConfirmationFiles({ folder: join(dir, 'all'), orders, store: ledger.marketplace, isAll: true, logger: silentLogger });
    expect(all.files.find((f) => f.marketplace === 'amazon')?.packages).toBe(5);
  });

  it('keeps orders without a marketplace in confirmations.csv only, and says Etsy has no upload', async () => {
    const template = order('TEMPLATE-1', [pkg('T1', [['1', 1]])]);
    const etsy = order('3311', [pkg('E1', [['1', 1]])]);
    await ledger.marketplace.recordLines([{ customerOrderId: '3311', customerLineItemId: '1', marketplace: 'etsy', profile: 'etsy', identifiers: { orderId: '3311', transactionId: '99' } }]);
    const result = await writeConfirmationFiles({ folder: dir, orders: [template, etsy], store: ledger.marketplace, logger: silentLogger });
    expect(result.files.map((f) => f.marketplace)).toEqual(['generic']);
    expect(linesOf(readFileSync(join(dir, 'confirmations.csv'), 'utf8'))).toHaveLength(3);
    expect(result.notes.join(' ')).toMatch(/Etsy has no file upload/);
    expect(existsSync(join(dir, 'amazon-shipping-confirmation.txt'))).toBe(false);
  });
});
