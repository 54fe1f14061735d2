/** What the scheduler hands a run and gets back, and the timer it waits with. */
import type { OccurrenceKind, ScheduleOccurrences } from '../ledger/index.js';
import type { Logger } from '../log.js';
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
  /**
   * Tells the scheduler what lets go of the run's orders at once (its ledger's open runs end as a death
   * would), should a stop's grace end before the run does; the occurrence is let go of after them.
   */
  letGoWith?(letGo: () => Promise<void>): void;
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

