/**
 * A date-time without an offset that --timezone's clocks skip (spring forward) or show twice (fall
 * back) is read, with an ambiguous_time warning naming the row and column and the instant taken.
 */
import { describe, expect, it } from 'vitest';
import { DateReader } from '../../src/orders/dates.js';
import { checkOne, contextAt, issuesWith, laterRow, validRow } from './support.js';

const LA = 'America/Los_Angeles';

describe('DateReader on a daylight-saving change', () => {
  const reader = new DateReader(LA);
  const read = (text: string) => {
    const ms = reader.read(text, text);
    return { iso: new Date(ms).toISOString(), change: reader.lastClockChange };
  };

  it('reports a time the clocks skip, and takes the instant an hour on', () => {
    const { iso, change } = read('2027-03-14 02:30');
    expect(iso).toBe('2027-03-14T10:30:00.000Z');
    expect(change).toEqual({ kind: 'skipped', wall: Date.UTC(2027, 2, 14, 2, 30), taken: Date.UTC(2027, 2, 14, 10, 30) });
  });

  it('reports a time the clocks show twice, with both instants', () => {
    const { iso, change } = read('11/1/2026 1:30 AM');
    expect(change).toEqual({ kind: 'repeated', wall: Date.UTC(2026, 10, 1, 1, 30), taken: Date.parse(iso), other: expect.any(Number) });
    expect([change!.taken, change!.other].sort()).toEqual([Date.UTC(2026, 10, 1, 8, 30), Date.UTC(2026, 10, 1, 9, 30)]);
  });

  it('reports the change on every read of the same text, and nothing for other times of that day', () => {
    expect(read('2026-11-01T01:30').change?.kind).toBe('repeated');
    expect(read('2026-11-01T01:30').change?.kind).toBe('repeated');
    expect(read('2026-11-01 03:30').change).toBeNull();
    expect(read('2026-11-01 00:30').change).toBeNull();
    expect(read('2027-03-14 03:30').change).toBeNull();
    expect(read('2026-11-01T01:30-07:00').change).toBeNull();
    expect(read('2026-11-20 14:30').change).toBeNull();
  });

  it('never reports one in UTC', () => {
    const utc = new DateReader('UTC');
    utc.read('2027-03-14 02:30', '2027-03-14 02:30');
    expect(utc.lastClockChange).toBeNull();
  });
});

describe('an orderDate on a daylight-saving change, read in --timezone', () => {
  it('warns that a skipped time does not exist, naming the row, the column and the instant taken', async () => {
    const order = await checkOne([validRow({ orderDate: '2027-03-14 02:30' })], contextAt(new Date('2027-03-20T12:00:00Z'), { timezone: LA }));
    expect(order.status).toBe('valid');
    const [warning] = issuesWith(order, 'ambiguous_time');
    expect(warning).toMatchObject({ row: 2, column: 'orderDate', severity: 'warning' });
    expect(warning!.message).toBe(
      'orderDate 2027-03-14 02:30 does not exist in America/Los_Angeles: the clocks skip that hour when daylight saving time starts. ' +
        'It was read as 2027-03-14 03:30 (-07:00), which is 2027-03-14 10:30 UTC. If another instant is meant, write the time with its UTC offset.',
    );
    expect(order.payload?.orderDetails.orderDate).toMatch(/^2027-03-14T10:30:00(\.000)?Z$/);
  });

  it('warns that a repeated time happens twice, saying which one was taken and how to name the other', async () => {
    const order = await checkOne([validRow({ orderDate: '2026-11-01 01:30', subTotal: '', grandTotal: '' }), laterRow({ orderDate: '2026-11-01 01:30' })], contextAt(new Date('2026-11-05T12:00:00Z'), { timezone: LA }));
    expect(order.status).toBe('valid');
    const warnings = issuesWith(order, 'ambiguous_time');
    // On each row whose cell holds it, as every cell warning: each cell is highlighted in the result.
    expect(warnings.map((w) => [w.row, w.column, w.severity])).toEqual([[2, 'orderDate', 'warning'], [3, 'orderDate', 'warning']]);
    expect(warnings[0]!.message).toMatch(/^orderDate 2026-11-01 01:30 happens twice in America\/Los_Angeles: the clocks go back an hour when daylight saving time ends\. It was read as 2026-11-01 01:30 \(-0[78]:00\), which is 2026-11-01 0[89]:30 UTC, the (first|second) time\. The other is 2026-11-01 01:30 \(-0[78]:00\): write the time with that offset \(like 2026-11-01T01:30-0[78]:00\) if it is meant\.$/);
  });

  it('says nothing for the same time in UTC', async () => {
    const order = await checkOne([validRow({ orderDate: '2026-11-01 01:30' })], contextAt(new Date('2026-11-05T12:00:00Z')));
    expect(issuesWith(order, 'ambiguous_time')).toEqual([]);
  });
});
