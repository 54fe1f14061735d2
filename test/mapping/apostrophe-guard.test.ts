/**
 * Shopify's orders export puts an apostrophe before a postal code or a phone so that a spreadsheet keeps
 * it as text (`'02134`, `'K1P 5G4`, `'(613) 555-0142`), and writes its CSV with every cell quoted. That
 * apostrophe is the export's, never the recipient's: it goes from every postal code and phone cell of a
 * marketplace export whatever the country, while an apostrophe that belongs to a name or an address
 * (`'s-Hertogenbosch`) stays.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../support/temp-dir.js';
import { importExports, MARKETPLACE_FIXTURES } from './exports-support.js';

const at = useTempDir('apostrophe-guard');

/** The Shopify fixture's two-line order #1041, rewritten cell by cell, as Shopify writes it: every cell quoted. */
function shopifyExport(name: string, edits: Record<string, Record<string, string>>): string {
  const parsed = Papa.parse<Record<string, string>>(readFileSync(join(MARKETPLACE_FIXTURES, 'shopify-orders.csv'), 'utf8'), { header: true, skipEmptyLines: true });
  const first = parsed.data.filter((row) => row.Name === '#1041');
  const rows = Object.entries(edits).flatMap(([id, cells]) => first.map((row, i) => ({ ...row, Name: id, ...(i === 0 ? cells : {}) })));
  const path = at(name);
  writeFileSync(path, Papa.unparse({ fields: parsed.meta.fields!, data: rows }, { quotes: true }));
  return path;
}

describe("a marketplace export's apostrophe guard", () => {
  it('is removed from Canadian and US postal codes and from every phone of a Shopify export quoted as Shopify quotes it', async () => {
    const file = shopifyExport('shopify-guarded.csv', {
      '#2001': { 'Shipping Zip': "'K1P 5G4", 'Shipping Province': 'ON', 'Shipping Country': 'CA', 'Shipping City': 'Ottawa', 'Shipping Phone': "'(613) 555-0142" },
      '#2002': { 'Shipping Zip': "'02134", 'Shipping Phone': "'+1 617-555-0142" },
      '#2003': { 'Shipping Zip': "'SW1A 1AA", 'Shipping Country': 'GB', 'Shipping Province': 'London', 'Shipping Phone': "'020 7946 0958" },
      '#2004': { 'Shipping Zip': "'5211 AB", 'Shipping Country': 'NL', 'Shipping Province': 'Noord-Brabant', 'Shipping City': "'s-Hertogenbosch", 'Shipping Phone': "'073 555 0100" },
    });
    expect(readFileSync(file, 'utf8')).toContain(`"'K1P 5G4"`);

    const { result, orders } = await importExports(at, [file]);

    expect(result.report.summary).toEqual({ accepted: 4 });
    const address = (id: string) => orders.get(id)!.customerDetails.shippingAddress;
    expect(address('#2001')).toMatchObject({ postalOrZipCode: 'K1P 5G4', countryCode: 'CA', phone: '(613) 555-0142' });
    expect(address('#2002')).toMatchObject({ postalOrZipCode: '02134', countryCode: 'US', phone: '+1 617-555-0142' });
    expect(address('#2003')).toMatchObject({ postalOrZipCode: 'SW1A 1AA', countryCode: 'GB', phone: '020 7946 0958' });
    expect(address('#2004')).toMatchObject({ postalOrZipCode: '5211 AB', city: "'s-Hertogenbosch", phone: '073 555 0100' });
  });
});
