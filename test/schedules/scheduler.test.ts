/**
 * The scheduler's loop on each ledger backend, with the clock and the timer in the test's hands: each
 * instance opens the same ledger, and time moves without sleeping (a lease that lapses on PostgreSQL's
 * own clock is made to lapse in the database).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { toSchedules } from '../../src/schedules/schedule-config.js';
import { createScheduler, type RunRequest, type RunResult, type SchedulerTimer } from '../../src/schedules/scheduler.js';
import { BACKENDS } from '../ledger/backends.js';
import { useLedgers } from '../ledger/team-support.js';
import { recordingLogger } from '../support/recording-logger.js';

const LEASE = 60_000;
const [NIGHTLY] = toSchedules([{ name: 'nightly', cron: '0 2 * * *', timezone: 'UTC', command: 'import', args: ['inbox/'], notify: [], catchUp: '6h' }]);
const OK: RunResult = { exitCode: 0, summary: { accepted: 2 }, runId: 'run-1', message: null };

/** A timer whose callbacks run when the test says so. */
function buildTimer(): SchedulerTimer & { fire(): void; count(): number } {
  const pending = new Map<number, () => void>();
  let next = 0;
  return {
    set(fn) {
      pending.set(++next, fn);
      return next;
    },
    clear: (handle) => void pending.delete(handle as number),
    fire() {
      const due = [...pending.values()];
      pending.clear();
      for (const fn of due) fn();
    },
    count: () => pending.size,
  };
}

/** The test ledgers' clock starts at 2031-05-06T07:08:09Z; the tests start a minute before a 02:00. */
const START = Date.parse('2026-11-20T01:59:00.000Z');

