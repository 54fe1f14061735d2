/** A schedule occurrence's row as both backends read it, and the record it becomes. */
import type { OccurrenceKind, OccurrenceOutcome, OccurrenceRecord, OccurrenceState } from './team-types.js';

export interface OccurrenceRow {
  schedule_name: string;
  scheduled_at: string;
  kind: string;
  state: string;
  host: string | null;
  starts: number | string;
  started_at: string | null;
  finished_at: string | null;
  outcome: string | null;
  exit_code: number | null;
  summary: string | null;
  run_id: string | null;
  message: string | null;
}

/** The columns an occurrence is read with (the holder's token and lease stay inside the backends). */
export const OCCURRENCE_COLUMNS = 'schedule_name, scheduled_at, kind, state, host, starts, started_at, finished_at, outcome, exit_code, summary, run_id, message';

export function toOccurrence(row: OccurrenceRow): OccurrenceRecord {
  const summary = row.summary === null ? null : (JSON.parse(row.summary) as Record<string, number>);
  return {
    schedule: row.schedule_name,
    scheduledAt: new Date(row.scheduled_at).toISOString(),
    kind: row.kind as OccurrenceKind,
    state: row.state as OccurrenceState,
    host: row.host,
    starts: Number(row.starts),
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    outcome: row.outcome as OccurrenceOutcome | null,
    exitCode: row.exit_code === null ? null : Number(row.exit_code),
    summary,
    runId: row.run_id,
    message: row.message,
  };
}

/** A list's bound: default 50, at most 1,000. */
export function occurrenceLimit(limit: number | undefined): number {
  return Math.max(1, Math.min(Math.floor(limit ?? 50), 1000));
}
