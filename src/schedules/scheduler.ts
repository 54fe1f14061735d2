/**
 * The scheduler's loop: at each occurrence of a schedule (and every poll, for occurrences whose
 * instance died), claim it in the ledger and run it. Of the instances sharing a ledger, the one whose
 * insert of the occurrence commits first runs it; the others find it held. The clock and the timer are
 * handed in, so tests move time without sleeping. Stopping takes no more occurrences and waits for the
 * running one to finish.
 */
import { randomUUID } from 'node:crypto';
import type { OccurrenceKind, OccurrenceRecord } from '../ledger/index.js';
import { isWithinCatchUp, MAX_MISSED_RECORDED, nextOccurrences, occurrencesBetween, planCatchUp } from './occurrences.js';
import { runClaimed } from './run-claimed.js';
import type { Schedule } from './schedule-config.js';
import { systemTimer, type SchedulerOptions, type SchedulerTimer } from './types.js';

export { outcomeOf } from './run-claimed.js';
export type { RunOccurrence, RunRequest, RunResult, SchedulerOptions, SchedulerTimer } from './types.js';

/** Missed occurrences are recorded for a day before the catch-up window; older ones are not listed. */
const MISSED_LOOKBACK_MS = 86_400_000;

export interface Scheduler {
  /** Starts the loop (the first look at once). */
  start(): void;
  /** One look: the occurrences due now and the ones whose instance died. Resolves once they ran. */
  tick(): Promise<void>;
  /** Runs the schedule now, once (`schedules run`); null when no schedule has that name. */
  runNow(name: string): Promise<OccurrenceRecord | null>;
  /** Takes no more occurrences; resolves when the running one has finished. */
  stop(): Promise<void>;
  /** The stop's grace is over: the running occurrence is let go of now (its lease ends), for another instance to take at once. */
  abandon(): Promise<void>;
}

export function createScheduler(options: SchedulerOptions): Scheduler {
  return new ScheduleLoop(options);
}

class ScheduleLoop implements Scheduler {
  private readonly timer: SchedulerTimer;
  private readonly holder: string;
  private readonly pollMs: number;
  /** An occurrence found this late is still on time: the timer fires after the instant, a poll later at worst. */
  private readonly graceMs: number;
  private readonly byName: ReadonlyMap<string, Schedule>;
  private startedAt: Date;
  private isStopping = false;
  private handle: unknown = null;
  private current: Promise<void> | null = null;
  private abandonRunning: (() => Promise<void>) | null = null;

  constructor(private readonly options: SchedulerOptions) {
    this.timer = options.timer ?? systemTimer;
    this.holder = `${options.host} ${randomUUID()}`;
    this.pollMs = options.pollMs ?? Math.max(1_000, Math.floor(options.leaseMs / 2));
    this.graceMs = this.pollMs + 5_000;
    this.byName = new Map(options.schedules.map((s) => [s.name, s]));
    this.startedAt = options.clock();
  }

  start(): void {
    this.startedAt = this.options.clock();
    this.arm(0);
  }

  tick(): Promise<void> {
    if (this.current) return this.current;
    this.current = this.look()
      .catch((error: Error) => this.options.logger.error({ err: error.message }, 'the scheduler could not look at its schedules; it tries again at the next occurrence or poll'))
      .finally(() => (this.current = null));
    return this.current;
  }

  async runNow(name: string): Promise<OccurrenceRecord | null> {
    const schedule = this.byName.get(name);
    if (!schedule) return null;
    const claimed = await this.claim(schedule.name, this.options.clock().toISOString(), 'manual');
    if (!claimed) throw new Error(`the occurrence of ${name} at this instant is already held`);
    return this.execute(schedule, claimed);
  }

  async stop(): Promise<void> {
    this.isStopping = true;
    if (this.handle !== null) this.timer.clear(this.handle);
    this.handle = null;
    await this.current;
  }

  async abandon(): Promise<void> {
    this.isStopping = true;
    await this.abandonRunning?.();
  }

  private claim(schedule: string, scheduledAt: string, kind: OccurrenceKind): Promise<OccurrenceRecord | null> {
    const { store, host, leaseMs } = this.options;
    return store.claim({ schedule, scheduledAt, kind, holder: this.holder, host, leaseMs });
  }

