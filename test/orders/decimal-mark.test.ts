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
