/**
 * --all asks the API to list orders by whole days (lastDays, 1 to 365). --hours and --since are
 * honoured with it, as the window rounded up to whole days, and the run says so (Summary sheet and
 * log) instead of silently listing a different window than the one asked for.
 */
import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { silentLogger } from '../../src/log.js';
import { listWindowOf, resolveSince, selectOrders } from '../../src/reconcile/select.js';
import type { ApiReader } from '../../src/reconcile/fetch.js';
import { nowAt } from './builders.js';

const NOW = nowAt(48);

/** A reader whose list orders records its query and lists nothing. */
function listingReader(): { reader: ApiReader; queries: unknown[] } {
  const queries: unknown[] = [];
  const reader = {
    eachListedOrder: async (query: unknown) => {
      queries.push(query);
      return 0;
    },
  } as unknown as ApiReader;
  return { reader, queries };
}

describe('listWindowOf', () => {
  it('rounds --hours up to whole days and says so', () => {
    const options = { hours: 5, now: NOW };
    expect(listWindowOf(options, resolveSince({ ...options, all: true }))).toEqual({
      lastDays: 1,
      note: '--hours 5 is rounded up to whole days, as the API lists orders by day',
    });
    expect(listWindowOf({ hours: 30, now: NOW }, resolveSince({ hours: 30, now: NOW, all: true })).lastDays).toBe(2);
  });

  it('says nothing when the window is whole days, or none was asked for', () => {
    expect(listWindowOf({ hours: 48, now: NOW }, resolveSince({ hours: 48, now: NOW, all: true }))).toEqual({ lastDays: 2, note: '' });
    expect(listWindowOf({ now: NOW }, resolveSince({ now: NOW, all: true }))).toEqual({ lastDays: 30, note: '' });
  });

  it('caps a longer window at the 365 days the API lists, and says so', () => {
    const since = new Date(NOW.getTime() - 400 * 86_400_000);
    expect(listWindowOf({ since, now: NOW }, since)).toEqual({
      lastDays: 365,
      note: `--since ${since.toISOString()} is capped at the 365 days the API lists at most`,
    });
  });
});

describe('reconcile --all --hours', () => {
  it('lists the last day for --hours 5, and the Summary sheet and the log say how --hours was read', async () => {
    const { reader, queries } = listingReader();
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const selection = await selectOrders({ all: true, hours: 5, now: NOW, logger }, reader);
    expect(queries).toEqual([{ lastDays: 1, orderDisposition: ['all'] }]);
    expect(selection.description).toBe('every order the API lists for the last 1 day(s) (--hours 5 is rounded up to whole days, as the API lists orders by day) (order dispositions: all)');
    expect(lines.join('')).toContain('--all lists the orders of the last 1 day(s): --hours 5 is rounded up to whole days');
  });

  it('keeps the description as it was when no window was asked for', async () => {
    const { reader, queries } = listingReader();
    const selection = await selectOrders({ all: true, now: NOW, logger: silentLogger }, reader);
    expect(queries).toEqual([{ lastDays: 30, orderDisposition: ['all'] }]);
    expect(selection.description).toBe('every order the API lists for the last 30 day(s) (order dispositions: all)');
  });
});
