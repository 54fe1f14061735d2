/**
 * An inventory file replaces the seeded catalogue (`inventoryPath`). It accepts the shape the
 * inventory endpoint answers (`{ data: [...] }`, so a dump can be edited and fed back), a bare
 * array of items, or `{ products: [...] }`. Bundles name their components; their stock is derived.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { UsageError } from '../errors.js';
import { makeUpc, type Catalogue, type Product, type StockLevels } from './catalogue.js';

const itemSchema = z.object({
  productId: z.string().trim().min(1).max(50),
  name: z.string().min(1).max(100).optional(),
  sku: z.string().optional(),
  upc: z.string().optional(),
  fulfillmentCenters: z.array(z.object({ id: z.string().trim().min(1), availableQuantity: z.number().int().min(0) })).default([]),
  components: z.array(z.object({ productId: z.string().min(1), quantity: z.number().int().gt(0) })).min(1).optional(),
});

const fileSchema = z.union([
  z.array(itemSchema),
  z.object({ data: z.array(itemSchema) }).transform((f) => f.data),
  z.object({ products: z.array(itemSchema) }).transform((f) => f.products),
]);

/** Builds a catalogue from parsed JSON; throws UsageError naming the first problem. */
export function parseInventory(json: unknown, source = 'inventory file'): Catalogue {
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    const where = first && first.path.length > 0 ? ` at ${first.path.join('.')}` : '';
    throw new UsageError(`${source} is not a valid inventory${where}: ${first?.message ?? 'unexpected shape'}`);
  }
  const products = new Map<string, Product>();
  const centerIds = new Set<string>();
  for (const item of parsed.data) for (const fc of item.fulfillmentCenters) centerIds.add(fc.id);
  const centers = [...centerIds].sort();
  if (centers.length === 0) centers.push('FC-1');
  const stock: StockLevels = new Map(centers.map((c) => [c, new Map<string, number>()]));
  parsed.data.forEach((item, index) => {
    if (products.has(item.productId)) throw new UsageError(`${source}: productId '${item.productId}' is listed twice`);
    const product: Product = {
      productId: item.productId,
      name: item.name ?? item.productId,
      sku: item.sku ?? item.productId,
      upc: item.upc ?? makeUpc(900_000 + index),
    };
    if (item.components) product.components = item.components;
    products.set(item.productId, product);
    if (!item.components) {
      for (const c of centers) stock.get(c)!.set(item.productId, 0);
      for (const fc of item.fulfillmentCenters) stock.get(fc.id)!.set(item.productId, fc.availableQuantity);
    }
  });
  for (const product of products.values()) {
    for (const component of product.components ?? []) {
      const target = products.get(component.productId);
      if (!target || target.components) {
        throw new UsageError(`${source}: bundle '${product.productId}' names '${component.productId}', which is not a plain product in the file`);
      }
    }
  }
  return { centers, products, stock };
}

export async function readInventoryFile(path: string): Promise<Catalogue> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read inventory file ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, { cause: error });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`inventory file ${path} is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  return parseInventory(json, `inventory file ${path}`);
}
