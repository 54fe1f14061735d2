/**
 * When a schedule's occurrences fall, and what to do with those that passed while no instance ran
 * (pure: the instants come in, decisions go out). Cron arithmetic is croner's, in the schedule's zone:
 * a time skipped by a daylight-saving change runs once just after the change, a time that happens
 * twice runs once (croner's documented behaviour).
 */
import { Cron } from 'croner';
import type { Schedule } from './schedule-config.js';

/** Occurrences older than this many are recorded as missed without being listed one by one. */
export const MAX_MISSED_RECORDED = 100;

function cronOf(schedule: Pick<Schedule, 'cron' | 'timezone'>): Cron {
  return new Cron(schedule.cron, { timezone: schedule.timezone, paused: true });
}

/** The next `count` occurrences strictly after `after`. */
export function nextOccurrences(schedule: Pick<Schedule, 'cron' | 'timezone'>, after: Date, count: number): Date[] {
  return cronOf(schedule).nextRuns(count, after);
}

/**
 * The occurrences in (from, to], oldest first; when there are more than `limit`, the newest `limit`
 * of them (an every-second schedule down for a day has 86,400, and only the last ones matter).
 */
export function occurrencesBetween(schedule: Pick<Schedule, 'cron' | 'timezone'>, from: Date, to: Date, limit: number): Date[] {
  const cron = cronOf(schedule);
  const found: Date[] = [];
  for (let next = cron.nextRun(from); next !== null && next.getTime() <= to.getTime(); next = cron.nextRun(next)) {
    found.push(next);
    if (found.length > limit) found.shift();
  }
  return found;
}

export interface CatchUpPlan {
  /** The occurrence to run now: the newest that passed, when it is within the catch-up window. */
  run: Date | null;
  /** The others that passed: recorded as missed, never run. */
  missed: Date[];
  /** Whether `run` is late (its time passed before this instance looked): a catch-up. */
  isLate: boolean;
}

/**
 * What to do at `now` with the occurrences that passed (oldest first, all at or before now). Only the
 * newest can run: two runs of one nightly import back to back would send nothing the second did not,
 * and a reconcile reads the same API twice. `graceMs`: how late an occurrence may be found and still
 * count as on time (the instance's timer fires a little after the instant).
 */
export function planCatchUp(passed: readonly Date[], now: Date, catchUpMs: number, graceMs: number): CatchUpPlan {
  const newest = passed.at(-1);
  if (newest === undefined) return { run: null, missed: [], isLate: false };
  const lateness = now.getTime() - newest.getTime();
  const isRunnable = lateness <= Math.max(catchUpMs, graceMs);
  return {
    run: isRunnable ? newest : null,
    missed: isRunnable ? passed.slice(0, -1) : [...passed],
    isLate: lateness > graceMs,
  };
}

/** Whether an occurrence whose instance died may still be finished at `now`: within its catch-up window. */
export function isWithinCatchUp(scheduledAt: Date, now: Date, catchUpMs: number, graceMs: number): boolean {
  return now.getTime() - scheduledAt.getTime() <= Math.max(catchUpMs, graceMs);
}