describe.each(BACKENDS)('the scheduler on the $name ledger', (backend) => {
  const ledgers = useLedgers(backend);
  const clock = {
    now: () => ledgers.clock.now(),
    advance: (ms: number) => ledgers.clock.advance(ms),
    /** Sets the clock to `iso`. */
    set: (iso: string) => ledgers.clock.advance(Date.parse(iso) - ledgers.clock.now().getTime()),
  };
  const open = () => ledgers.open();
  /** An instance: its ledger, its runs, and the scheduler over them; `run` answers each occurrence. */
  const instance = async (host: string, run: (request: RunRequest) => Promise<RunResult> = async () => OK) => {
    const ledger = await open();
    const requests: RunRequest[] = [];
    const timer = buildTimer();
    const scheduler = createScheduler({
      schedules: [NIGHTLY!],
      store: ledger.schedules,
      runOccurrence: (request) => {
        requests.push(request);
        return run(request);
      },
      clock: clock.now,
      timer,
      leaseMs: LEASE,
      host,
      logger: silentLogger,
    });
    return { ledger, requests, timer, scheduler };
  };

  /** Instance a runs the 02:00 occurrence and never finishes; b, which would finish with run-2, has looked and found it held. */
  const oneStalledOneWaiting = async () => {
    let stalled: RunRequest | undefined;
    const a = await instance('batch-1 101', (request) => {
      stalled = request;
      return new Promise<RunResult>(() => undefined);
    });
    const b = await instance('batch-2 202', async () => ({ ...OK, runId: 'run-2' }));
    a.scheduler.start();
    b.scheduler.start();
    clock.advance(60_000);
    void a.scheduler.tick();
    await expect.poll(() => stalled !== undefined).toBe(true);
    await b.scheduler.tick();
    expect(b.requests).toEqual([]);
    return { a, b, stalled: stalled! };
  };

  beforeEach(() => {
    clock.set(new Date(START).toISOString());
  });

  it('runs an occurrence on exactly one of the instances that reach it, and records its result and host', async () => {
    const instances = [await instance('batch-1 101'), await instance('batch-2 202'), await instance('batch-3 303')];
    for (const i of instances) i.scheduler.start();
    clock.advance(60_000);
    await Promise.all(instances.map((i) => i.scheduler.tick()));
    expect(instances.flatMap((i) => i.requests).map((r) => [r.schedule.name, r.scheduledAt.toISOString(), r.kind])).toEqual([['nightly', '2026-11-20T02:00:00.000Z', 'scheduled']]);
    const [last] = await instances[0]!.ledger.schedules.list({ schedule: 'nightly' });
    const ranOn = instances.find((i) => i.requests.length === 1)!;
    expect(last).toMatchObject({ scheduledAt: '2026-11-20T02:00:00.000Z', state: 'done', outcome: 'ok', exitCode: 0, summary: { accepted: 2 }, runId: 'run-1' });
    expect(last!.host).toBe(instances.indexOf(ranOn) === 0 ? 'batch-1 101' : instances.indexOf(ranOn) === 1 ? 'batch-2 202' : 'batch-3 303');
    // Looking again finds nothing new to run.
    await Promise.all(instances.map((i) => i.scheduler.tick()));
    expect(instances.flatMap((i) => i.requests)).toHaveLength(1);
  });

  it('misses nothing from before a new schedule first started', async () => {
    clock.set('2026-11-20T05:00:00.000Z');
    const one = await instance('batch-1 101');
    one.scheduler.start();
    await one.scheduler.tick();
    expect(one.requests).toEqual([]);
    expect(await one.ledger.schedules.list()).toEqual([]);
  });

  it('runs the newest occurrence missed while every instance was down once, within the catch-up window; the older ones are recorded as missed', async () => {
    const first = await instance('batch-1 101');
    first.scheduler.start();
    clock.advance(60_000);
    await first.scheduler.tick();
    await first.scheduler.stop();
    // Every instance down for two days; one comes back three hours after the latest occurrence.
    clock.advance(2 * 86_400_000 + 3 * 3_600_000);
    const back = [await instance('batch-2 202'), await instance('batch-3 303')];
    for (const i of back) i.scheduler.start();
    await Promise.all(back.map((i) => i.scheduler.tick()));
    expect(back.flatMap((i) => i.requests).map((r) => [r.scheduledAt.toISOString(), r.kind])).toEqual([['2026-11-22T02:00:00.000Z', 'catch_up']]);
    const history = await back[0]!.ledger.schedules.list({ schedule: 'nightly' });
    expect(history.map((o) => [o.scheduledAt, o.kind, o.state, o.outcome])).toEqual([
      ['2026-11-22T02:00:00.000Z', 'catch_up', 'done', 'ok'],
      ['2026-11-21T02:00:00.000Z', 'scheduled', 'missed', 'missed'],
      ['2026-11-20T02:00:00.000Z', 'scheduled', 'done', 'ok'],
    ]);
    expect(history[1]!.message).toBe('a later occurrence (2026-11-22T02:00:00.000Z) ran in its place');
  });

  it('runs nothing that passed longer ago than the catch-up window, and records it as missed', async () => {
    const first = await instance('batch-1 101');
    first.scheduler.start();
    clock.advance(60_000);
    await first.scheduler.tick();
    await first.scheduler.stop();
    clock.advance(86_400_000 + 6 * 3_600_000 + 60_000);
    const back = await instance('batch-2 202');
    back.scheduler.start();
    await back.scheduler.tick();
    expect(back.requests).toEqual([]);
    expect(await back.ledger.schedules.list({ schedule: 'nightly', limit: 1 })).toMatchObject([
      { scheduledAt: '2026-11-21T02:00:00.000Z', state: 'missed', message: 'no instance was running within its catch-up window (6h)' },
    ]);
  });

  it('finishes the occurrence of an instance that stopped mid-run once its lease has lapsed, and the stopped one sends nothing more', async () => {
    const { a, b, stalled } = await oneStalledOneWaiting();

    // a stops renewing (its process hangs); its lease lapses.
    clock.advance(LEASE + 1);
    await ledgers.store.expireOccurrenceLease('nightly');
    await b.scheduler.tick();
    expect(b.requests.map((r) => [r.scheduledAt.toISOString(), r.kind])).toEqual([['2026-11-20T02:00:00.000Z', 'scheduled']]);
    expect(await b.ledger.schedules.list()).toMatchObject([{ state: 'done', outcome: 'ok', starts: 2, host: 'batch-2 202', runId: 'run-2' }]);
    // a wakes up: its next beat finds the occurrence gone and stops its run.
    a.timer.fire();
    await expect.poll(() => stalled.signal.aborted).toBe(true);
  });

  it('lets go of the running occurrence at once when abandoned (a stop past its grace): another instance takes it at its next look, long before the lease', async () => {
    const { a, b, stalled } = await oneStalledOneWaiting();

    await a.scheduler.abandon();
    expect(stalled.signal.aborted).toBe(true);
    // No time passes: only the release explains the takeover.
    await b.scheduler.tick();
    expect(b.requests.map((r) => [r.scheduledAt.toISOString(), r.kind])).toEqual([['2026-11-20T02:00:00.000Z', 'scheduled']]);
    expect(await b.ledger.schedules.list()).toMatchObject([{ state: 'done', outcome: 'ok', starts: 2, host: 'batch-2 202', runId: 'run-2' }]);
  });

  it('renews the lease while a long run goes on, so no other instance takes it over', async () => {
    let finish: (result: RunResult) => void = () => undefined;
    const a = await instance('batch-1 101', (request) => {
      request.onRunStarted('run-a');
      return new Promise<RunResult>((resolve) => (finish = resolve));
    });
    const b = await instance('batch-2 202');
    a.scheduler.start();
    clock.advance(60_000);
    const running = a.scheduler.tick();
    await expect.poll(() => a.requests.length).toBe(1);
    for (let i = 0; i < 5; i++) {
      clock.advance(LEASE / 2);
      a.timer.fire();
      await expect.poll(async () => (await b.ledger.schedules.list())[0]?.runId).toBe('run-a');
      await b.scheduler.tick();
    }
    expect(b.requests).toEqual([]);
    finish({ ...OK, runId: 'run-a' });
    await running;
    expect(await b.ledger.schedules.list()).toMatchObject([{ state: 'done', starts: 1, host: 'batch-1 101' }]);
  });

  it('on stop takes no more occurrences and waits for the running one to finish', async () => {
    let finish: (result: RunResult) => void = () => undefined;
    const a = await instance('batch-1 101', () => new Promise<RunResult>((resolve) => (finish = resolve)));
    a.scheduler.start();
    clock.advance(60_000);
    void a.scheduler.tick();
    await expect.poll(() => a.requests.length).toBe(1);
    let isStopped = false;
    const stopping = a.scheduler.stop().then(() => (isStopped = true));
    await Promise.resolve();
    expect(isStopped).toBe(false);
    finish({ exitCode: 1, summary: { accepted: 1, invalid: 1 }, runId: 'run-1', message: null });
    await stopping;
    expect(await a.ledger.schedules.list()).toMatchObject([{ state: 'done', outcome: 'problems', exitCode: 1 }]);
    clock.advance(86_400_000);
    a.timer.fire();
    await a.scheduler.tick();
    expect(a.requests).toHaveLength(1);
  });

  it('runs a schedule now, once, as a manual occurrence that leaves the timed ones alone', async () => {
    clock.set('2026-11-20T10:00:00.000Z');
    const a = await instance('batch-1 101', async () => ({ exitCode: 3, summary: null, runId: null, message: 'the API could not be used: 401' }));
    expect(await a.scheduler.runNow('nightly')).toMatchObject({ scheduledAt: '2026-11-20T10:00:00.000Z', kind: 'manual', state: 'done', outcome: 'failed', exitCode: 3, message: 'the API could not be used: 401', host: 'batch-1 101' });
    expect(await a.scheduler.runNow('weekly')).toBeNull();
    expect(await a.ledger.schedules.latestTimed('nightly')).toBeNull();
  });

  it('says the occurrences an outage missed in one line, each once across the instances, and nothing more on later looks', async () => {
    const [OFTEN] = toSchedules([{ name: 'often', cron: '*/10 * * * *', timezone: 'UTC', command: 'import', args: ['inbox/'], notify: [], catchUp: '15m' }]);
    const log = recordingLogger<{ msg: string; scheduledAt?: string | string[] }>('warn');
    const schedulerOn = async () =>
      createScheduler({ schedules: [OFTEN!], store: (await open()).schedules, runOccurrence: async () => OK, clock: clock.now, timer: buildTimer(), leaseMs: LEASE, host: 'batch 1', logger: log.logger });
    const first = await schedulerOn();
    first.start();
    clock.advance(60_000);
    await first.tick();
    await first.stop();
    // Down for three hours: 17 occurrences pass between the one that ran and the newest.
    clock.advance(3 * 3_600_000);
    const back = [await schedulerOn(), await schedulerOn()];
    for (const scheduler of back) scheduler.start();
    for (let look = 0; look < 5; look++) {
      await Promise.all(back.map((scheduler) => scheduler.tick()));
      clock.advance(61_000);
    }
    // On PostgreSQL the two instances may share the recording: each occurrence is still said once, in at most one line per instance.
    expect(log.lines.length).toBeGreaterThanOrEqual(1);
    expect(log.lines.length).toBeLessThanOrEqual(back.length);
    for (const line of log.lines) expect(line.msg).toMatch(/^(a schedule occurrence was|\d+ schedule occurrences were) missed: a later occurrence \(2026-11-20T05:00:00\.000Z\) ran in its place$/);
    const said = log.lines.flatMap((line) => [line.scheduledAt ?? []].flat()).sort();
    expect(said).toEqual(Array.from({ length: 17 }, (_, i) => new Date(Date.parse('2026-11-20T02:10:00.000Z') + i * 600_000).toISOString()));
    expect((await (await open()).schedules.list({ schedule: 'often', limit: 100 })).filter((o) => o.state === 'missed')).toHaveLength(17);
  });
});
