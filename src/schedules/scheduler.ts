/**
 * The scheduler's loop: at each occurrence of a schedule (and every poll, for occurrences whose
 * instance died), claim it in the ledger and run it. Of the instances sharing a ledger, the one whose
 * insert of the occurrence commits first runs it; the others find it held. The clock and the timer are
 * handed in, so tests move time without sleeping. Stopping takes no more occurrences and waits for the
 * running one to finish.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../log.js';
import type { OccurrenceKey, OccurrenceKind, OccurrenceOutcome, OccurrenceRecord, OccurrenceResult, ScheduleOccurrences } from '../ledger/team-types.js';
import { isWithinCatchUp, MAX_MISSED_RECORDED, nextOccurrences, occurrencesBetween, planCatchUp } from './occurrences.js';
import type { Schedule } from './schedule-config.js';

/** setTimeout and clearTimeout, or a test's imitation of them. */
export interface SchedulerTimer {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export const systemTimer: SchedulerTimer = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface RunRequest {
  schedule: Schedule;
  scheduledAt: Date;
  kind: OccurrenceKind;
  /** Aborted when this instance lost the occurrence (its lease lapsed): send nothing more. */
  signal: AbortSignal;
  /** Called with the ledger run's id as soon as there is one (it is noted on the occurrence at once). */
  onRunStarted(runId: string): void;
}

export interface RunResult {
  exitCode: number;
  summary: Record<string, number> | null;
  runId: string | null;
  /** One line: what stopped the run, or what it did. */
  message: string | null;
}

/** Runs one occurrence's command; never throws for what stops a run (that is a result with its exit code). */
export type RunOccurrence = (request: RunRequest) => Promise<RunResult>;

export interface SchedulerOptions {
  schedules: readonly Schedule[];
  store: ScheduleOccurrences;
  runOccurrence: RunOccurrence;
  clock: () => Date;
  timer?: SchedulerTimer;
  /** How long an occurrence outlives its instance's last sign of life (the ledger's claim lease). */
  leaseMs: number;
  /** Where it runs, as `schedules list` shows it: host name and process id. */
  host: string;
  logger: Logger;
  /** How often to look for occurrences whose instance died (default: half the lease, at least 1 s). */
  pollMs?: number;
}

/** Missed occurrences are recorded for a day before the catch-up window; older ones are not listed. */
const MISSED_LOOKBACK_MS = 86_400_000;

/** The exit code's outcome: 0 ok, 1 orders to fix or not accepted, anything else the run failed. */
export function outcomeOf(exitCode: number): OccurrenceOutcome {
  return exitCode === 0 ? 'ok' : exitCode === 1 ? 'problems' : 'failed';
}

export interface Scheduler {
  /** Starts the loop (the first look at once). */
  start(): void;
  /** One look: the occurrences due now and the ones whose instance died. Resolves once they ran. */
  tick(): Promise<void>;
  /** Runs the schedule now, once (`schedules run`); null when no schedule has that name. */
  runNow(name: string): Promise<OccurrenceRecord | null>;
  /** Takes no more occurrences; resolves when the running one has finished. */
  stop(): Promise<void>;
}

export function createScheduler(options: SchedulerOptions): Scheduler {
  const { store, clock, logger, leaseMs } = options;
  const timer = options.timer ?? systemTimer;
  const holder = `${options.host} ${randomUUID()}`;
  const pollMs = options.pollMs ?? Math.max(1_000, Math.floor(leaseMs / 2));
  // An occurrence found this late is still on time: the timer fires after the instant, a poll later at worst.
  const graceMs = pollMs + 5_000;
  const byName = new Map(options.schedules.map((s) => [s.name, s]));
  let startedAt = clock();
  let isStopping = false;
  let handle: unknown = null;
  let current: Promise<void> | null = null;

  async function execute(schedule: Schedule, claimed: OccurrenceRecord): Promise<OccurrenceRecord> {
    const key: OccurrenceKey = { schedule: claimed.schedule, scheduledAt: claimed.scheduledAt };
    const controller = new AbortController();
    let runId: string | null = claimed.runId;
    let beatHandle: unknown = null;
    let isDone = false;
    const beat = async () => {
      const isHeld = await store.beat(key, holder, leaseMs, runId ? { runId } : {}).catch((error: Error) => {
        logger.warn({ schedule: key.schedule, err: error.message }, 'the schedule occurrence could not renew its lease; trying again');
        return true;
      });
      if (!isHeld && !controller.signal.aborted) {
        logger.error({ schedule: key.schedule, scheduledAt: key.scheduledAt }, 'the schedule occurrence was taken over by another instance (its lease lapsed); sending nothing more');
        controller.abort();
      }
    };
    const armBeat = () => {
      beatHandle = timer.set(() => void beat().then(() => isDone || controller.signal.aborted || armBeat()), Math.max(50, Math.floor(leaseMs / 3)));
    };
    armBeat();
    logger.info({ schedule: key.schedule, scheduledAt: key.scheduledAt, kind: claimed.kind, starts: claimed.starts }, claimed.starts > 1 ? 'taking over a schedule occurrence whose instance stopped' : 'running a schedule occurrence');
    let result: OccurrenceResult;
    try {
      const ran = await options.runOccurrence({
        schedule,
        scheduledAt: new Date(claimed.scheduledAt),
        kind: claimed.kind,
        signal: controller.signal,
        onRunStarted: (id) => {
          runId = id;
          void beat();
        },
      });
      result = { outcome: outcomeOf(ran.exitCode), exitCode: ran.exitCode, summary: ran.summary, runId: ran.runId ?? runId, message: ran.message };
    } catch (error) {
      // A bug, not a user's mistake: recorded, and the loop goes on with the next occurrence.
      result = { outcome: 'failed', exitCode: null, summary: null, runId, message: `internal error: ${(error as Error).message}` };
    } finally {
      isDone = true;
      timer.clear(beatHandle);
    }
    const isRecorded = await store.finish(key, holder, result);
    if (!isRecorded) logger.warn({ schedule: key.schedule, scheduledAt: key.scheduledAt }, 'the occurrence had been taken over by another instance; its result is that instance\'s');
    logger.info({ schedule: key.schedule, scheduledAt: key.scheduledAt, outcome: result.outcome, exitCode: result.exitCode, summary: result.summary, runId: result.runId }, 'the schedule occurrence finished');
    return { ...claimed, ...result, state: result.outcome === 'missed' ? 'missed' : 'done', finishedAt: clock().toISOString(), host: options.host };
  }

  async function claimAndRun(schedule: Schedule, scheduledAt: Date, kind: OccurrenceKind): Promise<void> {
    const claimed = await store.claim({ schedule: schedule.name, scheduledAt: scheduledAt.toISOString(), kind, holder, host: options.host, leaseMs });
    if (claimed) await execute(schedule, claimed);
  }

  async function lookAtSchedule(schedule: Schedule, now: Date): Promise<void> {
    const latest = await store.latestTimed(schedule.name);
    // A schedule never run before starts from this instance's start: nothing before it is missed.
    const anchor = latest ? new Date(latest) : startedAt;
    const floor = new Date(now.getTime() - schedule.catchUpMs - MISSED_LOOKBACK_MS);
    const from = anchor > floor ? anchor : floor;
    const plan = planCatchUp(occurrencesBetween(schedule, from, now, MAX_MISSED_RECORDED), now, schedule.catchUpMs, graceMs);
    for (const missed of plan.missed) {
      const why = plan.run
        ? `a later occurrence (${plan.run.toISOString()}) ran in its place`
        : `no instance was running within its catch-up window (${schedule.catchUp})`;
      if (await store.recordMissed({ schedule: schedule.name, scheduledAt: missed.toISOString() }, why)) {
        logger.warn({ schedule: schedule.name, scheduledAt: missed.toISOString() }, `a schedule occurrence was missed: ${why}`);
      }
    }
    if (plan.run) await claimAndRun(schedule, plan.run, plan.isLate ? 'catch_up' : 'scheduled');
  }

  async function takeOverLapsed(now: Date): Promise<void> {
    for (const lapsed of await store.listLapsed()) {
      if (isStopping) return;
      // A schedule this instance's config does not have is left to the instances that have it.
      const schedule = byName.get(lapsed.schedule);
      if (!schedule) continue;
      const at = new Date(lapsed.scheduledAt);
      if (lapsed.kind === 'manual' || isWithinCatchUp(at, now, schedule.catchUpMs, graceMs)) {
        await claimAndRun(schedule, at, lapsed.kind);
        continue;
      }
      const claimed = await store.claim({ schedule: schedule.name, scheduledAt: lapsed.scheduledAt, kind: lapsed.kind, holder, host: options.host, leaseMs });
      if (claimed) {
        const message = `its instance stopped mid-run and no other took it over within its catch-up window (${schedule.catchUp})`;
        await store.finish(claimed, holder, { outcome: 'missed', exitCode: null, summary: null, runId: claimed.runId, message });
      }
    }
  }

  async function look(): Promise<void> {
    const now = clock();
    for (const schedule of options.schedules) {
      if (isStopping) return;
      await lookAtSchedule(schedule, now);
    }
    if (!isStopping) await takeOverLapsed(clock());
  }

  function delayToNext(): number {
    const now = clock();
    let delay = pollMs;
    for (const schedule of options.schedules) {
      const next = nextOccurrences(schedule, now, 1)[0];
      if (next) delay = Math.min(delay, next.getTime() - now.getTime());
    }
    return Math.max(0, delay);
  }

  function arm(ms: number): void {
    if (isStopping) return;
    handle = timer.set(() => {
      handle = null;
      void tick().finally(() => arm(delayToNext()));
    }, ms);
  }

  function tick(): Promise<void> {
    if (current) return current;
    current = look()
      .catch((error: Error) => logger.error({ err: error.message }, 'the scheduler could not look at its schedules; it tries again at the next occurrence or poll'))
      .finally(() => (current = null));
    return current;
  }

  return {
    start() {
      startedAt = clock();
      arm(0);
    },
    tick,
    async runNow(name) {
      const schedule = byName.get(name);
      if (!schedule) return null;
      const claimed = await store.claim({ schedule: name, scheduledAt: clock().toISOString(), kind: 'manual', holder, host: options.host, leaseMs });
      if (!claimed) throw new Error(`the occurrence of ${name} at this instant is already held`);
      return execute(schedule, claimed);
    },
    async stop() {
      isStopping = true;
      if (handle !== null) timer.clear(handle);
      handle = null;
      await current;
    },
  };
}
