/**
 * Which way a file is read: a strong match is read with its profile; a near miss or two matches are
 * said and never applied; --mapping forces a profile (naming what the file lacks) or turns detection off.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runValidate } from '../../src/validate/run-validate.js';
import { silentLogger } from '../../src/log.js';
import { BUILTIN_PROFILES } from '../../src/mapping/builtin/index.js';
import { detectProfile } from '../../src/mapping/detect.js';
import { resolveMappingChoice } from '../../src/mapping/profile-file.js';
import type { JsonOrder } from '../../src/run-report/json.js';
import { useTempDir } from '../support/temp-dir.js';

const at = useTempDir('detection');
const SHOPIFY = join(import.meta.dirname, '..', 'fixtures', 'marketplaces', 'shopify-orders.csv');
const context = { now: new Date('2026-11-20T12:00:00Z'), timezone: 'UTC', sourcesOfSale: ['OtherMarketplace'] };

/** The Shopify fixture without one of its columns. */
function shopifyWithout(column: string, name: string): string {
  const rows = readFileSync(SHOPIFY, 'utf8').trimEnd().split('\n').map((line) => line.split(','));
  const at0 = rows[0]!.indexOf(column);
  const file = at(name);
  // The fixture quotes no cell that holds the dropped column's neighbours' commas; rebuild without parsing.
  writeFileSync(file, readFileSync(SHOPIFY, 'utf8').replace(rows[0]!.join(','), rows[0]!.map((h, i) => (i === at0 ? `${h} (old)` : h)).join(',')));
  return file;
}

describe('detection', () => {
  it('reads a near miss with the template and says what it looks like, never applying the profile', async () => {
    const file = shopifyWithout('Lineitem sku', 'near-miss.csv');
    const result = await runValidate({ files: [file], out: at('near-miss.result.csv'), context, logger: silentLogger });
    const input = result.report.input[0]!;
    expect(input.mapping).toBeUndefined();
    expect(input.notices).toEqual([expect.stringContaining('looks like a Shopify orders export but lacks "Lineitem sku", so it was not read as one. If it is one, read it with --mapping shopify')]);
    expect(input.issues!.some((i) => i.code === 'missing_column')).toBe(true);
  });

  it('forced with --mapping, names the profile\'s column the file lacks, on the file and on every order', async () => {
    const file = shopifyWithout('Lineitem sku', 'forced.csv');
    const result = await runValidate({ files: [file], out: at('forced.result.csv'), context, logger: silentLogger, readSettings: { mapping: resolveMappingChoice('shopify') } });
    const input = result.report.input[0]!;
    expect(input.mapping).toMatchObject({ profile: 'shopify', detected: false });
    expect(input.issues).toContainEqual(expect.objectContaining({ code: 'missing_column', column: 'productId', message: expect.stringContaining('The file has no "Lineitem sku" column, which the Shopify orders export profile (shopify) reads for productId') }));
    const orders = [...result.report.orders] as JsonOrder[];
    expect(orders.every((o) => o.status === 'invalid')).toBe(true);
    expect(orders[0]!.issues).toContainEqual(expect.objectContaining({ code: 'missing_column', message: expect.stringContaining('the column that the Shopify orders export profile (shopify) reads for productId is not in the file') }));
  });

  it('is off with --mapping none: the export is read with the template\'s columns', async () => {
    const result = await runValidate({ files: [SHOPIFY], out: at('none.result.csv'), context, logger: silentLogger, readSettings: { mapping: resolveMappingChoice('none') } });
    expect(result.report.input[0]!.mapping).toBeUndefined();
    expect(result.report.input[0]!.issues!.filter((i) => i.code === 'missing_column').length).toBeGreaterThan(5);
  });

  it('leaves a sheet in template form alone, and calls two profiles that both match ambiguous', () => {
    expect(detectProfile(['customerOrderId', 'orderDate', 'name'], BUILTIN_PROFILES)).toEqual({ kind: 'none' });
    const twin = { ...BUILTIN_PROFILES[0]!, name: 'shopify-copy' };
    const headers = readFileSync(SHOPIFY, 'utf8').split('\n')[0]!.split(',');
    expect(detectProfile(headers, [BUILTIN_PROFILES[0]!, twin])).toMatchObject({ kind: 'ambiguous' });
  });
});

describe('a profile of one\'s own', () => {
  it('reads day-first dates, country names and decimal commas as it says; --date-order for the run wins', async () => {
    const profile = {
      name: 'eu-shop', label: 'EU shop export', dateOrder: 'dmy', decimalMark: 'comma',
      fields: {
        customerOrderId: { column: 'Bestellung' }, orderDate: { column: 'Datum' }, sourceOfSale: { constant: 'OtherMarketplace' }, salesTax: { column: 'MwSt' },
        fullName: { join: ['Vorname', 'Nachname'] }, addressLine1: { column: 'Strasse' }, city: { column: 'Ort' }, provinceOrState: { column: 'Land (Region)' },
        postalOrZipCode: { column: 'PLZ' }, countryCode: { column: 'Land' }, phone: { column: 'Telefon' }, productId: { column: 'Artikel' },
        customerLineItemId: { generate: 'lineNumber' }, name: { column: 'Bezeichnung' }, quantity: { column: 'Menge' }, unitPrice: { column: 'Preis' },
      },
    };
    const profileFile = at('eu-shop.json');
    writeFileSync(profileFile, JSON.stringify(profile));
    const sheet = at('eu.csv');
    writeFileSync(sheet, [
      'Bestellung;Datum;MwSt;Vorname;Nachname;Strasse;Ort;Land (Region);PLZ;Land;Telefon;Artikel;Bezeichnung;Menge;Preis',
      'B-1;18.11.2026;1,90;Anna;Schmidt;Hauptstr. 5;Berlin;BE;10115;Deutschland;+49 30 1234567;PRD-1001;Tasse;2;12,50',
      'B-1;;;;;;;;;;;PRD-1002;Teller;1;1.234,00',
      'B-2;11/19/2026;0,00;Jan;Berg;Dorfweg 1;Hamburg;HH;20095;Germany;+49 40 7654321;PRD-1003;Glas;1;3,00',
    ].join('\r\n'));
    const result = await runValidate({ files: [sheet], out: at('eu.result.csv'), context, logger: silentLogger, readSettings: { mapping: resolveMappingChoice(profileFile) } });
    const orders = [...result.report.orders] as JsonOrder[];
    expect(orders[0]).toMatchObject({ customerOrderId: 'B-1', status: 'valid' });
    expect(orders[1]!.issues).toEqual([expect.objectContaining({ row: 4, column: 'Datum', code: 'invalid_date', message: expect.stringContaining('dates in this file are read day first (date order dmy') })]);
    expect(result.report.input[0]!.notices).toEqual([expect.stringContaining("the eu-shop profile's decimalMark")]);

    const monthFirst = await runValidate({ files: [sheet], out: at('eu2.result.csv'), context: { ...context, dateOrder: 'mdy' }, logger: silentLogger, readSettings: { mapping: resolveMappingChoice(profileFile), isDateOrderForced: true } });
    const again = [...monthFirst.report.orders] as JsonOrder[];
    expect(again[0]!.issues).toEqual([expect.objectContaining({ row: 2, column: 'Datum', code: 'invalid_date', message: expect.stringContaining('--date-order dmy') })]);
    expect(again[1]!.status).toBe('valid');
  });
});
