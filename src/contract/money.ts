/**
 * Money is compared in whole cents, never with floating-point tolerance (PRODUCT.md section 2).
 * The API carries amounts as JSON numbers of dollars; these convert at the edge.
 */

/** Cents for a JSON number of dollars, or null when it is not a whole number of cents (e.g. 1.005). */
export function dollarsToCents(value: number): number | null {
  if (!Number.isFinite(value)) return null;
  const scaled = value * 100;
  const cents = Math.round(scaled);
  // 0.1 * 100 is 10.000000000000002: anything that close is that many cents; 1.005 * 100 is not.
  if (Math.abs(scaled - cents) > 1e-6 * Math.max(1, Math.abs(scaled))) return null;
  if (!Number.isSafeInteger(cents)) return null;
  return cents;
}

/** The JSON number of dollars for a whole number of cents (exact for every cent amount below 2^53). */
export function centsToDollars(cents: number): number {
  return cents / 100;
}

/** "1234.5" style text for messages and sheets: always two decimals, no grouping. */
export function formatCents(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  const whole = Math.floor(abs / 100);
  const frac = abs % 100;
  return `${sign}${whole}.${frac < 10 ? '0' : ''}${frac}`;
}
