import { join } from 'node:path';
import { openDatabase } from '../../src/sqlite/open-database.js';
import { describe, expect, it } from 'vitest';
import { createMemoryPackageStore, mergePackages, type PackageStore } from '../../src/reconcile/package-store.js';
import { openSqlitePackageStore, packageStorePathFor } from '../../src/reconcile/package-store-sqlite.js';
import { pkg, readOf, expected } from './builders.js';
import { useTempFolder } from '../support/temp-dir.js';

const dir = useTempFolder('reconcile-store');

const items = [{ line: 'L1', productId: 'PRD-1001', quantity: 1 }];

describe('merging fetched packages over stored ones', () => {
  it('keeps the newer record of a package and says whether anything changed', () => {
    const old = pkg({ id: 'P1', order: 'O1', items, lastUpdated: '2030-03-01T12:00:00.000Z' });
    const newer = pkg({ id: 'P1', order: 'O1', items, delivered: true, lastUpdated: '2030-03-03T12:00:00.000Z' });
    const other = pkg({ id: 'P2', order: 'O1', items });
    expect(mergePackages([newer], [old])).toEqual({ packages: [newer], hasChanges: false });
    expect(mergePackages([old], [newer])).toEqual({ packages: [newer], hasChanges: true });
    expect(mergePackages([old], [other])).toEqual({ packages: [old, other], hasChanges: true });
  });
});

function exercise(name: string, open: () => PackageStore, reopen: () => PackageStore) {
  describe(name, () => {
    it('stores packages per order, reads, and coverage', () => {
      const store = open();
      const p1 = pkg({ id: 'P1', order: 'O1', items, lastUpdated: '2030-03-01T12:00:00.000Z' });
      const p2 = pkg({ id: 'P2', order: 'O2', items, lastUpdated: '2030-03-05T12:00:00.000Z' });
      store.putOrderPackages([
        ['O1', [p1]],
        ['O2', [p2]],
      ]);
      const read = readOf(expected('O1', [{ id: 'L1', productId: 'PRD-1001', quantity: 1 }]), 'Shipped');
      store.putOrderReads([
        ['O1', { read, status: 'shipped', readAt: '2030-03-06T00:00:00.000Z' }],
        ['O2', { read: null, status: 'not_found', readAt: '2030-03-06T00:00:00.000Z' }],
      ]);
      store.setCoverage({ start: '2030-03-01T00:00:00.000Z', end: '2030-03-06T00:00:00.000Z' });
      const again = reopen();
      expect(again.packagesOf('O1')).toEqual([p1]);
      expect(again.packagesOf('nope')).toEqual([]);
      expect(again.orderIdsUpdatedSince('2030-03-04T00:00:00+00:00')).toEqual(['O2']);
      expect(again.getOrderRead('O1')).toEqual({ read, status: 'shipped', readAt: '2030-03-06T00:00:00.000Z' });
      expect(again.getOrderRead('O2')?.read).toBeNull();
      expect(again.getCoverage()).toEqual({ start: '2030-03-01T00:00:00.000Z', end: '2030-03-06T00:00:00.000Z' });
      again.setCoverage(null);
      expect(again.getCoverage()).toBeNull();
      store.close();
      again.close();
    });
  });
}

const memory = createMemoryPackageStore();
exercise('the memory store', () => memory, () => memory);
const file = join(dir, 'reconcile.db');
exercise('the SQLite store', () => openSqlitePackageStore(file), () => openSqlitePackageStore(file));

describe('the SQLite store file', () => {
  it('lives beside the ledger, one per ledger file', () => {
    expect(packageStorePathFor('/data/.order-batch/ledger.db')).toBe('/data/.order-batch/ledger.db.reconcile.db');
    expect(packageStorePathFor('/data/a.db')).not.toBe(packageStorePathFor('/data/b.db'));
    expect(packageStorePathFor('/data/a.db')).not.toBe(packageStorePathFor('/data/a.sqlite'));
  });

  it('is emptied, not misread, when written by another version', () => {
    const path = join(dir, 'old.db');
    const store = openSqlitePackageStore(path);
    store.putOrderPackages([['O1', [pkg({ id: 'P1', order: 'O1', items })]]]);
    store.close();
    const db = openDatabase(path);
    db.exec('PRAGMA user_version = 99');
    db.close();
    const reopened = openSqlitePackageStore(path);
    expect(reopened.packagesOf('O1')).toEqual([]);
    expect(reopened.isPersistent).toBe(true);
    reopened.close();
  });
});
