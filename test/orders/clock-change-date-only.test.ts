/**
 * ambiguous_time is for a date-time the zone's clocks skip or repeat. A date-only orderDate is the
 * start of that day, also where the clocks change at midnight (America/Santiago): no warning.
 */
import { describe, expect, it } from 'vitest';
import { checkOne, contextAt, issuesWith, validRow } from './support.js';

describe('a date-only orderDate on a day whose midnight is skipped', () => {
  it('is the start of that day, with no ambiguous_time warning (no time was written)', async () => {
    const order = await checkOne([validRow({ orderDate: '2026-09-06' })], contextAt(new Date('2026-09-07T12:00:00Z'), { timezone: 'America/Santiago' }));
    expect(order.status).toBe('valid');
    expect(issuesWith(order, 'ambiguous_time').map((i) => i.message)).toEqual([]);
  });
});
