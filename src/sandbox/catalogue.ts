/**
 * The sandbox's products and where they are stocked. The seeded catalogue is fixed (it does not
 * depend on the seed) so tests, samples and demos can name products by id:
 *
 * - PRD-1001..PRD-1020: the sample products, 1,000,000 units in every center (demos never run out).
 * - PRD-1021..PRD-1150: ordinary stock, 0..500 per center, never 0 across the network.
 * - PRD-1151..PRD-1180: stocked in one center only (200 units).
 * - PRD-1181..PRD-1190: scarce, 3 units in each of two centers (orders split across centers, or fall short).
 * - PRD-1191..PRD-1200: 1,000 units in every center.
 * - PRD-1990..PRD-1999: out of stock in every center (creation answers 409).
 * - BND-2001..BND-2005: bundles of sample products, shipped as their components.
 * - BND-2009: a bundle holding PRD-1999, so never available.
 */
import { hashText } from './random.js';

export const FULFILLMENT_CENTER_IDS = ['FC-EAST-1', 'FC-CENTRAL-1', 'FC-WEST-1'] as const;

export interface BundleComponent {
  productId: string;
  quantity: number;
}

export interface Product {
  productId: string;
  sku: string;
  upc: string;
  name: string;
  /** Present for a bundle: it has no stock of its own and ships as these components. */
  components?: BundleComponent[];
}

/** Units per fulfillment center per (non-bundle) productId. */
export type StockLevels = Map<string, Map<string, number>>;

export interface Catalogue {
  centers: string[];
  products: Map<string, Product>;
  /** Initial stock: center id -> productId -> units. Bundles are not listed (derived from components). */
  stock: StockLevels;
}

export const CATALOGUE_IDS = {
  samples: range('PRD-', 1001, 1020),
  ordinary: range('PRD-', 1021, 1150),
  singleCenter: range('PRD-', 1151, 1180),
  scarce: range('PRD-', 1181, 1190),
  plentiful: range('PRD-', 1191, 1200),
  outOfStock: range('PRD-', 1990, 1999),
  bundles: range('BND-', 2001, 2005),
  unavailableBundle: 'BND-2009',
} as const;

export const SAMPLE_STOCK_PER_CENTER = 1_000_000;

function range(prefix: string, from: number, to: number): string[] {
  const out: string[] = [];
  for (let n = from; n <= to; n++) out.push(`${prefix}${n}`);
  return out;
}

const ADJECTIVES = ['Classic', 'Compact', 'Deluxe', 'Eco', 'Everyday', 'Heavy-Duty', 'Mini', 'Pro', 'Smart', 'Travel'];
const NOUNS = ['Water Bottle', 'Desk Lamp', 'Phone Case', 'Yoga Mat', 'Coffee Mug', 'Backpack', 'Notebook', 'Headphones', 'Cutting Board', 'Umbrella', 'Candle', 'Tea Towel'];

/** A valid 12-digit UPC-A: 11 digits from the product number, then the check digit. */
export function makeUpc(productNumber: number): string {
  const body = `0${String(8_600_000_000 + productNumber).padStart(10, '0')}`.slice(-11);
  let sum = 0;
  for (let i = 0; i < 11; i++) sum += Number(body[i]) * (i % 2 === 0 ? 3 : 1);
  return body + String((10 - (sum % 10)) % 10);
}

function makeProduct(productId: string, components?: BundleComponent[]): Product {
  const n = Number(productId.slice(4));
  const h = hashText(productId);
  const name = components
    ? `Bundle ${n}: ${components.map((c) => `${c.quantity} x ${c.productId}`).join(' + ')}`
    : `${ADJECTIVES[h % ADJECTIVES.length]} ${NOUNS[Math.floor(h / 16) % NOUNS.length]} ${n}`;
  const product: Product = { productId, sku: `SKU-${n}`, upc: makeUpc(n), name };
  if (components) product.components = components;
  return product;
}

/** The seeded catalogue described above (a fresh copy: callers may mutate the stock). */
export function buildSeededCatalogue(): Catalogue {
  const centers = [...FULFILLMENT_CENTER_IDS];
  const products = new Map<string, Product>();
  const stock: StockLevels = new Map(centers.map((c) => [c, new Map<string, number>()]));
  const put = (productId: string, perCenter: readonly number[]): void => {
    products.set(productId, makeProduct(productId));
    centers.forEach((c, i) => stock.get(c)!.set(productId, perCenter[i] ?? 0));
  };
  for (const id of CATALOGUE_IDS.samples) put(id, [SAMPLE_STOCK_PER_CENTER, SAMPLE_STOCK_PER_CENTER, SAMPLE_STOCK_PER_CENTER]);
  for (const id of CATALOGUE_IDS.ordinary) {
    const h = hashText(id);
    const levels = centers.map((_, i) => Math.floor(h / 7 ** i) % 501);
    if (!levels.some((l) => l > 0)) levels[0] = 100;
    put(id, levels);
  }
  CATALOGUE_IDS.singleCenter.forEach((id, i) => put(id, centers.map((_, c) => (c === i % centers.length ? 200 : 0))));
  for (const id of CATALOGUE_IDS.scarce) put(id, [3, 0, 3]);
  for (const id of CATALOGUE_IDS.plentiful) put(id, [1000, 1000, 1000]);
  for (const id of CATALOGUE_IDS.outOfStock) put(id, [0, 0, 0]);
  CATALOGUE_IDS.bundles.forEach((id, i) => {
    const a = CATALOGUE_IDS.samples[i * 2]!;
    const b = CATALOGUE_IDS.samples[i * 2 + 1]!;
    products.set(id, makeProduct(id, [{ productId: a, quantity: 1 }, { productId: b, quantity: i + 1 }]));
  });
  products.set(
    CATALOGUE_IDS.unavailableBundle,
    makeProduct(CATALOGUE_IDS.unavailableBundle, [{ productId: 'PRD-1001', quantity: 1 }, { productId: 'PRD-1999', quantity: 1 }]),
  );
  return { centers, products, stock };
}

/** Every product, bundles included, sorted by productId: for tests and samples that need valid ids. */
export function listCatalogueProducts(catalogue: Catalogue = buildSeededCatalogue()): Product[] {
  return [...catalogue.products.values()].sort((a, b) => (a.productId < b.productId ? -1 : a.productId > b.productId ? 1 : 0));
}
