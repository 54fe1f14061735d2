/**
 * The scheduler's loop at its edges, on an SQLite ledger with the clock in the test's hands: a long
 * run before another schedule's look, and a run's message that quotes an address with its password.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { toSchedules } from '../../src/schedules/schedule-config.js';
import { createScheduler, type RunRequest, type RunResult } from '../../src/schedules/scheduler.js';
import { BACKENDS } from '../ledger/backends.js';
import { useLedgers } from '../ledger/team-support.js';

const HOUR = 3_600_000;
const [LONG, SHORT] = toSchedules([
  { name: 'long-import', cron: '0 2 * * *', timezone: 'UTC', command: 'import', args: ['inbox/'], notify: [], catchUp: '6h' },
  { name: 'short-reconcile', cron: '0 2 * * *', timezone: 'UTC', command: 'reconcile', args: [], notify: [], catchUp: '1h' },
]);
const noTimer = { set: () => 0, clear: () => undefined };

describe('the scheduler at its edges', () => {
  const ledgers = useLedgers(BACKENDS.find((b) => b.name === 'sqlite') ?? BACKENDS[0]!);
  const setClock = (iso: string) => ledgers.clock.advance(Date.parse(iso) - ledgers.clock.now().getTime());
  beforeEach(() => setClock('2026-11-20T01:59:00.000Z'));

  const schedulerOf = async (run: (request: RunRequest) => Promise<RunResult>) => {
    const ledger = await ledgers.open();
    const scheduler = createScheduler({ schedules: [LONG!, SHORT!], store: ledger.schedules, runOccurrence: run, clock: ledgers.clock.now, timer: noTimer, leaseMs: 60_000, host: 'batch-1 101', logger: silentLogger });
    return { ledger, scheduler };
  };

  it('judges a schedule looked at after another one ran for hours by the time it is looked at: past its catch-up window, it is missed', async () => {
    const ran: string[] = [];
    const { ledger, scheduler } = await schedulerOf(async (request) => {
      ran.push(request.schedule.name);
      // The import takes two hours: the reconcile's occurrence is then past its one-hour catch-up window.
      if (request.schedule.name === 'long-import') ledgers.clock.advance(2 * HOUR);
      return { exitCode: 0, summary: null, runId: null, message: null };
    });
    scheduler.start();
    setClock('2026-11-20T02:00:01.000Z');
    await scheduler.tick();
    expect(ran).toEqual(['long-import']);
    const [reconcile] = await ledger.schedules.list({ schedule: 'short-reconcile' });
    expect([reconcile?.scheduledAt, reconcile?.state]).toEqual(['2026-11-20T02:00:00.000Z', 'missed']);
  });

  it('keeps and logs a run\'s message with the passwords of the addresses it quotes masked', async () => {
    const { ledger, scheduler } = await schedulerOf(async () => ({ exitCode: 2, summary: null, runId: null, message: 'cannot read sftp://batch:hunter2@files.example/inbox/' }));
    const record = await scheduler.runNow('long-import');
    expect(record?.message).toBe('cannot read sftp://batch:***@files.example/inbox/');
    const [kept] = await ledger.schedules.list({ schedule: 'long-import' });
    expect(kept?.message).toBe('cannot read sftp://batch:***@files.example/inbox/');
  });
});
