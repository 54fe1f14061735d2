import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countEvidence, decideDecimalMark, emptyCounts, markEvidenceOf, parseLocaleInteger, parseLocaleMoney } from '../../src/orders/decimal-mark.js';

describe('what a number shows of its decimal mark', () => {
  it.each([
    ['12,50', 'comma'],
    ['1.234,50', 'comma'],
    ['1 234,50', 'comma'],
    ['1\u00a0234,50', 'comma'],
    ['0,125', 'comma'],
    ['1.234.567', 'comma'],
    ['€ 12,50', 'comma'],
    ['$1,234.50', 'dot'],
    ['12.5', 'dot'],
    ['1,234,567', 'dot'],
    ['(12.00)', 'dot'],
    ['1,234', 'ambiguous'],
    ['1.000', 'ambiguous'],
    ['1234', 'none'],
    ['abc', 'none'],
  ])('%j shows %s', (text, evidence) => {
    expect(markEvidenceOf(text)).toBe(evidence);
  });
});

describe('reading amounts by the decimal mark', () => {
  it.each([
    ['12,50', null, 1250],
    ['1.234,50', null, 123450],
    ['1 234,50', null, 123450],
    ['$1,234.50', null, 123450],
    ['-12,50', null, -1250],
    ['12,50 €', null, 1250],
    ['1,234', 'dot', 123400],
    ['1.234', 'comma', 123400],
    ['1,234', null, 'ambiguous'],
    ['1,234', 'comma', 'decimals'],
    ['12', null, 1200],
    ['12,,50', 'comma', 'grouping'],
    ['7,0,0', 'comma', 'grouping'],
    ['12,,50', null, 'grouping'],
    ['1.23.4', null, 'grouping'],
    ['12 34,50', 'comma', 'grouping'],
    ['1.234.56', 'comma', 'grouping'],
    ['1,234,5', 'dot', 'grouping'],
    ['12,', 'comma', 'grouping'],
    ['1.234,567,89', null, 'grouping'],
    ['12.50', 'comma', 'other_mark'],
    ['12,50', 'dot', 'other_mark'],
  ] as const)('%j with the file mark %s is %j', (text, mark, expected) => {
    expect(parseLocaleMoney(text, mark)).toBe(expected);
  });

  it('reads quantities the same way: "1.000" is a thousand where the comma is the decimal mark', () => {
    expect(parseLocaleInteger('1.000', 'comma')).toBe(1000);
    expect(parseLocaleInteger('1,000', 'dot')).toBe(1000);
    expect(parseLocaleInteger('1,000', null)).toBe('ambiguous');
    expect(parseLocaleInteger('2', null)).toBe(2);
  });
});

/** Whole part digits, thousands groups, decimals: a number's pieces, before it is written with marks. */
const digitRun = (min: number, max: number) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: min, maxLength: max });

describe('numbers whose marks cannot make a number', () => {
  const MARKS = [null, 'dot', 'comma'] as const;
  /** A separator a number may contain: either mark, or a space that groups thousands. */
  const separator = fc.constantFrom(',', '.', ' ');

  it('are never read, whatever the file mark: a group that is not three digits, or a mark doubled', () => {
    // Pieces joined by separators, with at least one thing wrong that no locale allows: a later group
    // (not the last piece, which may be decimals) not of three digits, or an empty piece between two marks.
    const malformed = fc.tuple(digitRun(1, 3), fc.array(fc.tuple(separator, digitRun(0, 5)), { minLength: 2, maxLength: 5 })).filter(([first, rest]) => {
      const middle = rest.slice(0, -1);
      return middle.some(([, digits]) => digits.length !== 3) && first[0] !== '0';
    }).map(([first, rest]) => first + rest.map(([sep, digits]) => sep + digits).join('')).filter((text) => text === text.trim()); // a trailing space is trimmed, as in any cell
    fc.assert(
      fc.property(malformed, fc.constantFrom(...MARKS), fc.constantFrom('', '$', '-'), (text, mark, prefix) => {
        const written = prefix + text;
        const money = parseLocaleMoney(written, mark);
        const quantity = parseLocaleInteger(written, mark);
        expect(typeof money, `${written} with ${mark}`).not.toBe('number');
        expect(typeof quantity, `${written} with ${mark}`).not.toBe('number');
      }),
      { numRuns: 2000 },
    );
  });

  it('are read to the exact cents when grouped by three with one decimal mark', () => {
    const amount = fc.tuple(fc.integer({ min: 1, max: 999 }), fc.array(digitRun(3, 3), { maxLength: 2 }), digitRun(2, 2), fc.constantFrom('dot', 'comma') as fc.Arbitrary<'dot' | 'comma'>, fc.boolean());
    fc.assert(
      fc.property(amount, ([first, groups, cents, mark, spaces]) => {
        const group = spaces ? ' ' : mark === 'comma' ? '.' : ',';
        const decimal = mark === 'comma' ? ',' : '.';
        const text = [String(first), ...groups].join(group) + decimal + cents;
        expect(parseLocaleMoney(text, mark)).toBe(Number(String(first) + groups.join('') + cents));
        if (groups.length > 0) expect(parseLocaleMoney(text, null)).toBe(Number(String(first) + groups.join('') + cents));
      }),
    );
  });
});

describe("deciding a file's decimal mark once", () => {
  const counted = (...texts: string[]) => {
    const counts = emptyCounts();
    for (const t of texts) countEvidence(counts, t);
    return counts;
  };

  it('takes the mark its unambiguous amounts agree on', () => {
    expect(decideDecimalMark('f.csv', counted('12,50', '1,234', '3,10')).mark).toBe('comma');
    expect(decideDecimalMark('f.csv', counted('12.50', '1,234')).mark).toBe('dot');
  });

  it('says nothing when only plain numbers are there', () => {
    expect(decideDecimalMark('f.csv', counted('12', '3'))).toEqual({ mark: null, statement: null, isUndecided: false });
  });

  it('leaves 1,234 undecided, explained once, when amounts use both marks', () => {
    const decision = decideDecimalMark('f.csv', counted('12,50', '12.50', '1,234'));
    expect(decision.mark).toBeNull();
    expect(decision.isUndecided).toBe(true);
    expect(decision.statement).toContain('its amounts use both marks (1 with a decimal comma, 1 with a decimal point)');
  });

  it('follows a setting over the file', () => {
    expect(decideDecimalMark('f.csv', counted('12.50'), { mark: 'comma', by: '--decimal-comma' }).mark).toBe('comma');
  });
});
