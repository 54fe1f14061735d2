/** reconcile's numeric flags: --hours, --since and --late-after-days, checked before anything runs. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { DEFAULTS, parseHours, parseLateAfterDays, parseSince, resolveOptions } from '../../src/options.js';
import { useTempFolders } from '../support/temp-dir.js';

const NOW = new Date('2031-03-10T12:00:00Z');
const newFolder = useTempFolders('reconcile-flags');

function configFile(content: unknown): string {
  const path = join(newFolder(), 'config.json');
  writeFileSync(path, JSON.stringify(content));
  return path;
}

describe('--hours', () => {
  it('takes a whole number of hours from 1', () => {
    expect(parseHours('1')).toBe(1);
    expect(parseHours(' 720 ')).toBe(720);
  });

  it('says a zero or negative window must be positive, rather than that it is not a whole number', () => {
    expect(() => parseHours('0')).toThrow(UsageError);
    expect(() => parseHours('0')).toThrow('--hours must be positive (1 hour or more), not 0.');
    expect(() => parseHours('-3')).toThrow('--hours must be positive (1 hour or more), not -3.');
  });

  it('refuses what is not a whole number, quoting it', () => {
    for (const text of ['1.5', 'abc', '', '2e3']) expect(() => parseHours(text)).toThrow(`--hours takes a whole number of hours, not "${text}".`);
  });
});

describe('--since', () => {
  it('takes an instant and refuses anything else', () => {
    expect(parseSince('2026-11-01T00:00:00Z').toISOString()).toBe('2026-11-01T00:00:00.000Z');
    expect(() => parseSince('yesterday')).toThrow(UsageError);
    expect(() => parseSince('yesterday')).toThrow('--since takes an ISO 8601 instant such as 2026-11-01T00:00:00Z, not "yesterday".');
  });
});

describe('--late-after-days', () => {
  it('is the flag of the config key lateAfterDays: flag over config over the default', () => {
    expect(resolveOptions({}, {}, NOW).lateAfterDays).toBe(DEFAULTS.lateAfterDays);
    const config = configFile({ lateAfterDays: 7 });
    expect(resolveOptions({ config }, {}, NOW).lateAfterDays).toBe(7);
    expect(resolveOptions({ config, lateAfterDays: '5' }, {}, NOW).lateAfterDays).toBe(5);
    expect(resolveOptions({ config, lateAfterDays: '0' }, {}, NOW).lateAfterDays).toBe(0);
  });

  it('takes whole days, 0 or more, in the same words as the other numeric flags', () => {
    expect(parseLateAfterDays('0')).toBe(0);
    expect(parseLateAfterDays('14')).toBe(14);
    expect(() => resolveOptions({ lateAfterDays: '-1' }, {}, NOW)).toThrow(UsageError);
    expect(() => parseLateAfterDays('-1')).toThrow('--late-after-days must be 0 or more, not -1.');
    expect(() => parseLateAfterDays('2.5')).toThrow('--late-after-days takes a whole number of days, not "2.5".');
    expect(() => parseLateAfterDays('soon')).toThrow('--late-after-days takes a whole number of days, not "soon".');
  });
});
