import { afterEach, beforeEach, expect, it } from 'vitest';
import { openLedger } from '../../../src/ledger/open-ledger.js';
import type { IntentAction, Ledger, LedgerOptions } from '../../../src/ledger/types.js';
import { asSuperuser, createDatabase, describePostgres, type TestDatabase } from '../../support/postgres/database.js';
import { buildIntent } from '../builders.js';
import { spawnLedgerChild } from '../spawn-child.js';

describePostgres('claims on a PostgreSQL ledger', () => {
  let db: TestDatabase;
  let opened: Ledger[];
  const open = async (options: LedgerOptions = {}) => {
    const ledger = await openLedger(db.url, options);
    opened.push(ledger);
    return ledger;
  };
  beforeEach(async () => {
    db = await createDatabase();
    opened = [];
  });
  afterEach(async () => {
    for (const ledger of opened) await ledger.close();
    await db.drop();
  });

  it('never lets two runs send one order, however their batches of the same sheet race', async () => {
    const ids = Array.from({ length: 240 }, (_, i) => `R-${String(i).padStart(3, '0')}`);
    const runs = await Promise.all(Array.from({ length: 4 }, async () => (await open()).startRun({ command: 'import', files: [] })));
    // Each run goes through the sheet in batches of 20, from its own starting batch, all at once.
    const actions = await Promise.all(
      runs.map(async (run, k) => {
        const seen: [string, IntentAction][] = [];
        for (let b = 0; b < 12; b++) {
          const batch = ids.slice(((b + k * 3) % 12) * 20, ((b + k * 3) % 12) * 20 + 20);
          const results = await run.prepareSends(batch.map((id) => buildIntent(id)));
          results.forEach((r, i) => seen.push([batch[i]!, r.action]));
        }
        return seen;
      }),
    );
    const sends = new Map<string, number>();
    for (const [id, action] of actions.flat()) if (action === 'send') sends.set(id, (sends.get(id) ?? 0) + 1);
    expect(ids.filter((id) => sends.get(id) !== 1)).toEqual([]);
    expect(new Set(actions.flat().map(([, action]) => action))).toEqual(new Set(['send', 'in_progress_elsewhere']));
    const holders = await asSuperuser((c) => c.query<{ n: number }>('SELECT count(DISTINCT run_id)::int AS n FROM orders'), db.name);
    expect(holders.rows[0]!.n).toBeGreaterThan(1);
  });

  it("keeps a live run's orders past its first lease: the run renews it on the database's clock", async () => {
    const holder = await (await open({ claimLeaseMs: 300 })).startRun({ command: 'import', files: [] });
    await holder.prepareSends([buildIntent('K-1')]);
    const first = await asSuperuser((c) => c.query<{ at: Date }>('SELECT lease_expires_at AS at FROM runs WHERE run_id = $1', [holder.runId]), db.name);
    // Wait on the database's clock, not this host's, until the first lease would have run out.
    await asSuperuser(async (c) => {
      while (!(await c.query<{ past: boolean }>('SELECT clock_timestamp() > $1 AS past', [first.rows[0]!.at])).rows[0]!.past) await c.query('SELECT pg_sleep(0.05)');
    }, db.name);
    const other = await (await open()).startRun({ command: 'import', files: [] });
    expect((await other.prepareSends([buildIntent('K-1')]))[0]!.action).toBe('in_progress_elsewhere');
  });

  it('takes over at once the orders of a run killed on this machine, long before its lease would expire', async () => {
    const ledger = await open();
    const child = spawnLedgerChild([db.url, 'K-1', 'K-2'], new URL('./fixtures/holding-run.mjs', import.meta.url));
    try {
      const line = await child.waitForLine((l) => l.startsWith('held '));
      expect(line).toMatch(/ send,send$/);
      const other = await ledger.startRun({ command: 'import', files: [] });
      // While it lives, its orders are its own.
      expect((await other.prepareSends([buildIntent('K-1')]))[0]!.action).toBe('in_progress_elsewhere');
      await child.kill();
      const next = await (await open()).startRun({ command: 'import', files: [] });
      expect((await next.prepareSends([buildIntent('K-1'), buildIntent('K-2')])).map((r) => r.action)).toEqual(['lookup', 'lookup']);
    } finally {
      await child.kill();
    }
  });
});
