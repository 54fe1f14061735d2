/**
 * Stock per fulfillment center: availability (bundles derive theirs from their components) and
 * reservation on acceptance. Pure functions over the StockLevels map they are handed.
 */
import type { Catalogue, Product, StockLevels } from './catalogue.js';
import type { LineAllocation } from './model.js';
import type { Rng } from './random.js';

/** Units of `product` one center can supply (a bundle: how many complete bundles). */
export function availableInCenter(stock: StockLevels, products: Catalogue['products'], product: Product, center: string): number {
  const levels = stock.get(center);
  if (!levels) return 0;
  if (!product.components) return levels.get(product.productId) ?? 0;
  let bundles = Number.POSITIVE_INFINITY;
  for (const c of product.components) {
    if (!products.has(c.productId)) return 0;
    bundles = Math.min(bundles, Math.floor((levels.get(c.productId) ?? 0) / c.quantity));
  }
  return Number.isFinite(bundles) ? bundles : 0;
}

export function availableInNetwork(stock: StockLevels, catalogue: Pick<Catalogue, 'centers' | 'products'>, product: Product): number {
  let total = 0;
  for (const center of catalogue.centers) total += availableInCenter(stock, catalogue.products, product, center);
  return total;
}

/**
 * Reserves `quantity` units: from the first center in `centerOrder` that has them all, else across
 * centers in that order, else as much as exists (the rest is shortfall). Decrements `stock`.
 * One order uses one preference for all its lines, so its lines ship together when they can.
 */
export function reserveUnits(
  stock: StockLevels,
  catalogue: Pick<Catalogue, 'centers' | 'products'>,
  product: Product,
  quantity: number,
  order: readonly string[],
): LineAllocation {
  const whole = order.find((c) => availableInCenter(stock, catalogue.products, product, c) >= quantity);
  const centers: { center: string; quantity: number }[] = [];
  let remaining = quantity;
  for (const center of whole ? [whole] : order) {
    if (remaining === 0) break;
    const take = Math.min(remaining, availableInCenter(stock, catalogue.products, product, center));
    if (take <= 0) continue;
    deductUnits(stock, product, center, take);
    centers.push({ center, quantity: take });
    remaining -= take;
  }
  return { centers, shortfall: remaining };
}

function deductUnits(stock: StockLevels, product: Product, center: string, units: number): void {
  const levels = stock.get(center)!;
  const parts = product.components ?? [{ productId: product.productId, quantity: 1 }];
  for (const p of parts) levels.set(p.productId, (levels.get(p.productId) ?? 0) - p.quantity * units);
}

/** A per-order preference of centers, so origins vary from order to order. */
export function shuffled<T>(items: readonly T[], rng: Rng): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
