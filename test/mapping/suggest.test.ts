/**
 * Guesses for a header row nobody mapped: who a column is about decides what it may feed, and a
 * draft round-trips through its JSON file and reads the sheet the way it was suggested.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileProfile } from '../../src/mapping/compile.js';
import { formatProfile, parseProfileText, type ColumnRule } from '../../src/mapping/profile.js';
import { suggestProfile } from '../../src/mapping/suggest.js';
import { COLUMNS, FIELDS, type Field } from '../../src/sheet/columns.js';

const guessOf = (headers: string[], field: Field, samples?: string[][]) => suggestProfile({ headers, ...(samples && { samples }) }).guesses.find((g) => g.field === field)?.header;

describe('who a column is about', () => {
  it('never offers a recipient\'s column for the shipper\'s fields, nor the reverse', () => {
    const headers = ['Shipping Name', 'Shipping Phone', 'Shipper Name', 'Sender Phone'];
    expect(guessOf(headers, 'fullName')).toBe('Shipping Name');
    expect(guessOf(headers, 'phone')).toBe('Shipping Phone');
    expect(guessOf(headers, 'shippingContactName')).toBe('Shipper Name');
    expect(guessOf(headers, 'shippingContactPhoneNumber')).toBe('Sender Phone');
    expect(guessOf(['Shipping Name', 'Shipping Phone'], 'shippingContactName')).toBeUndefined();
    expect(guessOf(['Shipping Name', 'Shipping Phone'], 'shippingContactPhoneNumber')).toBeUndefined();
    expect(guessOf(['Sender Name', 'Sender Phone'], 'fullName')).toBeUndefined();
    expect(guessOf(['Sender Name', 'Sender Phone'], 'phone')).toBeUndefined();
  });

  it('never offers the buyer\'s (billing) columns for the recipient', () => {
    const headers = ['Billing Name', 'Billing Address1', 'Billing Zip', 'Billing Phone', 'Shipping Address1', 'Shipping Zip'];
    expect(guessOf(headers, 'fullName')).toBeUndefined();
    expect(guessOf(headers, 'phone')).toBeUndefined();
    expect(guessOf(headers, 'addressLine1')).toBe('Shipping Address1');
    expect(guessOf(headers, 'postalOrZipCode')).toBe('Shipping Zip');
  });

  it("never takes the buyer's name for the recipient's, even where the buyer's column comes first (eBay)", () => {
    const ebay = ['Sales Record Number', 'Order Number', 'Buyer Username', 'Buyer Name', 'Buyer Email', 'Ship To Name', 'Ship To Phone', 'Ship To Address 1', 'Ship To City'];
    const draft = suggestProfile({ headers: ebay });
    expect(draft.profile.fields.fullName).toEqual({ column: 'Ship To Name' });
    expect(draft.guesses.find((g) => g.field === 'fullName')?.confidence).toBe('exact');
    expect(guessOf(['Order Number', 'Buyer Name', 'BUYER_NAME'], 'fullName')).toBeUndefined();
    expect(guessOf(['Order Number', 'buyername'], 'fullName')).toBeUndefined();
    // The email is the one field a buyer's column may feed (the only one most marketplaces export), after any other.
    expect(guessOf(ebay, 'email')).toBe('Buyer Email');
    expect(guessOf(['Buyer Email', 'Ship To Email'], 'email')).toBe('Ship To Email');
  });

  it('names both columns when two fit a field equally well, and picks neither', () => {
    const draft = suggestProfile({ headers: ['Order Number', 'Ship To Name', 'Recipient Name', 'Qty'] });
    const guess = draft.guesses.find((g) => g.field === 'fullName')!;
    expect(guess).toMatchObject({ confidence: 'ambiguous', header: 'Ship To Name', rivals: [{ column: 2, header: 'Recipient Name' }] });
    expect(draft.profile.fields.fullName).toBeUndefined();
    expect(draft.missing).not.toContain('fullName');
    expect(draft.profile.notes).toContain('fullName: AMBIGUOUS, "Ship To Name" and "Recipient Name" fit it equally well; keep the right one: "fullName": { "column": "..." }');
    // Neither column is offered for another field instead.
    expect(draft.guesses.filter((g) => g.column === 1 || g.column === 2).map((g) => g.field)).toEqual(['fullName']);
    // Scored guesses too: two equally good order-date columns.
    expect(suggestProfile({ headers: ['Created At', 'Date Created'] }).guesses[0]).toMatchObject({ field: 'orderDate', confidence: 'ambiguous' });
  });

  it('never reads a bare Name as the item name; with order numbers in it, it is the order ID', () => {
    expect(guessOf(['Name', 'Lineitem name'], 'name', [['#1041', '#1042'], ['Mug']])).toBe('Lineitem name');
    expect(guessOf(['Name', 'Lineitem name'], 'customerOrderId', [['#1041', '#1042'], ['Mug']])).toBe('Name');
    expect(guessOf(['Name'], 'name', [['Ceramic mug']])).toBeUndefined();
    // The template's own columns: beside customerOrderId, `name` is the item's name.
    expect(guessOf(['customerOrderId', 'name'], 'name', [['SO-1'], ['Ceramic mug']])).toBe('name');
  });

  it('says what is still missing and fills what a profile can: a constant source of sale, line numbers', () => {
    const draft = suggestProfile({ headers: ['Order Number', 'Qty'] });
    expect(draft.missing).toEqual(['orderDate', 'salesTax', 'fullName', 'addressLine1', 'city', 'provinceOrState', 'postalOrZipCode', 'countryCode', 'phone', 'productId', 'name', 'unitPrice']);
    expect(draft.profile.fields.sourceOfSale).toEqual({ constant: 'OtherMarketplace' });
    expect(draft.profile.fields.customerLineItemId).toEqual({ generate: 'lineNumber' });
  });
});

describe("what a sheet's values say", () => {
  const headers = ['Order Number', 'Order Date', 'Ship To Name', 'Qty', 'Unit Price', 'Tax'];
  const draftOf = (rows: string[][], name = 'shop') => suggestProfile({ headers, rows, name }).profile;

  it('reads the date order and the decimal mark from the values, and writes them into the draft', () => {
    const eu = draftOf([['A-1', '24.11.2026', 'Ann', '1', '12,50', '2,38'], ['A-2', '05.11.2026', 'Bo', '2', '3,10', '0,59']]);
    expect(eu).toMatchObject({ dateOrder: 'dmy', decimalMark: 'comma' });
    expect(eu.notes).toEqual(expect.arrayContaining(['dateOrder: dates such as 24.11.2026 are written day first', 'decimalMark: amounts such as "2,38" are written with a decimal comma']));
    const us = draftOf([['A-1', '11/24/2026', 'Ann', '1', '12.50', '1.03']]);
    expect(us.dateOrder).toBe('mdy');
    expect(us.decimalMark).toBeUndefined();
    expect(draftOf([['A-1', 'Nov-18-26', 'Ann', '1', '12.50', '1.03']]).dateFormat).toBe('MMM-DD-YY');
  });

  it("proposes sum for an order's amount that differs between its lines, and nothing when it repeats", () => {
    const perItem = draftOf([['A-1', '2026-11-18', 'Ann', '1', '5.00', '0.83'], ['A-1', '2026-11-18', 'Ann', '1', '3.00', '0.25']]);
    expect(perItem.fields.salesTax).toEqual({ column: 'Tax', sum: true });
    expect(perItem.notes).toContainEqual(expect.stringContaining('salesTax: order A-1 has 0.83 and 0.25 on its lines'));
    const repeated = draftOf([['A-1', '2026-11-18', 'Ann', '1', '5.00', '1.08'], ['A-1', '2026-11-18', 'Ann', '1', '3.00', '1.08']]);
    expect(repeated.fields.salesTax).toEqual({ column: 'Tax' });
  });

  it('labels the draft as its output names it', () => {
    expect(draftOf([], 'etsy-export').label).toBe('Etsy export');
    expect(draftOf([], 'acme_orders').label).toBe('Acme orders export');
  });
});

/** Ways people write a field's name or alias: as is, spaced words, snake_case, kebab-case, upper case. */
function spellings(name: string): string[] {
  const words = name.replace(/([a-z])([A-Z])/g, '$1 $2').split(' ');
  return [name, words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join(' '), words.join('_').toLowerCase(), words.join('-').toLowerCase(), name.toUpperCase()];
}

