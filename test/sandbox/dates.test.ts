import { describe, expect, it } from 'vitest';
import { hasUtcOffset, isRegionRedacted, parseApiInstant } from '../../src/sandbox/dates.js';

describe('reading API date-times', () => {
  it('reads offsets, and no offset as UTC', () => {
    expect(parseApiInstant('2031-03-10T10:00:00Z')).toBe(Date.UTC(2031, 2, 10, 10));
    expect(parseApiInstant('2031-03-10T10:00:00+02:00')).toBe(Date.UTC(2031, 2, 10, 8));
    expect(parseApiInstant('2031-03-10T10:00:00-0500')).toBe(Date.UTC(2031, 2, 10, 15));
    expect(parseApiInstant('2031-03-10T10:00:00')).toBe(Date.UTC(2031, 2, 10, 10));
    expect(parseApiInstant('2031-03-10')).toBe(Date.UTC(2031, 2, 10));
    expect(parseApiInstant('2031-03-10T10:00:00.123456Z')).toBe(Date.UTC(2031, 2, 10, 10, 0, 0, 123));
  });

  it('refuses impossible calendar dates and other text', () => {
    for (const text of ['2031-02-29', '2031-13-01', '2031-03-10T25:00:00Z', 'March 10', '']) expect(parseApiInstant(text)).toBeNull();
  });

  it('tells a date-time with an offset from one without', () => {
    expect(hasUtcOffset('2031-03-10T10:00:00Z')).toBe(true);
    expect(hasUtcOffset('2031-03-10T10:00:00+01:00')).toBe(true);
    expect(hasUtcOffset('2031-03-10T10:00:00')).toBe(false);
    expect(hasUtcOffset('2031-03-10Z')).toBe(false);
  });

  it('redacts from midnight UTC of the 30th day after the creation day', () => {
    const created = Date.UTC(2031, 0, 1, 23, 59);
    expect(isRegionRedacted(created, Date.UTC(2031, 0, 30, 23, 59, 59, 999))).toBe(false);
    expect(isRegionRedacted(created, Date.UTC(2031, 0, 31))).toBe(true);
  });
});
