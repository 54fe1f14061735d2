/**
 * Schedule occurrences claimed with a lease (src/ledger/team-types.ts, ScheduleOccurrences), the same
 * on every backend: each `open()` is another instance of the scheduler on the same ledger.
 */
import { describe, expect, it } from 'vitest';
import type { OccurrenceResult } from '../../src/ledger/team-types.js';
import { BACKENDS } from './backends.js';
import { buildIntent } from './builders.js';
import { useLedgers } from './team-support.js';

const LEASE = 60_000;
const AT = '2031-05-06T02:00:00.000Z';
const KEY = { schedule: 'nightly', scheduledAt: AT };
const claimOf = (holder: string, host = `host-${holder}`) => ({ ...KEY, kind: 'scheduled' as const, holder, host, leaseMs: LEASE });
const DONE: OccurrenceResult = { outcome: 'ok', exitCode: 0, summary: { accepted: 3 }, runId: 'run-1', message: null };

describe.each(BACKENDS)('the $name ledger', (backend) => {
  const ledgers = useLedgers(backend);

  it('gives an occurrence to exactly one of the instances that claim it at once', async () => {
    const instances = [await ledgers.open(), await ledgers.open(), await ledgers.open()];
    const claims = await Promise.all(instances.map((ledger, i) => ledger.schedules.claim(claimOf(`i${i}`))));
    const winners = claims.filter((c) => c !== null);
    expect(winners).toHaveLength(1);
    expect(winners[0]).toMatchObject({ schedule: 'nightly', scheduledAt: AT, kind: 'scheduled', state: 'running', starts: 1, outcome: null, startedAt: '2031-05-06T07:08:09.000Z' });
    expect(await instances[0]!.schedules.claim(claimOf('late'))).toBeNull();
  });

  it('records the result on the occurrence, and a finished occurrence is never claimed again', async () => {
    const [a, b] = [await ledgers.open(), await ledgers.open()];
    await a.schedules.claim(claimOf('a', 'batch-1 4711'));
    expect(await a.schedules.beat(KEY, 'a', LEASE, { runId: 'run-1' })).toBe(true);
    expect(await b.schedules.finish(KEY, 'b', DONE)).toBe(false);
    expect(await a.schedules.finish(KEY, 'a', { ...DONE, runId: null })).toBe(true);
    expect(await b.schedules.list({ schedule: 'nightly' })).toEqual([
      { ...KEY, kind: 'scheduled', state: 'done', host: 'batch-1 4711', starts: 1, startedAt: '2031-05-06T07:08:09.000Z', finishedAt: '2031-05-06T07:08:09.000Z', ...DONE },
    ]);
    await ledgers.store.expireOccurrenceLease('nightly');
    expect(await b.schedules.claim(claimOf('b'))).toBeNull();
    expect(await b.schedules.listLapsed()).toEqual([]);
  });

  it('keeps an occurrence with its holder while the lease is renewed, and hands it on once the lease lapses', async () => {
    const [a, b] = [await ledgers.open(), await ledgers.open()];
    await a.schedules.claim(claimOf('a'));
    expect(await b.schedules.claim(claimOf('b'))).toBeNull();
    expect(await b.schedules.listLapsed()).toEqual([]);
    await ledgers.store.expireOccurrenceLease('nightly');
    expect((await b.schedules.listLapsed()).map((o) => o.scheduledAt)).toEqual([AT]);
    expect(await b.schedules.claim({ ...claimOf('b'), kind: 'catch_up' })).toMatchObject({ state: 'running', starts: 2, host: 'host-b', kind: 'scheduled' });
    expect(await a.schedules.beat(KEY, 'a', LEASE)).toBe(false);
    expect(await a.schedules.finish(KEY, 'a', DONE)).toBe(false);
    expect(await b.schedules.finish(KEY, 'b', DONE)).toBe(true);
  });

  it.runIf(backend.hasConcurrentRuns)("waits for the occurrence's run to let go of its orders before another instance takes it over", async () => {
    const [a, b] = [await ledgers.open(), await ledgers.open()];
    await a.schedules.claim(claimOf('a'));
    const run = await a.startRun({ command: 'import', files: ['orders.csv'] });
    await run.prepareSends([buildIntent('A-1')]);
    await a.schedules.beat(KEY, 'a', LEASE, { runId: run.runId });
    await ledgers.store.expireOccurrenceLease('nightly');
    expect(await b.schedules.listLapsed()).toEqual([]);
    expect(await b.schedules.claim(claimOf('b'))).toBeNull();
    await ledgers.store.expireLease!(run.runId);
    expect(await b.schedules.claim(claimOf('b'))).toMatchObject({ runId: run.runId, starts: 2 });
  });

  it('records a missed occurrence once, which then is never run', async () => {
    const ledger = await ledgers.open();
    expect(await ledger.schedules.recordMissed(KEY, 'no instance was running')).toBe(true);
    expect(await ledger.schedules.recordMissed(KEY, 'again')).toBe(false);
    expect(await ledger.schedules.claim(claimOf('a'))).toBeNull();
    expect(await ledger.schedules.list()).toMatchObject([{ ...KEY, state: 'missed', outcome: 'missed', message: 'no instance was running', host: null, starts: 0 }]);
  });

  it('knows the latest timed occurrence of each schedule, manual runs aside, and lists newest first', async () => {
    const ledger = await ledgers.open();
    expect(await ledger.schedules.latestTimed('nightly')).toBeNull();
    await ledger.schedules.recordMissed({ schedule: 'nightly', scheduledAt: '2031-05-04T02:00:00.000Z' }, 'missed');
    await ledger.schedules.claim(claimOf('a'));
    await ledger.schedules.claim({ ...claimOf('a'), scheduledAt: '2031-05-06T05:00:00.000Z', kind: 'manual' });
    await ledger.schedules.claim({ ...claimOf('a'), schedule: 'hourly', scheduledAt: '2031-05-06T06:00:00.000Z' });
    expect(await ledger.schedules.latestTimed('nightly')).toBe(AT);
    expect((await ledger.schedules.list()).map((o) => `${o.schedule} ${o.scheduledAt} ${o.kind}`)).toEqual([
      'hourly 2031-05-06T06:00:00.000Z scheduled',
      'nightly 2031-05-06T05:00:00.000Z manual',
      `nightly ${AT} scheduled`,
      'nightly 2031-05-04T02:00:00.000Z scheduled',
    ]);
    expect(await ledger.schedules.list({ schedule: 'nightly', limit: 1 })).toHaveLength(1);
  });
});
