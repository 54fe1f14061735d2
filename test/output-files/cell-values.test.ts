import { describe, expect, test } from 'vitest';
import { neutraliseFormula } from '../../src/formula-guard.js';
import { formatSheetDate, toCsvValue } from '../../src/output-files/cell-values.js';

describe('formula neutralising', () => {
  test.each([
    ['=SUM(A1:A9)', "'=SUM(A1:A9)"],
    ['=HYPERLINK("http://evil","click")', '\'=HYPERLINK("http://evil","click")'],
    ['@SUM(1)', "'@SUM(1)"],
    ['+cmd|"/c calc"!A0', '\'+cmd|"/c calc"!A0'],
    ['-2+3+cmd|"/c calc"!A0', '\'-2+3+cmd|"/c calc"!A0'],
    ['\tleading tab', "'\tleading tab"],
    ['\rleading CR', "'\rleading CR"],
    // Excel would compute these (=-688): the prefix keeps the phone as typed.
    ['+1-555-0134', "'+1-555-0134"],
    ['+1 217 555 0134', "'+1 217 555 0134"],
    ['- bullet point', "'- bullet point"],
  ])('prefixes %j with an apostrophe', (input, expected) => {
    expect(neutraliseFormula(input)).toBe(expected);
  });

  test.each(['-5', '+3.50', '-0.25', '-.5', '-$1,234.50', '+1e5', '-2.5E-3', 'hello', '', 'a=b', '02134', 'SO-10001'])(
    'leaves %j alone: a plain number or text that starts safely',
    (input) => {
      expect(neutraliseFormula(input)).toBe(input);
    },
  );
});

describe('sheet dates', () => {
  test('writes a date without a time as the day alone', () => {
    expect(formatSheetDate(new Date(Date.UTC(2026, 10, 20)))).toBe('2026-11-20');
  });

  test('writes a date and time as ISO 8601 without an offset, the wall-clock time of the sheet', () => {
    expect(formatSheetDate(new Date(Date.UTC(2026, 10, 20, 14, 30)))).toBe('2026-11-20T14:30:00');
    expect(formatSheetDate(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 60)))).toBe('2026-01-02T03:04:05.060');
  });

  test('turns cells into CSV values: dates as ISO text, empty as null, the rest as read', () => {
    expect(toCsvValue(new Date(Date.UTC(2026, 10, 20)))).toBe('2026-11-20');
    expect(toCsvValue(null)).toBeNull();
    expect(toCsvValue(undefined)).toBeNull();
    expect(toCsvValue(-5)).toBe(-5);
    expect(toCsvValue(true)).toBe(true);
  });
});