const DISTRACTORS = ['Billing Name', 'Billing Phone', 'Billing City', 'Billing Zip', 'Notes', 'Tags', 'Payment Method', 'Fulfillment Status'];

describe('a profile round-trips through mapping suggest', () => {
  it('for any sheet whose columns name fields (any spelling, any order, among billing and other columns)', () => {
    // A bare `name` is the one header whose field depends on the rest of the sheet (tested above).
    const column = fc.constantFrom(...COLUMNS).chain((def) => fc.constantFrom(...[def.field, ...def.aliases].filter((a) => a !== 'name').flatMap(spellings)).map((header) => ({ field: def.field, header })));
    const sheet = fc.tuple(fc.uniqueArray(column, { selector: (c) => c.field, minLength: 1, maxLength: 20 }), fc.subarray(DISTRACTORS)).chain(([columns, distractors]) =>
      fc.shuffledSubarray([...columns.map((c) => ({ ...c, isField: true })), ...distractors.map((header) => ({ field: null, header, isField: false }))], { minLength: columns.length + distractors.length }),
    );
    fc.assert(
      fc.property(sheet, (columns) => {
        const headers = columns.map((c) => c.header);
        const draft = suggestProfile({ headers, name: 'sheet' });
        // Every field's column is found, and nothing else is read from a column.
        const expected = Object.fromEntries(columns.filter((c) => c.isField).map((c) => [c.field, c.header]));
        const found = Object.fromEntries(FIELDS.flatMap((f) => {
          const rule = draft.profile.fields[f];
          return rule !== undefined && 'column' in rule ? [[f, (rule as ColumnRule).column]] : [];
        }));
        expect(found).toEqual(expected);
        // Its JSON file reads back as the same profile, and reads the sheet as suggested.
        const again = parseProfileText(formatProfile(draft.profile), 'draft.json');
        expect(again).toEqual(draft.profile);
        const compiled = compileProfile(again, headers);
        for (const d of compiled.derived) if ('column' in d.rule) expect(headers[d.sources[0]!]).toBe(expected[d.field]);
        // And suggesting from the draft's own columns gives the draft again.
        expect(suggestProfile({ headers, name: 'sheet' }).profile).toEqual(draft.profile);
      }),
      { numRuns: 200 },
    );
  });
});
