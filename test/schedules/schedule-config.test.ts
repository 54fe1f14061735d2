/** The config file's `schedules`: checked when the file is read, an error named by its place in the file. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveOptions } from '../../src/options.js';
import { parseDuration } from '../../src/schedules/schedule-config.js';
import { useTempFolders } from '../support/temp-dir.js';

const NOW = new Date('2026-11-20T12:00:00Z');
const newDir = useTempFolders('schedules');

function configText(text: string): string {
  const path = join(newDir(), 'config.json');
  writeFileSync(path, text);
  return path;
}

function schedulesOf(text: string) {
  return resolveOptions({ config: configText(text) }, {}, NOW).schedules;
}

function errorOf(text: string): string {
  try {
    schedulesOf(text);
  } catch (error) {
    return (error as Error).message.replace(/^Config file \S+: /, '');
  }
  throw new Error('no error');
}

const NIGHTLY = { name: 'nightly', cron: '0 2 * * *', timezone: 'Europe/Berlin', command: 'import', args: ['inbox/'] };

describe('the config file\'s schedules', () => {
  it('reads a schedule with its defaults: UTC, no args, no notifications, a 6 hour catch-up', () => {
    expect(schedulesOf(JSON.stringify({ schedules: [{ name: 'recon', cron: '30 6 * * 1-5', command: 'reconcile' }] }))).toEqual([
      { name: 'recon', cron: '30 6 * * 1-5', timezone: 'UTC', command: 'reconcile', args: [], notify: [], catchUp: '6h', catchUpMs: 6 * 3_600_000 },
    ]);
    expect(resolveOptions({}, {}, NOW).schedules).toEqual([]);
  });

  it('keeps the notification targets as given, mailto: and http(s)://', () => {
    const notify = ['mailto:ops@example.com,night@example.com', 'https://hooks.example.com/order-batch', 'http://10.0.0.5:8080/hook'];
    expect(schedulesOf(JSON.stringify({ schedules: [{ ...NIGHTLY, notify, catchUp: '90m' }] }))[0]).toMatchObject({ notify, catchUpMs: 90 * 60_000 });
  });

  it('names a bad cron by its place in the file, line and column, with croner\'s reason', () => {
    const text = `{\n  "schedules": [\n    { "name": "nightly", "command": "import",\n      "cron": "61 2 * * *" }\n  ]\n}\n`;
    expect(errorOf(text)).toBe('schedules.0.cron (line 4, column 15): not a cron expression croner reads (Invalid value for minute: 61).');
  });

  it('refuses an unknown zone, command, notification target or catch-up, and a second schedule of one name', () => {
    const one = (change: object) => errorOf(JSON.stringify({ schedules: [{ ...NIGHTLY, ...change }] }));
    expect(one({ timezone: 'Mars/Olympus' })).toMatch(/^schedules\.0\.timezone \(line 1, column \d+\): an IANA zone such as Europe\/Berlin or UTC\.$/);
    expect(one({ command: 'validate' })).toMatch(/^schedules\.0\.command \(line 1, column \d+\): /);
    expect(one({ notify: ['ftp://example.com'] })).toMatch(/^schedules\.0\.notify\.0 \(line 1, column \d+\): mailto:addr\[,addr\] or an http\(s\):\/\/ address\.$/);
    expect(one({ catchUp: 'six hours' })).toMatch(/^schedules\.0\.catchUp .*a duration such as 6h, 30m or 1d\.$/);
    expect(one({ name: 'night ly' })).toMatch(/^schedules\.0\.name .*a name of letters, digits/);
    expect(one({ every: 'day' })).toMatch(/^schedules\.0 \(line 1, column \d+\): .*every/);
    expect(errorOf(JSON.stringify({ schedules: [NIGHTLY, NIGHTLY] }))).toMatch(/^schedules\.1\.name .*a second schedule named "nightly"/);
  });

  it('points a missing key at the schedule that lacks it', () => {
    const text = `{ "schedules": [\n  { "name": "a", "cron": "0 2 * * *" }\n] }`;
    expect(errorOf(text)).toMatch(/^schedules\.0\.command \(line 2, column 3\): /);
  });

  it('reads durations in seconds, minutes, hours and days', () => {
    expect([parseDuration('90s'), parseDuration('30m'), parseDuration('6h'), parseDuration('1d'), parseDuration('0m')]).toEqual([90_000, 1_800_000, 21_600_000, 86_400_000, 0]);
    expect([parseDuration('6'), parseDuration('-1h'), parseDuration('1.5h')]).toEqual([null, null, null]);
  });
});
