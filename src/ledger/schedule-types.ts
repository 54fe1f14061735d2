/**
 * What the ledger keeps of schedules (PRODUCT.md section 9): each occurrence of a schedule, claimed by
 * one instance under a lease, with its outcome. Times are ISO 8601 UTC strings.
 */
/** How an occurrence came to run: at its time, late within the catch-up window, or by `schedules run`. */
export const OCCURRENCE_KINDS = ['scheduled', 'catch_up', 'manual'] as const;
export type OccurrenceKind = (typeof OCCURRENCE_KINDS)[number];
/** running: an instance holds it under a lease. done: it ran (its outcome says how). missed: it never ran. */
export const OCCURRENCE_STATES = ['running', 'done', 'missed'] as const;
export type OccurrenceState = (typeof OCCURRENCE_STATES)[number];
/** ok: exit 0; problems: exit 1 (orders to fix or not accepted); failed: the run could not be done. */
export type OccurrenceOutcome = 'ok' | 'problems' | 'failed' | 'missed';

export interface OccurrenceKey {
  schedule: string;
  /** The cron instant (ISO 8601 UTC); for a manual run, when it was asked for. */
  scheduledAt: string;
}

export interface OccurrenceResult {
  outcome: OccurrenceOutcome;
  exitCode: number | null;
  summary: Record<string, number> | null;
  runId: string | null;
  message: string | null;
}

export interface OccurrenceRecord extends OccurrenceKey, Omit<OccurrenceResult, 'outcome'> {
  /** Null while it runs. */
  outcome: OccurrenceOutcome | null;
  kind: OccurrenceKind;
  state: OccurrenceState;
  /** Where it ran (or runs): the host name and process id of the instance that holds or held it. */
  host: string | null;
  /** How many times an instance started it (more than one: it was taken over). */
  starts: number;
  startedAt: string | null;
  finishedAt: string | null;
}

/**
 * The occurrences of schedules, one row per schedule and instant: the row is the claim, so of the
 * instances that reach an occurrence at once exactly one runs it. A running occurrence's lease is
 * renewed while it runs (on PostgreSQL timed by the database's clock, as runs' leases are); one whose
 * holder died is taken over once the lease has lapsed and its run no longer holds its orders.
 */
export interface ScheduleOccurrences {
  /**
   * Takes the occurrence: inserted as running, held by `holder`; or, when it is running under a lease
   * that lapsed, taken over (one start more, its kind kept). Null when it ran, was missed, or another
   * instance holds it alive.
   */
  claim(occurrence: OccurrenceKey & { kind: OccurrenceKind; holder: string; host: string; leaseMs: number }): Promise<OccurrenceRecord | null>;
  /** Renews the lease (noting the run id when given); false when `holder` no longer holds it. */
  beat(key: OccurrenceKey, holder: string, leaseMs: number, update?: { runId?: string }): Promise<boolean>;
  /** Ends the occurrence with its result when `holder` still holds it; false otherwise. */
  finish(key: OccurrenceKey, holder: string, result: OccurrenceResult): Promise<boolean>;
  /** Records an occurrence that will not run (outside its catch-up window); false when it was already recorded. */
  recordMissed(key: OccurrenceKey, message: string): Promise<boolean>;
  /** The latest instant of the schedule's timed occurrences (scheduled or caught up; manual runs aside), or null. */
  latestTimed(schedule: string): Promise<string | null>;
  /** Running occurrences whose lease lapsed (and whose run no longer holds its orders): to take over. */
  listLapsed(): Promise<OccurrenceRecord[]>;
  /** Newest first (by instant); of one schedule when named. Default 50. */
  list(query?: { schedule?: string; limit?: number }): Promise<OccurrenceRecord[]>;
}
