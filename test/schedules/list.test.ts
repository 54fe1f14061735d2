/** `schedules list`: what it says of each schedule, and what it keeps to itself (pure). */
import { describe, expect, it } from 'vitest';
import type { OccurrenceRecord } from '../../src/ledger/team-types.js';
import { describeNotifyTarget, describeSchedule, formatScheduleList } from '../../src/schedules/list.js';
import { toSchedules } from '../../src/schedules/schedule-config.js';

const [NIGHTLY] = toSchedules([
  { name: 'nightly', cron: '0 2 * * *', timezone: 'Europe/Berlin', command: 'import', args: ['sftp://drop:pa55@files.example.com/in/'], notify: ['mailto:ops@example.com', 'https://hooks.example.com/services/T0/B0/s3cr3t?token=x'], catchUp: '6h' },
]);
const NOW = new Date('2026-11-20T12:00:00Z');
const occurrence = (change: Partial<OccurrenceRecord>): OccurrenceRecord => ({
  schedule: 'nightly', scheduledAt: '2026-11-20T01:00:00.000Z', kind: 'scheduled', state: 'done', host: 'batch-2 4711', starts: 1,
  startedAt: '2026-11-20T01:00:00.100Z', finishedAt: '2026-11-20T01:00:09.000Z', outcome: 'ok', exitCode: 0, summary: { accepted: 40, rejected: 0 }, runId: 'run-1', message: null, ...change,
});

describe('schedules list', () => {
  it('gives the next occurrences, the last outcome and the one running, newest first', () => {
    const running = occurrence({ scheduledAt: '2026-11-20T11:59:00.000Z', kind: 'manual', state: 'running', outcome: null, exitCode: null, summary: null });
    const entry = describeSchedule(NIGHTLY!, [running, occurrence({})], NOW);
    expect(entry.next).toEqual(['2026-11-21T01:00:00.000Z', '2026-11-22T01:00:00.000Z', '2026-11-23T01:00:00.000Z']);
    expect(entry.last).toMatchObject({ scheduledAt: '2026-11-20T01:00:00.000Z', outcome: 'ok' });
    expect(entry.running).toMatchObject({ kind: 'manual' });
    expect(formatScheduleList([entry])).toBe(
      [
        'nightly: import sftp://drop:***@files.example.com/in/',
        '  cron      0 2 * * * (Europe/Berlin), catch-up 6h',
        '  next      2026-11-21T01:00:00.000Z, 2026-11-22T01:00:00.000Z, 2026-11-23T01:00:00.000Z',
        '  running   the occurrence of 2026-11-20T11:59:00.000Z on batch-2 4711',
        '  last      2026-11-20T01:00:00.000Z ok (exit 0: 40 accepted) on batch-2 4711, run run-1',
        '',
      ].join('\n'),
    );
  });

  it('says why an occurrence did not go well, and that a schedule has not run yet', () => {
    const missed = occurrence({ state: 'missed', outcome: 'missed', exitCode: null, summary: null, host: null, runId: null, message: 'no instance was running within its catch-up window (6h)' });
    expect(formatScheduleList([describeSchedule(NIGHTLY!, [missed], NOW)])).toContain('  last      2026-11-20T01:00:00.000Z missed: no instance was running within its catch-up window (6h)\n');
    expect(formatScheduleList([describeSchedule(NIGHTLY!, [], NOW)])).toContain('  last      none yet\n');
    expect(formatScheduleList([])).toBe('No schedules: add them to the config file\'s "schedules" (see docs/schedules.md).\n');
  });

  it('shows a webhook by its origin alone, its path and query being its secret', () => {
    expect(describeSchedule(NIGHTLY!, [], NOW).notify).toEqual(['mailto:ops@example.com', 'https://hooks.example.com/…']);
    expect(describeNotifyTarget('http://10.0.0.5:8080')).toBe('http://10.0.0.5:8080');
  });
});
