/** When occurrences fall (croner, in the schedule's zone) and what becomes of those that passed unseen. */
import { describe, expect, it } from 'vitest';
import { isWithinCatchUp, nextOccurrences, occurrencesBetween, planCatchUp } from '../../src/schedules/occurrences.js';

const iso = (dates: Date[]) => dates.map((d) => d.toISOString());
const HOUR = 3_600_000;

describe('next occurrences', () => {
  it('falls at the local time of the schedule\'s zone', () => {
    expect(iso(nextOccurrences({ cron: '0 2 * * *', timezone: 'Europe/Berlin' }, new Date('2026-11-20T12:00:00Z'), 2))).toEqual(['2026-11-21T01:00:00.000Z', '2026-11-22T01:00:00.000Z']);
  });

  it('runs a time skipped by the spring daylight-saving change once, just after the change', () => {
    // New York, 8 March 2026: 02:00 EST becomes 03:00 EDT, so 02:30 does not happen that night.
    expect(iso(nextOccurrences({ cron: '30 2 * * *', timezone: 'America/New_York' }, new Date('2026-03-07T12:00:00Z'), 3))).toEqual([
      '2026-03-08T07:00:00.000Z',
      '2026-03-09T06:30:00.000Z',
      '2026-03-10T06:30:00.000Z',
    ]);
  });

  it('runs a time that happens twice in the autumn change only once', () => {
    // New York, 1 November 2026: 01:30 happens in EDT, then again in EST an hour later.
    expect(iso(nextOccurrences({ cron: '30 1 * * *', timezone: 'America/New_York' }, new Date('2026-10-31T12:00:00Z'), 2))).toEqual(['2026-11-01T05:30:00.000Z', '2026-11-02T06:30:00.000Z']);
  });

  it('keeps an hourly schedule hourly across a change: no hour run twice, none lost', () => {
    const hours = iso(occurrencesBetween({ cron: '0 * * * *', timezone: 'Europe/Berlin' }, new Date('2026-10-24T22:30:00Z'), new Date('2026-10-25T03:30:00Z'), 100));
    expect(hours).toEqual(['2026-10-24T23:00:00.000Z', '2026-10-25T00:00:00.000Z', '2026-10-25T01:00:00.000Z', '2026-10-25T02:00:00.000Z', '2026-10-25T03:00:00.000Z']);
  });

  it('takes a cron with seconds', () => {
    expect(iso(nextOccurrences({ cron: '*/20 * * * * *', timezone: 'UTC' }, new Date('2026-11-20T12:00:05Z'), 2))).toEqual(['2026-11-20T12:00:20.000Z', '2026-11-20T12:00:40.000Z']);
  });
});

describe('the occurrences that passed', () => {
  const hourly = { cron: '0 * * * *', timezone: 'UTC' };

  it('lists them after the last one recorded, up to now inclusive, and only the newest when there are many', () => {
    const from = new Date('2026-11-20T00:00:00Z');
    expect(iso(occurrencesBetween(hourly, from, new Date('2026-11-20T03:00:00Z'), 100))).toEqual(['2026-11-20T01:00:00.000Z', '2026-11-20T02:00:00.000Z', '2026-11-20T03:00:00.000Z']);
    expect(iso(occurrencesBetween(hourly, from, new Date('2026-11-25T00:00:00Z'), 2))).toEqual(['2026-11-24T23:00:00.000Z', '2026-11-25T00:00:00.000Z']);
    expect(occurrencesBetween(hourly, from, from, 100)).toEqual([]);
  });

  it('runs the one that is due now, on time', () => {
    const due = new Date('2026-11-20T02:00:00Z');
    expect(planCatchUp([due], new Date('2026-11-20T02:00:01Z'), 6 * HOUR, 10_000)).toEqual({ run: due, missed: [], isLate: false });
  });

  it('runs the newest that passed while every instance was down, within the catch-up window, once; the older ones are missed', () => {
    const passed = [new Date('2026-11-18T02:00:00Z'), new Date('2026-11-19T02:00:00Z'), new Date('2026-11-20T02:00:00Z')];
    expect(planCatchUp(passed, new Date('2026-11-20T07:59:00Z'), 6 * HOUR, 10_000)).toEqual({ run: passed[2], missed: passed.slice(0, 2), isLate: true });
  });

  it('records every one as missed once the newest is older than the catch-up window', () => {
    const passed = [new Date('2026-11-19T02:00:00Z'), new Date('2026-11-20T02:00:00Z')];
    expect(planCatchUp(passed, new Date('2026-11-20T08:00:01Z'), 6 * HOUR, 10_000)).toEqual({ run: null, missed: passed, isLate: true });
    expect(planCatchUp([], new Date('2026-11-20T08:00:01Z'), 6 * HOUR, 10_000)).toEqual({ run: null, missed: [], isLate: false });
  });

  it('still runs an occurrence found a little late with no catch-up at all', () => {
    const due = new Date('2026-11-20T02:00:00Z');
    expect(planCatchUp([due], new Date('2026-11-20T02:00:05Z'), 0, 10_000).run).toEqual(due);
    expect(planCatchUp([due], new Date('2026-11-20T02:01:00Z'), 0, 10_000).run).toBeNull();
  });

  it('finishes an occurrence whose instance died only within its catch-up window', () => {
    const at = new Date('2026-11-20T02:00:00Z');
    expect(isWithinCatchUp(at, new Date('2026-11-20T07:00:00Z'), 6 * HOUR, 10_000)).toBe(true);
    expect(isWithinCatchUp(at, new Date('2026-11-20T08:00:01Z'), 6 * HOUR, 10_000)).toBe(false);
  });
});
