/**
 * The marketplace identifiers of a sheet read with a marketplace profile: per order line, the cells of
 * the profile's `identifiers` columns, keyed as the ledger keys the line (customerOrderId and
 * customerLineItemId as sent). They are read from the source row beside the payload, never through it,
 * so what is sent to the API stays as it was.
 */
import type { Ledger, StoredMarketplaceLine } from '../ledger/index.js';
import type { CheckedSheet } from '../orders/types.js';
import { normalizeHeader } from '../sheet/columns.js';
import type { CellValue } from '../sheet/types.js';
import { IDENTIFIER_NAMES } from './marketplace-identifiers.js';
import type { Profile } from './profile.js';

/** Lines per batch handed to the ledger. */
const BATCH = 1000;

export function hasMarketplaceLines(profile: Profile | undefined): profile is Profile & { marketplace: NonNullable<Profile['marketplace']> } {
  return profile?.marketplace !== undefined;
}

/** The lines of the sheet's valid orders, in batches; nothing for a profile without a marketplace. */
export function* marketplaceLinesOf(sheet: CheckedSheet, profile: Profile | undefined): Generator<StoredMarketplaceLine[]> {
  if (!hasMarketplaceLines(profile)) return;
  const columns = IDENTIFIER_NAMES.flatMap((name) => {
    const column = profile.identifiers?.[name]?.column;
    const index = column === undefined ? -1 : indexOfHeader(sheet.headers, column);
    return index < 0 ? [] : [{ name, index }];
  });
  // The line each row became: rows and line items of a valid order go together, in the same order.
  const lineOfRow = new Map<number, { customerOrderId: string; customerLineItemId: string }>();
  for (const order of sheet.orders) {
    const items = order.payload?.orderDetails.lineItems;
    if (!items || items.length !== order.rows.length) continue;
    const customerOrderId = order.payload!.orderDetails.customerOrderId;
    order.rows.forEach((row, i) => lineOfRow.set(row, { customerOrderId, customerLineItemId: items[i]!.customerLineItemId }));
  }
  let batch: StoredMarketplaceLine[] = [];
  for (const row of sheet.rows) {
    const line = lineOfRow.get(row.rowNumber);
    if (!line) continue;
    const identifiers: Record<string, string> = {};
    for (const { name, index } of columns) {
      const text = cellText(row.cells[index] ?? null);
      if (text !== '') identifiers[name] = text;
    }
    batch.push({ ...line, marketplace: profile.marketplace, profile: profile.name, identifiers });
    if (batch.length === BATCH) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/** Headers are matched as the profile's columns are (compile.ts). */
function indexOfHeader(headers: readonly string[], column: string): number {
  const want = normalizeHeader(column);
  return headers.findIndex((h) => normalizeHeader(h) === want);
}

/** An identifier as text: a number cell (an ID the spreadsheet took for a number) written in full, without a fraction. */
function cellText(value: CellValue): string {
  if (value === null) return '';
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value).toString() : String(value);
  if (value instanceof Date) return value.toISOString();
  return String(value).trim();
}

/** Keeps the identifiers of every sheet read with a marketplace profile (before anything is sent). */
export async function recordMarketplaceLines(ledger: Pick<Ledger, 'marketplace'>, sheets: readonly { sheet: CheckedSheet; profile?: Profile }[]): Promise<void> {
  for (const { sheet, profile } of sheets) {
    for (const batch of marketplaceLinesOf(sheet, profile)) await ledger.marketplace.recordLines(batch);
  }
}
