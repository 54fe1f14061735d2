/**
 * One claimed occurrence run to its end: its command run, its lease renewed while it runs (a third of
 * the lease at a time), its result recorded. An instance that finds at a renewal that the occurrence
 * is no longer its own (its lease lapsed while it hung, and another took over) stops sending.
 */
import type { OccurrenceKey, OccurrenceOutcome, OccurrenceRecord, OccurrenceResult } from '../ledger/index.js';
import { redactUrlsIn } from '../redact.js';
import type { Schedule } from './schedule-config.js';
import type { SchedulerOptions, SchedulerTimer } from './types.js';

/** The exit code's outcome: 0 ok, 1 orders to fix or not accepted, anything else the run failed. */
export function outcomeOf(exitCode: number): OccurrenceOutcome {
  return exitCode === 0 ? 'ok' : exitCode === 1 ? 'problems' : 'failed';
}

/** A run's message may quote its args' addresses (sftp://user:password@…): kept and logged without their secrets. */
function redactMessage(message: string | null): string | null {
  return message === null ? null : redactUrlsIn(message);
}

export interface RunContext extends Pick<SchedulerOptions, 'store' | 'runOccurrence' | 'clock' | 'leaseMs' | 'host' | 'logger'> {
  timer: SchedulerTimer;
  holder: string;
  /** Hands the scheduler what lets go of this occurrence at once (a stop's grace is over); returns what forgets it. */
  onAbandonable?: (abandon: () => Promise<void>) => () => void;
}

export async function runClaimed(ctx: RunContext, schedule: Schedule, claimed: OccurrenceRecord): Promise<OccurrenceRecord> {
  const { store, logger, holder, leaseMs, timer } = ctx;
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
  let isAbandoned = false;
  let letGoOfRun: (() => Promise<void>) | undefined;
  const forget = ctx.onAbandonable?.(async () => {
    isAbandoned = true;
    controller.abort();
    timer.clear(beatHandle);
    // The run's orders first, then the occurrence: the instance that takes it over finds its orders free.
    await letGoOfRun?.().catch((error: Error) => logger.warn({ schedule: key.schedule, err: error.message }, "could not let go of the schedule occurrence's orders"));
    // Its lease ends now: another instance takes the occurrence at its next look, not after the lease.
    await store.beat(key, holder, 0).catch((error: Error) => logger.warn({ schedule: key.schedule, err: error.message }, 'could not let go of the schedule occurrence'));
  });
  logger.info({ schedule: key.schedule, scheduledAt: key.scheduledAt, kind: claimed.kind, starts: claimed.starts }, claimed.starts > 1 ? 'taking over a schedule occurrence whose instance stopped' : 'running a schedule occurrence');
  let result: OccurrenceResult;
  try {
    const ran = await ctx.runOccurrence({
      schedule,
      scheduledAt: new Date(claimed.scheduledAt),
      kind: claimed.kind,
      signal: controller.signal,
      onRunStarted: (id) => {
        runId = id;
        // Noted at once: an instance taking over waits for this run's claims on its orders to lapse.
        void beat();
      },
      letGoWith: (letGo) => (letGoOfRun = letGo),
    });
    result = { outcome: outcomeOf(ran.exitCode), exitCode: ran.exitCode, summary: ran.summary, runId: ran.runId ?? runId, message: redactMessage(ran.message) };
  } catch (error) {
    // A bug, not a user's mistake: recorded, and the loop goes on with the next occurrence.
    result = { outcome: 'failed', exitCode: null, summary: null, runId, message: redactMessage(`internal error: ${(error as Error).message}`) };
  } finally {
    isDone = true;
    timer.clear(beatHandle);
    forget?.();
  }
  // Let go of: the instance that takes it over records its end.
  if (isAbandoned) return { ...claimed, runId };
  if (!(await store.finish(key, holder, result))) {
    logger.warn({ schedule: key.schedule, scheduledAt: key.scheduledAt }, "the occurrence had been taken over by another instance; its result is that instance's");
  }
  logger.info({ schedule: key.schedule, scheduledAt: key.scheduledAt, outcome: result.outcome, exitCode: result.exitCode, summary: result.summary, runId: result.runId }, 'the schedule occurrence finished');
  return { ...claimed, ...result, state: result.outcome === 'missed' ? 'missed' : 'done', finishedAt: ctx.clock().toISOString(), host: ctx.host };
}
