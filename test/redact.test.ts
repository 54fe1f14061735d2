import { describe, expect, it } from 'vitest';
import { redactUrl, redactUrlsIn } from '../src/redact.js';

describe('redacting secrets in addresses', () => {
  it.each([
    ['postgres://ob:s3cr%40t@db:5432/orders?sslmode=require&password=x', 'postgres://ob:***@db:5432/orders?sslmode=require&password=***'],
    ['postgresql://app:pw@/ledger?host=/run/postgresql', 'postgresql://app:***@/ledger?host=/run/postgresql'],
    ['https://user:p@ss@api.example.com/v0', 'https://user:***@api.example.com/v0'],
    ['postgres://u:pa/ss@host/db', 'postgres://***@host/db'],
    ['postgres://ob:pw@[bad', 'postgres://ob:***@[bad'],
    ['https://host/x?token=abc&y=1', 'https://host/x?token=***&y=1'],
  ])('hides the password of %s', (url, shown) => {
    expect(redactUrl(url)).toBe(shown);
  });

  it.each(['https://api.example.com', 'https://api.example.com:8443/a@b', 'postgresql://db/orders', 'postgres://u@host/db', '/home/ops/ledger:1.db', 'C:\\ledgers\\a.db'])(
    'leaves %s as written',
    (text) => {
      expect(redactUrl(text)).toBe(text);
    },
  );

  it('redacts every address quoted in a message', () => {
    expect(redactUrlsIn('fetch failed for https://a:b@host/x (postgres://c:d@e/f).')).toBe('fetch failed for https://a:***@host/x (postgres://c:***@e/f).');
  });
});
