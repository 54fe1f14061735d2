import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { resolveOptions } from '../../src/options.js';
import { useTempFolders } from '../support/temp-dir.js';

const NOW = new Date('2031-03-10T12:00:00Z');
const newFolder = useTempFolders('options');

function configFile(content: unknown): string {
  const path = join(newFolder(), 'config.json');
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

describe('resolveOptions', () => {
  it('takes flags over the environment over the config file over defaults', () => {
    const config = configFile({ timezone: 'Europe/Paris', concurrency: 4, baseUrl: 'https://from-config.example', ledger: 'config.db' });
    const fromConfig = resolveOptions({ config }, {}, NOW);
    expect(fromConfig.timezone).toBe('Europe/Paris');
    expect(fromConfig.concurrency).toBe(4);
    expect(fromConfig.connection.baseUrl).toBe('https://from-config.example');
    expect(fromConfig.ledgerPath).toBe('config.db');

    const fromEnv = resolveOptions({ config }, { FULFILLMENT_BASE_URL: 'https://from-env.example', ORDER_BATCH_LEDGER: 'env.db' }, NOW);
    expect(fromEnv.connection.baseUrl).toBe('https://from-env.example');
    expect(fromEnv.ledgerPath).toBe('env.db');

    const fromFlags = resolveOptions({ config, timezone: 'America/New_York', concurrency: '12', ledger: 'flag.db' }, { ORDER_BATCH_LEDGER: 'env.db' }, NOW);
    expect(fromFlags.timezone).toBe('America/New_York');
    expect(fromFlags.concurrency).toBe(12);
    expect(fromFlags.ledgerPath).toBe('flag.db');
  });

  it('takes the team concurrency and the claim lease from flags over the config file, the lease 2 minutes by default', () => {
    const config = configFile({ teamConcurrency: 16, claimLeaseSeconds: 30 });
    expect(resolveOptions({}, {}, NOW)).toMatchObject({ teamConcurrency: undefined, claimLeaseMs: 120_000 });
    expect(resolveOptions({ config }, {}, NOW)).toMatchObject({ teamConcurrency: 16, claimLeaseMs: 30_000 });
    expect(resolveOptions({ config, teamConcurrency: '4', claimLease: '5' }, {}, NOW)).toMatchObject({ teamConcurrency: 4, claimLeaseMs: 5_000 });
    expect(() => resolveOptions({ teamConcurrency: '0' }, {}, NOW)).toThrow('--team-concurrency must be between 1 and 1000, not 0.');
    expect(() => resolveOptions({ claimLease: '1.5' }, {}, NOW)).toThrow('--claim-lease takes a whole number, not "1.5".');
    expect(() => resolveOptions({ config: configFile({ teamConcurrency: 0 }) }, {}, NOW)).toThrow(/teamConcurrency/);
  });

  it('uses the wall clock handed in unless --now pins it', () => {
    expect(resolveOptions({}, {}, NOW).now).toEqual(NOW);
    expect(resolveOptions({}, {}, NOW).isNowPinned).toBe(false);
    const pinned = resolveOptions({ now: '2032-01-01T00:00:00Z' }, {}, NOW);
    expect(pinned.now.toISOString()).toBe('2032-01-01T00:00:00.000Z');
    expect(pinned.isNowPinned).toBe(true);
  });

  it('keeps the sandbox ledger apart from the real one', () => {
    expect(resolveOptions({}, {}, NOW).ledgerPath).toBe('.order-batch/ledger.db');
    expect(resolveOptions({ sandbox: true }, {}, NOW).ledgerPath).toBe('.order-batch/sandbox/ledger.db');
  });

  it('takes a PostgreSQL URL for the ledger from the flag, the environment or the config file', () => {
    const url = 'postgres://ob:secret@db.example.com:5432/orders';
    expect(resolveOptions({ ledger: url }, {}, NOW).ledgerPath).toBe(url);
    expect(resolveOptions({}, { ORDER_BATCH_LEDGER: 'postgresql://db/orders' }, NOW).ledgerPath).toBe('postgresql://db/orders');
    expect(resolveOptions({ config: configFile({ ledger: url }) }, {}, NOW).ledgerPath).toBe(url);
  });

  it('refuses a ledger URL of another kind, saying where it came from and never echoing its password', () => {
    const refusal = (flags: Parameters<typeof resolveOptions>[0], env: Record<string, string>) => {
      try {
        resolveOptions(flags, env, NOW);
      } catch (error) {
        return error as Error;
      }
      throw new Error('accepted');
    };
    const fromEnv = refusal({}, { ORDER_BATCH_LEDGER: 'mysql://root:hunter2@db/orders' });
    expect(fromEnv).toBeInstanceOf(UsageError);
    expect(fromEnv.message).toMatch(/^ORDER_BATCH_LEDGER: .*mysql:\/\/…/);
    expect(fromEnv.message).not.toContain('hunter2');
    expect(refusal({ ledger: 'redis://x' }, {}).message).toMatch(/^--ledger: /);
  });

  it('reads a config file saved with a UTF-8 byte order mark (as Notepad saves it)', () => {
    expect(resolveOptions({ config: configFile('\uFEFF{"timezone":"America/New_York"}') }, {}, NOW).timezone).toBe('America/New_York');
  });

  const refusals: [string, () => unknown, RegExp][] = [
    ['a --now that is no instant', () => resolveOptions({ now: 'tomorrow' }, {}, NOW), /--now/],
    ['an unknown time zone', () => resolveOptions({ timezone: 'Mars/Base' }, {}, NOW), /--timezone/],
    ['a concurrency of 0', () => resolveOptions({ concurrency: '0' }, {}, NOW), /--concurrency/],
    ['a concurrency that is no number', () => resolveOptions({ concurrency: 'many' }, {}, NOW), /--concurrency/],
    ['an unknown FULFILLMENT_AUTH', () => resolveOptions({}, { FULFILLMENT_AUTH: 'basic' }, NOW), /FULFILLMENT_AUTH/],
    ['a base URL that is no address', () => resolveOptions({}, { FULFILLMENT_BASE_URL: 'api.example.com' }, NOW), /FULFILLMENT_BASE_URL/],
    ['a missing config file', () => resolveOptions({ config: '/nonexistent/order-batch.json' }, {}, NOW), /Cannot read config file \/nonexistent\/order-batch.json: .*ENOENT/],
    ['a config file with an unknown time zone, naming the file and key', () => resolveOptions({ config: configFile({ timezone: 'Mars/Base' }) }, {}, NOW), /^timezone in config file .* takes an IANA zone/],
    ['a config file with an ftp baseUrl, naming the file and key', () => resolveOptions({ config: configFile({ baseUrl: 'ftp://x.example' }) }, {}, NOW), /^baseUrl in config file .* must be an http\(s\) address/],
    ['an unknown ORDER_BATCH_LOG_LEVEL, naming the variable', () => resolveOptions({}, { ORDER_BATCH_LOG_LEVEL: 'verbose' }, NOW), /^ORDER_BATCH_LOG_LEVEL takes one of/],
    ['a config file that is not JSON', () => resolveOptions({ config: configFile('{ nope') }, {}, NOW), /not valid JSON/],
    ['an unknown config key', () => resolveOptions({ config: configFile({ concurency: 3 }) }, {}, NOW), /concurency|Unrecognized/i],
    ['an empty sourcesOfSale list', () => resolveOptions({ config: configFile({ sourcesOfSale: [] }) }, {}, NOW), /sourcesOfSale/],
  ];
  for (const [name, call, message] of refusals) {
    it(`refuses ${name} with a usage error`, () => {
      expect(call).toThrow(UsageError);
      expect(call).toThrow(message);
    });
  }
});

describe('a config file that cannot be used never shows what it holds', () => {
  const messageOf = (call: () => unknown): string => {
    try {
      call();
    } catch (error) {
      expect(error).toBeInstanceOf(UsageError);
      return (error as Error).message;
    }
    throw new Error('no error');
  };

  it('names the file and the position, not the first characters, of a file that is no JSON (a secret passed by mistake)', () => {
    const path = configFile('sk_live_CAFEBABE0123456789\n');
    const message = messageOf(() => resolveOptions({ config: path }, {}, NOW));
    expect(message).toBe(`Config file ${path} is not valid JSON: line 1, column 1: a character that cannot start a JSON value (is this the JSON config file?).`);
    expect(message).not.toContain('sk_live');
  });

  it('says on which line and column a JSON config goes wrong, and what was expected there', () => {
    const cases: [string, string][] = [
      ['{\n  "clientSecret": "s3cr3t-value",\n  "timezone": "UTC",\n}\n', 'line 4, column 1: a key in double quotes was expected'],
      ['{\r\n  "clientSecret": "s3cr3t-value"\r\n  "timezone": "UTC"\r\n}', 'line 3, column 3: a "," was expected'],
      ['\uFEFF{ "clientSecret": "s3cr3t-value" ', 'line 1, column 34: a closing "}" was expected'],
      ['{ "clientSecret": "s3cr3t-value }', 'line 1, column 19: a string whose closing quote is missing'],
      ['  \n', 'the file is empty'],
    ];
    for (const [text, where] of cases) {
      const message = messageOf(() => resolveOptions({ config: configFile(text) }, {}, NOW));
      expect(message).toContain(`is not valid JSON: ${where}`);
      expect(message).not.toContain('s3cr3t');
    }
  });

  it('leaves out the password of a base URL it refuses', () => {
    const message = messageOf(() => resolveOptions({}, { FULFILLMENT_BASE_URL: 'ftp://ops:hunter2@api.example.com' }, NOW));
    expect(message).toMatch(/^FULFILLMENT_BASE_URL must be an http\(s\) address/);
    expect(message).not.toContain('hunter2');
  });
});

describe('NO_COLOR', () => {
  it('allows colour unless NO_COLOR is set to something (an empty one does not count, as no-color.org says)', () => {
    expect(resolveOptions({}, {}, NOW).isColorAllowed).toBe(true);
    expect(resolveOptions({}, { NO_COLOR: '' }, NOW).isColorAllowed).toBe(true);
    expect(resolveOptions({}, { NO_COLOR: '1' }, NOW).isColorAllowed).toBe(false);
    expect(resolveOptions({}, { NO_COLOR: 'false' }, NOW).isColorAllowed).toBe(false);
  });
});
