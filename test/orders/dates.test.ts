import { describe, expect, it } from 'vitest';
import { DateReader, excelSerialToWallClock, parseCommonIso, wallClockMs } from '../../src/orders/dates.js';

const iso = (ms: number): string => (Number.isNaN(ms) ? 'NaN' : new Date(ms).toISOString());

describe('DateReader in UTC', () => {
  const reader = new DateReader('UTC');
  const read = (text: string): string => iso(reader.read(text, text));

  it.each([
    ['2026-11-20', '2026-11-20T00:00:00.000Z'],
    ['2026-11-20 14:30', '2026-11-20T14:30:00.000Z'],
    ['2026-11-20 14:30:15', '2026-11-20T14:30:15.000Z'],
    ['2026-11-20T14:30', '2026-11-20T14:30:00.000Z'],
    ['2026-11-20T14:30:00Z', '2026-11-20T14:30:00.000Z'],
    ['2026-11-20T14:30:00.123Z', '2026-11-20T14:30:00.123Z'],
    ['2026-11-20T14:30:00+01:00', '2026-11-20T13:30:00.000Z'],
    ['2026-11-20T14:30:00-0500', '2026-11-20T19:30:00.000Z'],
    ['2026-11-20 14:30 -05', '2026-11-20T19:30:00.000Z'],
    ['2026/11/20', '2026-11-20T00:00:00.000Z'],
    ['11/20/2026', '2026-11-20T00:00:00.000Z'],
    ['1/2/2026', '2026-01-02T00:00:00.000Z'],
    ['11/20/2026 2:30 PM', '2026-11-20T14:30:00.000Z'],
    ['11/20/2026 12:05 am', '2026-11-20T00:05:00.000Z'],
    ['11/20/2026 12:05 PM', '2026-11-20T12:05:00.000Z'],
    ['11/20/2026 14:30', '2026-11-20T14:30:00.000Z'],
    ['11/20/26', '2026-11-20T00:00:00.000Z'],
    ['46000', '2025-12-09T00:00:00.000Z'],
    ['46000.5', '2025-12-09T12:00:00.000Z'],
    ['2024-02-29', '2024-02-29T00:00:00.000Z'],
  ])('reads %j as %s', (text, expected) => {
    expect(read(text)).toBe(expected);
  });

  it.each(['2026-02-29', '2026-13-01', '2026-11-31', '2026-11-20 24:00', '2026-11-20 14:60', '13/20/2026', '20/11/2026', '11/20/2026 13:00 PM', '2026-11-20Z', 'tomorrow', '20261120', ''])(
    'refuses %j',
    (text) => {
      expect(read(text)).toBe('NaN');
    },
  );

  it('reads the same text the same way twice (from its cache)', () => {
    expect(read('2026-11-20 08:00')).toBe(read('2026-11-20 08:00'));
  });
});

describe('DateReader in America/New_York', () => {
  const reader = new DateReader('America/New_York');
  const read = (value: string | number | Date): string => iso(reader.read(value, typeof value === 'string' ? value : ''));

  it('reads a date-time without an offset as New York wall-clock time', () => {
    expect(read('2026-11-20 14:30')).toBe('2026-11-20T19:30:00.000Z'); // EST, UTC-5
    expect(read('2026-07-04 09:00')).toBe('2026-07-04T13:00:00.000Z'); // EDT, UTC-4
  });

  it('reads a date alone as the start of that day in New York', () => {
    expect(read('2026-11-20')).toBe('2026-11-20T05:00:00.000Z');
  });

  it('keeps an explicit offset as written', () => {
    expect(read('2026-11-20T14:30:00Z')).toBe('2026-11-20T14:30:00.000Z');
  });

  it('reads xlsx date cells by their wall clock (UTC fields) in the zone', () => {
    expect(read(new Date(Date.UTC(2026, 6, 4, 9, 0)))).toBe('2026-07-04T13:00:00.000Z');
  });

  it('reads Excel serial numbers in number cells in the zone', () => {
    expect(read(46000.5)).toBe('2025-12-09T17:00:00.000Z');
  });

  it('handles the days clocks change', () => {
    expect(read('2026-03-08 01:30')).toBe('2026-03-08T06:30:00.000Z'); // before the jump, EST
    expect(read('2026-03-08 03:30')).toBe('2026-03-08T07:30:00.000Z'); // after it, EDT
    expect(read('2026-11-01 00:30')).toBe('2026-11-01T04:30:00.000Z'); // EDT, before falling back
    expect(read('2026-11-01 03:00')).toBe('2026-11-01T08:00:00.000Z'); // EST
  });
});

describe('excelSerialToWallClock', () => {
  it('counts from 1900-01-01 as serial 1', () => {
    expect(iso(excelSerialToWallClock(1))).toBe('1900-01-01T00:00:00.000Z');
    expect(iso(excelSerialToWallClock(59))).toBe('1900-02-28T00:00:00.000Z');
  });

  it('skips the 1900-02-29 that Excel invents (serial 60)', () => {
    expect(excelSerialToWallClock(60)).toBeNaN();
    expect(iso(excelSerialToWallClock(61))).toBe('1900-03-01T00:00:00.000Z');
  });

  it('reads a recent serial with its time of day', () => {
    expect(iso(excelSerialToWallClock(46346.604166666664))).toBe('2026-11-20T14:30:00.000Z');
  });

  it('refuses serials outside 1900 to 9999', () => {
    expect(excelSerialToWallClock(0)).toBeNaN();
    expect(excelSerialToWallClock(2_958_466)).toBeNaN();
    expect(excelSerialToWallClock(-3)).toBeNaN();
  });
});

