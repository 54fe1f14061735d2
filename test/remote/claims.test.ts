/** Claims of remote file versions in both ledgers: one holder at a time, a dead holder's claim taken over after its lease. */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openClaimStore, type ClaimStore } from '../../src/remote/claims.js';
import { createDatabase, hasPostgres, type TestDatabase } from '../support/postgres/database.js';
import { useTempDir } from '../support/temp-dir.js';

const path = useTempDir('remote-claims');
let db: TestDatabase | undefined;
beforeAll(async () => {
  if (hasPostgres) db = await createDatabase();
});
afterAll(async () => {
  await db?.drop();
});

const ledgers: [string, () => string][] = [['SQLite', () => join(path('sqlite'), 'ledger.db')]];
if (hasPostgres) ledgers.push(['PostgreSQL', () => db!.url]);

/** Polls `claim` until it succeeds, within a bound. */
async function claimWithin(store: ClaimStore, location: string, version: string, boundMs: number): Promise<boolean> {
  const until = Date.now() + boundMs;
  while (Date.now() < until) {
    if (await store.claim(location, version)) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

describe.each(ledgers)('remote file claims on a %s ledger', (_name, ledger) => {
  it('lets one holder claim a version, and a new version be claimed apart from it', async () => {
    const one = await openClaimStore(ledger(), 60_000);
    const two = await openClaimStore(ledger(), 60_000);
    try {
      const claims = await Promise.all([one.claim('sftp://h/in/a.csv', 'v1'), two.claim('sftp://h/in/a.csv', 'v1')]);
      expect(claims.filter(Boolean)).toHaveLength(1);
      const holder = claims[0] ? one : two;
      await holder.finish('sftp://h/in/a.csv', 'v1', 'done', 'done');
      expect(await one.claim('sftp://h/in/a.csv', 'v1')).toBe(false);
      expect(await two.claim('sftp://h/in/a.csv', 'v2')).toBe(true);
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('gives a version released for retry to the next run', async () => {
    const one = await openClaimStore(ledger(), 60_000);
    const two = await openClaimStore(ledger(), 60_000);
    try {
      expect(await one.claim('s3://b/in/r.csv', 'etag:1')).toBe(true);
      await one.finish('s3://b/in/r.csv', 'etag:1', 'retry', '1 order failed');
      expect(await two.claim('s3://b/in/r.csv', 'etag:1')).toBe(true);
    } finally {
      await one.close();
      await two.close();
    }
  });

  it("takes over a dead holder's claim once its lease has lapsed, and not before", async () => {
    const dead = await openClaimStore(ledger(), 1_000);
    const alive = await openClaimStore(ledger(), 60_000);
    try {
      expect(await dead.claim('sftp://h/in/d.csv', 'v1')).toBe(true);
      expect(await alive.claim('sftp://h/in/d.csv', 'v1')).toBe(false);
      await dead.close();
      expect(await claimWithin(alive, 'sftp://h/in/d.csv', 'v1', 20_000)).toBe(true);
    } finally {
      await alive.close();
    }
  });
});
