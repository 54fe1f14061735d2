import { describe, expect, it } from 'vitest';
import { cleanText, detach, isScientificNotation, textFromCell } from '../../src/orders/text.js';
import { checkUsPostalCode } from '../../src/orders/postal.js';

describe('cleanText', () => {
  it('trims ordinary and Unicode spaces at the ends', () => {
    expect(cleanText('  Maria Lopez \t')).toBe('Maria Lopez');
    expect(cleanText('\u00a0\u3000Maria\u00a0')).toBe('Maria');
    expect(cleanText('\ufeffSO-1')).toBe('SO-1');
  });

  it('turns Unicode spaces inside into plain spaces and keeps runs as they are', () => {
    expect(cleanText('123\u00a0Main\u2009St')).toBe('123 Main St');
    expect(cleanText('Apt  4B')).toBe('Apt  4B');
    expect(cleanText('Maria\u00a0\u00a0Lopez')).toBe('Maria  Lopez');
  });

  it('drops zero-width characters and keeps other letters', () => {
    expect(cleanText('SO\u200b-1')).toBe('SO-1');
    expect(cleanText('Zoë Müller')).toBe('Zoë Müller');
  });
});

describe('isScientificNotation', () => {
  it.each(['1.23457E+10', '1E+15', '5.55E+09', '-1.2e+5'])('recognises %j', (text) => {
    expect(isScientificNotation(text)).toBe(true);
  });
  it.each(['12E3', 'PRD-1E+5', '1.2E-05', '2175550134', 'E+10'])('leaves %j alone', (text) => {
    expect(isScientificNotation(text)).toBe(false);
  });
});

describe('textFromCell', () => {
  it('reads whole numbers as their digits and refuses what may have lost digits', () => {
    expect(textFromCell(2175550134, true)).toEqual({ kind: 'text', text: '2175550134', fromNumber: true });
    expect(textFromCell(999_999_999_999_999, true)).toMatchObject({ kind: 'text' });
    expect(textFromCell(1e15, true)).toMatchObject({ kind: 'scientific' });
    expect(textFromCell(12.5, false)).toEqual({ kind: 'text', text: '12.5', fromNumber: true });
  });

  it('reads booleans and date cells as the sheet shows them', () => {
    expect(textFromCell(true, false)).toMatchObject({ text: 'TRUE' });
    expect(textFromCell(new Date(Date.UTC(2026, 10, 20)), false)).toMatchObject({ text: '2026-11-20' });
    expect(textFromCell(new Date(Date.UTC(2026, 10, 20, 14, 30)), false)).toMatchObject({ text: '2026-11-20 14:30:00' });
  });

  it('sees blank text as blank', () => {
    expect(textFromCell(' \u00a0 ', false)).toEqual({ kind: 'blank' });
    expect(textFromCell(null, false)).toEqual({ kind: 'blank' });
  });
});

describe('detach', () => {
  it('returns the same text', () => {
    const long = 'x'.repeat(100).slice(10, 60);
    expect(detach(long)).toBe(long);
    expect(detach('short')).toBe('short');
  });
});

describe('checkUsPostalCode', () => {
  it('pads 3 and 4 digits and warns', () => {
    expect(checkUsPostalCode('501', 'zip')).toMatchObject({ value: '00501', problem: { code: 'postal_code_padded', isError: false } });
    expect(checkUsPostalCode('2134', 'zip')).toMatchObject({ value: '02134', problem: { code: 'postal_code_padded' } });
  });

  it('suggests the dashed ZIP+4 for 7 to 9 digits', () => {
    expect(checkUsPostalCode('21341234', 'zip').problem?.message).toContain('02134-1234');
    expect(checkUsPostalCode('021341234', 'zip').problem).toMatchObject({ code: 'invalid_postal_code', isError: true });
  });

  it('explains what a US ZIP looks like otherwise', () => {
    expect(checkUsPostalCode('12', 'zip').problem?.message).toBe('ZIP code "12" is not a US ZIP: use 5 digits, like 01234, or ZIP+4 like 01234-5678.');
  });
});
