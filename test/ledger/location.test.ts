import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { LedgerError } from '../../src/ledger/errors.js';
import { parseLedgerLocation, redactLedgerLocation } from '../../src/ledger/location.js';
import { openLedger } from '../../src/ledger/open-ledger.js';

describe('where a ledger lives', () => {
  it.each([
    ['.order-batch/ledger.db', { backend: 'sqlite', path: '.order-batch/ledger.db' }],
    ['/var/lib/order-batch/ledger.db', { backend: 'sqlite', path: '/var/lib/order-batch/ledger.db' }],
    ['C:\\ledgers\\ledger.db', { backend: 'sqlite', path: 'C:\\ledgers\\ledger.db' }],
    ['file:///var/lib/ledger%20one.db', { backend: 'sqlite', path: '/var/lib/ledger one.db' }],
    ['postgres://ob:secret@db.example.com:5432/orders', { backend: 'postgres', url: 'postgres://ob:secret@db.example.com:5432/orders' }],
    ['PostgreSQL://db/orders', { backend: 'postgres', url: 'PostgreSQL://db/orders' }],
  ])('reads %s', (text, expected) => {
    expect(parseLedgerLocation(text)).toEqual(expected);
  });

  it('refuses an empty location and a URL of another database, without echoing its password', () => {
    expect(() => parseLedgerLocation('  ')).toThrow(UsageError);
    const refusal = (() => {
      try {
        parseLedgerLocation('mysql://root:hunter2@db/orders');
      } catch (error) {
        return error as Error;
      }
    })();
    expect(refusal).toBeInstanceOf(UsageError);
    expect(refusal?.message).toContain('mysql://');
    expect(refusal?.message).not.toContain('hunter2');
  });

  it('shows a URL without its password, and a path as it is', () => {
    expect(redactLedgerLocation('postgres://ob:s3cr%40t@db:5432/orders?sslmode=require&password=x')).toBe('postgres://ob:***@db:5432/orders?sslmode=require&password=***');
    expect(redactLedgerLocation('postgresql://db/orders')).toBe('postgresql://db/orders');
    expect(redactLedgerLocation('postgres://ob:pw@[bad')).toBe('postgres://ob:***@[bad');
    expect(redactLedgerLocation('postgresql://ob:pw@/orders?host=/run/postgresql')).toBe('postgresql://ob:***@/orders?host=/run/postgresql');
    expect(redactLedgerLocation('/home/ops/ledger:1.db')).toBe('/home/ops/ledger:1.db');
  });

  it('names a PostgreSQL ledger it cannot reach without its password', async () => {
    const opening = openLedger('postgres://ob:hunter2@127.0.0.1:1/orders');
    await expect(opening).rejects.toThrow(LedgerError);
    await expect(opening).rejects.toThrow('postgres://ob:***@127.0.0.1:1/orders');
    await expect(opening).rejects.not.toThrow(/hunter2/);
  });
});
