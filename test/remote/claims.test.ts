/**
 * Claims of remote file versions in the run's own ledger, on both backends: one holder at a time, a dead
 * holder's claim taken over after its lease, and claims made while the same ledger records a run's orders.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLedger, type Ledger } from '../../src/ledger/index.js';
import { claimsIn, type ClaimStore } from '../../src/remote/claims.js';
import { buildOrderPayload } from '../support/order-payload.js';
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

/** Two runs' ledgers, as two hosts (or two processes) open them. */
async function withTwoLedgers(location: string, work: (one: Ledger, two: Ledger) => Promise<void>): Promise<void> {
  const one = await openLedger(location);
  const two = await openLedger(location);
  try {
    await work(one, two);
  } finally {
    await one.close();
    await two.close();
  }
}

describe.each(ledgers)('remote file claims on a %s ledger', (_name, location) => {
  it('lets one holder claim a version, and a new version be claimed apart from it', async () => {
    await withTwoLedgers(location(), async (a, b) => {
      const [one, two] = [claimsIn(a, 60_000), claimsIn(b, 60_000)];
      const claims = await Promise.all([one.claim('sftp://h/in/a.csv', 'v1'), two.claim('sftp://h/in/a.csv', 'v1')]);
      expect(claims.filter(Boolean)).toHaveLength(1);
      const holder = claims[0] ? one : two;
      await holder.finish('sftp://h/in/a.csv', 'v1', 'done', 'done');
      expect(await one.claim('sftp://h/in/a.csv', 'v1')).toBe(false);
      expect(await two.claim('sftp://h/in/a.csv', 'v2')).toBe(true);
    });
  });

  it('gives a version released for retry to the next run', async () => {
    await withTwoLedgers(location(), async (a, b) => {
      const [one, two] = [claimsIn(a, 60_000), claimsIn(b, 60_000)];
      expect(await one.claim('s3://b/in/r.csv', 'etag:1')).toBe(true);
      await one.finish('s3://b/in/r.csv', 'etag:1', 'retry', '1 order failed');
      expect(await two.claim('s3://b/in/r.csv', 'etag:1')).toBe(true);
    });
  });

  it("takes over a dead holder's claim once its lease has lapsed, and not before", async () => {
    await withTwoLedgers(location(), async (a, b) => {
      const [dead, alive] = [claimsIn(a, 1_000), claimsIn(b, 60_000)];
      expect(await dead.claim('sftp://h/in/d.csv', 'v1')).toBe(true);
      expect(await alive.claim('sftp://h/in/d.csv', 'v1')).toBe(false);
      await a.close();
      expect(await claimWithin(alive, 'sftp://h/in/d.csv', 'v1', 20_000)).toBe(true);
    });
  });

  it("lets go of a run's claims at once when its ledger's runs are abandoned, and a late renewal or settle does not take them back", async () => {
    await withTwoLedgers(location(), async (a, b) => {
      // Leases of ten minutes: only the let-go explains the other run taking the file within the test.
      const [stopped, other] = [claimsIn(a, 600_000), claimsIn(b, 600_000)];
      expect(await stopped.claim('sftp://h/in/g.csv', 'v1')).toBe(true);
      expect(await stopped.claim('sftp://h/in/settled.csv', 'v1')).toBe(true);
      await stopped.finish('sftp://h/in/settled.csv', 'v1', 'done', 'done');
      expect(await other.claim('sftp://h/in/g.csv', 'v1')).toBe(false);
      await a.abandonRuns();
      // The run winding down after the let-go: its renewal and its settling change nothing.
      await stopped.renew();
      await stopped.finish('sftp://h/in/g.csv', 'v1', 'done', 'done');
      expect(await stopped.claim('sftp://h/in/h.csv', 'v1')).toBe(false);
      expect(await other.claim('sftp://h/in/g.csv', 'v1')).toBe(true);
      // What was settled before the stop stays settled.
      expect(await other.claim('sftp://h/in/settled.csv', 'v1')).toBe(false);
    });
  });

  it("leaves a closed ledger's unsettled claims to their lease: a file a run failed on is not taken again at once", async () => {
    await withTwoLedgers(location(), async (a, b) => {
      const [failed, other] = [claimsIn(a, 600_000), claimsIn(b, 600_000)];
      expect(await failed.claim('sftp://h/in/f.csv', 'v1')).toBe(true);
      await a.close();
      expect(await other.claim('sftp://h/in/f.csv', 'v1')).toBe(false);
    });
  });

  it("claims files on the run's own ledger while that ledger records the run's orders", async () => {
    const ledger = await openLedger(location());
    try {
      const lock = await ledger.acquireRunLock({ command: 'import' });
      const run = await ledger.startRun({ command: 'import', files: ['sftp://h/in/busy.csv'] });
      const claims = claimsIn(ledger, 60_000);
      const intents = Array.from({ length: 20 }, (_, i) => ({ payload: buildOrderPayload(`CLAIM-${i}`) }));
      const [claimed, recorded] = await Promise.all([
        Promise.all(Array.from({ length: 10 }, (_, i) => claims.claim(`sftp://h/in/busy-${i}.csv`, 'v1'))),
        Promise.all(intents.map((intent) => run.recordIntent(intent))),
        claims.renew(),
      ]);
      expect(claimed.every(Boolean)).toBe(true);
      expect(recorded.map((r) => r.action)).toEqual(intents.map(() => 'send'));
      await Promise.all(Array.from({ length: 10 }, (_, i) => claims.finish(`sftp://h/in/busy-${i}.csv`, 'v1', 'done', 'done')));
      await run.finish({ summary: {} });
      await lock.release();
      // Settled in the ledger itself: another run's ledger sees them done.
      const other = await openLedger(location());
      try {
        expect(await claimsIn(other, 60_000).claim('sftp://h/in/busy-3.csv', 'v1')).toBe(false);
      } finally {
        await other.close();
      }
    } finally {
      await ledger.close();
    }
  });
});