describe('wallClockMs', () => {
  it('refuses days past the end of the month', () => {
    expect(wallClockMs(2026, 4, 31, 0, 0, 0, 0)).toBeNaN();
    expect(wallClockMs(2100, 2, 29, 0, 0, 0, 0)).toBeNaN();
    expect(wallClockMs(2000, 2, 29, 0, 0, 0, 0)).toBe(Date.UTC(2000, 1, 29));
  });
});

describe('DateReader.format', () => {
  it('shows an instant as wall-clock time in the zone, across a DST change', () => {
    const ny = new DateReader('America/New_York');
    expect(ny.format(Date.parse('2026-11-20T19:30:00Z'))).toBe('2026-11-20 14:30 (America/New_York)');
    expect(ny.format(Date.parse('2026-07-04T13:00:00Z'))).toBe('2026-07-04 09:00 (America/New_York)');
    expect(ny.format(Date.parse('2026-11-01T05:59:00Z'))).toBe('2026-11-01 01:59 (America/New_York)');
    expect(ny.format(Date.parse('2026-11-01T06:00:00Z'))).toBe('2026-11-01 01:00 (America/New_York)');
  });

  it('shows seconds only when there are some', () => {
    const utc = new DateReader('UTC');
    expect(utc.format(Date.parse('2026-11-20T14:30:05Z'))).toBe('2026-11-20 14:30:05 (UTC)');
    expect(utc.format(Date.parse('2026-11-20T14:30:00Z'))).toBe('2026-11-20 14:30 (UTC)');
  });

  it('reads back what it shows', () => {
    const tz = new DateReader('Asia/Kolkata');
    const ms = Date.parse('2026-11-20T09:15:00Z');
    const shown = tz.format(ms).replace(' (Asia/Kolkata)', '');
    expect(shown).toBe('2026-11-20 14:45');
    expect(tz.read(shown, shown)).toBe(ms);
  });
});

describe('parseCommonIso (the fast path)', () => {
  it('reads the everyday shapes by hand', () => {
    expect(parseCommonIso('2026-11-20')).toBe(Date.UTC(2026, 10, 20));
    expect(parseCommonIso('2026-11-20 14:30')).toBe(Date.UTC(2026, 10, 20, 14, 30));
    expect(parseCommonIso('2026-11-20T14:30:15')).toBe(Date.UTC(2026, 10, 20, 14, 30, 15));
  });

  it('tells an impossible date from another shape', () => {
    expect(parseCommonIso('2026-02-30')).toBe(-2);
    expect(parseCommonIso('2026-11-20 24:00')).toBe(-2);
    expect(parseCommonIso('2026-11-20T14:30:00Z')).toBe(-1);
    expect(parseCommonIso('11/20/2026 2:30')).toBe(-1);
    expect(parseCommonIso('2026-1x-20')).toBe(-1);
    expect(parseCommonIso('1899-12-31')).toBe(-1);
  });
});

describe('the date order', () => {
  const read = (text: string, order: 'mdy' | 'dmy') => new DateReader('UTC', order).read(text, text);

  it('reads 24.11.2026 and 24/11/2026 day first when the date order says so', () => {
    expect(new Date(read('24.11.2026', 'dmy')).toISOString()).toBe('2026-11-24T00:00:00.000Z');
    expect(new Date(read('24/11/2026 14:30', 'dmy')).toISOString()).toBe('2026-11-24T14:30:00.000Z');
    expect(new Date(read('05/11/2026', 'dmy')).toISOString()).toBe('2026-11-05T00:00:00.000Z');
    expect(new Date(read('05/11/2026', 'mdy')).toISOString()).toBe('2026-05-11T00:00:00.000Z');
  });

  it('never reads a day-first date month first: it is refused, naming the setting', () => {
    const reader = new DateReader('UTC', 'mdy');
    expect(reader.read('24.11.2026', '24.11.2026')).toBeNaN();
    expect(reader.read('5.11.2026', '5.11.2026')).toBeNaN();
    expect(reader.explainDateOrder('24.11.2026')).toContain('--date-order dmy');
    expect(reader.explainDateOrder('24/11/2026')).toContain('has 24 first, which is no month');
    expect(new DateReader('UTC', 'dmy').explainDateOrder('11/24/2026')).toContain('--date-order mdy');
    expect(reader.explainDateOrder('11/24/2026')).toBeNull();
  });
});

describe('a month-first date read day first', () => {
  it("says which number is in the month's place, in plain words", () => {
    const reader = new DateReader('UTC', 'dmy');
    expect(reader.explainDateOrder('11/25/2026')).toBe('"11/25/2026" has 25 in the month\'s place (the second number), and there is no month 25, but dates in this file are read day first (date order dmy, from --date-order or the mapping profile). If the file writes the month first, read it with --date-order mdy.');
  });

  it('reads a named form strictly, only when the profile names it', () => {
    expect(new DateReader('UTC', 'mdy', 'MMM-DD-YY').read('Nov-18-26', 'Nov-18-26')).toBe(Date.UTC(2026, 10, 18));
    expect(new DateReader('UTC', 'mdy', 'MMM-DD-YY').read('Nox-18-26', 'Nox-18-26')).toBeNaN();
    expect(new DateReader('UTC', 'mdy', 'MMM-DD-YY').read('Nov-31-26', 'Nov-31-26')).toBeNaN();
    expect(new DateReader('UTC', 'mdy').read('Nov-18-26', 'Nov-18-26')).toBeNaN();
  });
});
