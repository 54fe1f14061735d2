import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { buildSeededCatalogue, CATALOGUE_IDS, listCatalogueProducts, makeUpc, SAMPLE_STOCK_PER_CENTER } from '../../src/sandbox/catalogue.js';
import { parseInventory } from '../../src/sandbox/inventory-file.js';
import { availableInCenter, availableInNetwork, reserveUnits } from '../../src/sandbox/stock.js';
import { startTestSandbox } from './helpers.js';
import { buildOrderPayload } from '../support/order-payload.js';
import { makeTempFolder } from '../support/temp-dir.js';

describe('the seeded catalogue', () => {
  const catalogue = buildSeededCatalogue();
  const network = (id: string) => availableInNetwork(catalogue.stock, catalogue, catalogue.products.get(id)!);
  const perCenter = (id: string) => catalogue.centers.map((c) => availableInCenter(catalogue.stock, catalogue.products, catalogue.products.get(id)!, c));

  it('stocks the sample products PRD-1001..PRD-1020 plentifully in every center', () => {
    expect(CATALOGUE_IDS.samples).toHaveLength(20);
    for (const id of CATALOGUE_IDS.samples) expect(perCenter(id)).toEqual([SAMPLE_STOCK_PER_CENTER, SAMPLE_STOCK_PER_CENTER, SAMPLE_STOCK_PER_CENTER]);
  });

  it('has PRD-1999 out of stock everywhere, single-center products, and never-empty ordinary ones', () => {
    expect(network('PRD-1999')).toBe(0);
    for (const id of CATALOGUE_IDS.singleCenter) expect(perCenter(id).filter((n) => n > 0)).toHaveLength(1);
    for (const id of CATALOGUE_IDS.ordinary) expect(network(id)).toBeGreaterThan(0);
    expect(listCatalogueProducts()).toHaveLength(200 + 10 + 5 + 1);
  });

  it('derives bundle stock from components; a bundle with an out-of-stock component is unavailable', () => {
    expect(perCenter('BND-2002')).toEqual([SAMPLE_STOCK_PER_CENTER / 2, SAMPLE_STOCK_PER_CENTER / 2, SAMPLE_STOCK_PER_CENTER / 2]);
    expect(network(CATALOGUE_IDS.unavailableBundle)).toBe(0);
  });

  it('makes valid UPC-A check digits', () => {
    const upc = makeUpc(1001);
    const digits = [...upc].map(Number);
    const sum = digits.slice(0, 11).reduce((s, d, i) => s + d * (i % 2 === 0 ? 3 : 1), 0);
    expect((sum + digits[11]!) % 10).toBe(0);
  });

  it('reserves from one center when it can, across centers when it must, and reports the shortfall', () => {
    const own = buildSeededCatalogue();
    const product = own.products.get('PRD-1185')!;
    const order = [...own.centers];
    expect(reserveUnits(own.stock, own, product, 2, order)).toEqual({ centers: [{ center: 'FC-EAST-1', quantity: 2 }], shortfall: 0 });
    expect(reserveUnits(own.stock, own, product, 6, order)).toEqual({
      centers: [
        { center: 'FC-EAST-1', quantity: 1 },
        { center: 'FC-WEST-1', quantity: 3 },
      ],
      shortfall: 2,
    });
    expect(availableInNetwork(own.stock, own, product)).toBe(0);
  });
});

describe('an inventory file', () => {
  it('replaces the catalogue, in the shape the inventory endpoint answers', () => {
    const catalogue = parseInventory({
      data: [
        { productId: 'A', name: 'Apple', fulfillmentCenters: [{ id: 'FC-X', availableQuantity: 3 }] },
        { productId: 'B', fulfillmentCenters: [{ id: 'FC-Y', availableQuantity: 1 }] },
        { productId: 'AB', components: [{ productId: 'A', quantity: 1 }, { productId: 'B', quantity: 1 }] },
      ],
    });
    expect(catalogue.centers).toEqual(['FC-X', 'FC-Y']);
    expect(availableInNetwork(catalogue.stock, catalogue, catalogue.products.get('A')!)).toBe(3);
    expect(availableInNetwork(catalogue.stock, catalogue, catalogue.products.get('AB')!)).toBe(0);
    expect(catalogue.products.get('B')!.name).toBe('B');
  });

  it('refuses duplicates, bundles of unknown parts and bad shapes with a usage error', () => {
    expect(() => parseInventory([{ productId: 'A' }, { productId: 'A' }])).toThrow(/listed twice/);
    expect(() => parseInventory([{ productId: 'AB', components: [{ productId: 'Z', quantity: 1 }] }])).toThrow(/not a plain product/);
    expect(() => parseInventory({ items: [] })).toThrow(UsageError);
    expect(() => parseInventory([{ productId: 'A', fulfillmentCenters: [{ id: 'F', availableQuantity: -1 }] }])).toThrow(UsageError);
  });
});

describe('a sandbox started with inventoryPath', () => {
  it('sells what the file lists and nothing else', async () => {
    const dir = makeTempFolder('sandbox-inventory');
    const inventoryPath = join(dir, 'inventory.json');
    await writeFile(inventoryPath, JSON.stringify([{ productId: 'MUG-1', name: 'Mug', fulfillmentCenters: [{ id: 'FC-HOME', availableQuantity: 2 }] }]));
    const sb = await startTestSandbox({ inventoryPath });
    try {
      expect((await sb.create(buildOrderPayload('I-1', { lines: [{ productId: 'MUG-1', quantity: 2 }] }))).status).toBe(201);
      expect((await sb.create(buildOrderPayload('I-2', { lines: [{ productId: 'MUG-1' }] }))).status).toBe(409);
      expect((await sb.create(buildOrderPayload('I-3', { lines: [{ productId: 'PRD-1001' }] }))).status).toBe(400);
    } finally {
      await sb.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
