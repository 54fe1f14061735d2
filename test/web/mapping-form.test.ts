/**
 * The web mapping form read into a profile: value maps, joins and constants become the profile file's
 * own rules (checked with the same schema), and everything wrong with a form is named beside its control.
 */
import { describe, expect, it } from 'vitest';
import { formOfProfile, profileFromForm, readForm, type FormSheet } from '../../src/web/mapping-form.js';

const HEADERS = ['Order', 'Date', 'First', 'Last', 'Street', 'Town', 'State', 'Zip', 'Tel', 'SKU', 'Item', 'Qty', 'Price', 'Tax', 'Ship Method'];
const SHEET: FormSheet = {
  headers: HEADERS,
  values: [['A-1'], [], ['Ann'], ['Lee'], [], [], [], [], [], [], [], [], [], [], ['Standard', 'Express', 'CarrierX2Day']],
  uploadId: 'abcdefgh12345678',
  sourcesOfSale: ['OtherMarketplace', 'Shop'],
};
const BASE: Record<string, string> = {
  'col-0': 'customerOrderId', 'col-1': 'orderDate', 'col-4': 'addressLine1', 'col-5': 'city', 'col-6': 'provinceOrState', 'col-7': 'postalOrZipCode', 'col-8': 'phone',
  'col-9': 'productId', 'col-10': 'name', 'col-11': 'quantity', 'col-12': 'unitPrice', 'col-13': 'salesTax', 'col-14': 'carrierId',
  'map-14-0': 'CarrierXGround', 'map-14-1': 'CarrierXOvernight',
  'join-0-field': 'fullName', 'join-0-0': '2', 'join-0-1': '3',
  'const-0-field': 'countryCode', 'const-0-value': 'de', 'const-sourceOfSale': 'Shop', lineNumbers: '1', dateOrder: 'dmy', decimalMark: 'comma',
};
const build = (body: Record<string, string>, sheet = SHEET) => profileFromForm(readForm(body, sheet), sheet);

describe('the mapping form as a profile', () => {
  it('turns a value map, a join and a constant into the profile\'s rules', () => {
    const built = build({ ...BASE, name: 'acme' });
    expect('profile' in built && built.isSaved).toBe(true);
    if (!('profile' in built)) return;
    expect(built.profile).toMatchObject({ name: 'acme', label: 'acme export', dateOrder: 'dmy', decimalMark: 'comma' });
    expect(built.profile.fields).toMatchObject({
      carrierId: { column: 'Ship Method', values: { Standard: 'CarrierXGround', Express: 'CarrierXOvernight' } },
      fullName: { join: ['First', 'Last'] },
      countryCode: { constant: 'DE' },
      sourceOfSale: { constant: 'Shop' },
      customerLineItemId: { generate: 'lineNumber' },
    });
    // The page filled in from that profile shows the same choices again.
    const again = formOfProfile(built.profile, SHEET);
    expect(again.joins[0]).toEqual({ field: 'fullName', columns: [2, 3], separator: 'space' });
    expect(again.constants[0]).toEqual({ field: 'countryCode', value: 'DE' });
    expect([...again.maps.get(14)!]).toEqual([['Standard', 'CarrierXGround'], ['Express', 'CarrierXOvernight']]);
  });

  it('names each bad control: an unmapped carrier value, a join of one column, a bad constant, a field fed twice', () => {
    const built = build({ ...BASE, 'map-14-1': '', 'join-0-1': '', 'const-0-value': 'Germany', 'const-1-field': 'carrierId', 'const-1-value': 'Fast', 'col-2': 'city' });
    expect('errors' in built && built.errors).toEqual([
      { control: 'col-5', message: 'Each field takes one source: city is chosen for "First" and for "Town". Keep one of them.' },
      { control: 'map-14-1', message: 'carrierId from "Ship Method": "Express" is not one of CarrierXGround, CarrierX2Day, CarrierXOvernight. Choose the carrierId it stands for.' },
      { control: 'join-0-1', message: 'Joined columns, row 1: fullName joins two columns or more: choose the second.' },
      { control: 'const-0-value', message: 'Constant, row 1: countryCode is a two-letter ISO 3166 code (US, DE, FR): "GERMANY" is not one.' },
      { control: 'const-1-value', message: 'Constant, row 2: carrierId is one of CarrierXGround, CarrierX2Day, CarrierXOvernight: "Fast" is not.' },
      { control: '', message: 'Every order needs fullName, countryCode: choose the column that feeds each, or give a constant.' },
    ]);
  });

  it('refuses a constant for a field a column feeds, a line-level constant, and a constant with no field', () => {
    const built = build({ ...BASE, 'const-1-field': 'phone', 'const-1-value': '555', 'const-2-field': 'quantity', 'const-2-value': '1' });
    expect('errors' in built && built.errors.map((e) => e.control)).toEqual(['const-1-field', 'const-2-field']);
    const orphan = build({ ...BASE, 'const-1-value': 'x' });
    expect('errors' in orphan && orphan.errors).toEqual([{ control: 'const-1-field', message: 'Constant, row 2: choose the field "x" is the value of.' }]);
  });

  it('keeps the finer rules of the profile it changes when the same column is chosen', () => {
    const base = { name: 'shop', label: 'Shop export', totals: 'computed' as const, fields: { unitPrice: { column: 'Price', perUnit: true }, salesTax: { column: 'Tax', sum: true } } };
    const built = build({ ...BASE, 'col-13': '' , 'const-1-field': 'salesTax', 'const-1-value': '0' }, { ...SHEET, base });
    expect('profile' in built && built.profile).toMatchObject({ totals: 'computed', fields: { unitPrice: { column: 'Price', perUnit: true }, salesTax: { constant: '0' } } });
  });
});