  private execute(schedule: Schedule, claimed: OccurrenceRecord): Promise<OccurrenceRecord> {
    const onAbandonable = (abandon: () => Promise<void>) => {
      this.abandonRunning = abandon;
      return () => void (this.abandonRunning = null);
    };
    return runClaimed({ ...this.options, timer: this.timer, holder: this.holder, onAbandonable }, schedule, claimed);
  }

  private async claimAndRun(schedule: Schedule, scheduledAt: Date, kind: OccurrenceKind): Promise<void> {
    const claimed = await this.claim(schedule.name, scheduledAt.toISOString(), kind);
    if (claimed) await this.execute(schedule, claimed);
  }

  private async look(): Promise<void> {
    for (const schedule of this.options.schedules) {
      if (this.isStopping) return;
      // Read for each schedule: the one before may have run for hours, and lateness is measured now.
      await this.lookAtSchedule(schedule, this.options.clock());
    }
    if (!this.isStopping) await this.takeOverLapsed(this.options.clock());
  }

  private async lookAtSchedule(schedule: Schedule, now: Date): Promise<void> {
    const { store, logger } = this.options;
    const latest = await store.latestTimed(schedule.name);
    // A schedule never run before starts from this instance's start: nothing before it is missed.
    const anchor = latest ? new Date(latest) : this.startedAt;
    const floor = new Date(now.getTime() - schedule.catchUpMs - MISSED_LOOKBACK_MS);
    const from = anchor > floor ? anchor : floor;
    const plan = planCatchUp(occurrencesBetween(schedule, from, now, MAX_MISSED_RECORDED), now, schedule.catchUpMs, this.graceMs);
    const why = plan.run
      ? `a later occurrence (${plan.run.toISOString()}) ran in its place`
      : `no instance was running within its catch-up window (${schedule.catchUp})`;
    const recorded: string[] = [];
    for (const missed of plan.missed) {
      // Only the instance whose record is the first says so: every missed occurrence is told once, across instances.
      if (await store.recordMissed({ schedule: schedule.name, scheduledAt: missed.toISOString() }, why)) recorded.push(missed.toISOString());
    }
    // One line for the occurrences of one outage, however many: a day of an every-minute schedule is not a screenful.
    if (recorded.length > 0) logger.warn(describeMissed(schedule.name, recorded), recorded.length === 1 ? `a schedule occurrence was missed: ${why}` : `${recorded.length} schedule occurrences were missed: ${why}`);
    if (plan.run) await this.claimAndRun(schedule, plan.run, plan.isLate ? 'catch_up' : 'scheduled');
  }

  private async takeOverLapsed(now: Date): Promise<void> {
    for (const lapsed of await this.options.store.listLapsed()) {
      if (this.isStopping) return;
      // A schedule this instance's config does not have is left to the instances that have it.
      const schedule = this.byName.get(lapsed.schedule);
      if (!schedule) continue;
      const at = new Date(lapsed.scheduledAt);
      if (lapsed.kind === 'manual' || isWithinCatchUp(at, now, schedule.catchUpMs, this.graceMs)) {
        await this.claimAndRun(schedule, at, lapsed.kind);
        continue;
      }
      const claimed = await this.claim(schedule.name, lapsed.scheduledAt, lapsed.kind);
      if (claimed) {
        const message = `its instance stopped mid-run and no other took it over within its catch-up window (${schedule.catchUp})`;
        await this.options.store.finish(claimed, this.holder, { outcome: 'missed', exitCode: null, summary: null, runId: claimed.runId, message });
      }
    }
  }

  /** How long until the next occurrence of any schedule, or the next poll for lapsed ones. */
  private delayToNext(): number {
    const now = this.options.clock();
    let delay = this.pollMs;
    for (const schedule of this.options.schedules) {
      const next = nextOccurrences(schedule, now, 1)[0];
      if (next) delay = Math.min(delay, next.getTime() - now.getTime());
    }
    return Math.max(0, delay);
  }

  private arm(ms: number): void {
    if (this.isStopping) return;
    this.handle = this.timer.set(() => {
      this.handle = null;
      void this.tick().finally(() => this.arm(this.delayToNext()));
    }, ms);
  }
}

/** The log fields of the missed occurrences of one look: each one, in a line of its own only when it is alone. */
function describeMissed(schedule: string, recorded: readonly string[]): Record<string, unknown> {
  return recorded.length === 1 ? { schedule, scheduledAt: recorded[0] } : { schedule, missed: recorded.length, scheduledAt: recorded };
}
