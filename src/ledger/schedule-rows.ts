/** A schedule occurrence's row as both backends read it, and the record it becomes. */
import type { OccurrenceKind, OccurrenceOutcome, OccurrenceRecord, OccurrenceResult, OccurrenceState } from './team-types.js';

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
/** What finishing an occurrence writes, in the order both backends' UPDATE takes it: state, outcome, exit code, summary, run id, message. */
export function finishedValues(result: OccurrenceResult): [string, string, number | null, string | null, string | null, string | null] {
  return [result.outcome === 'missed' ? 'missed' : 'done', result.outcome, result.exitCode, result.summary === null ? null : JSON.stringify(result.summary), result.runId, result.message];
}

export function occurrenceLimit(limit: number | undefined): number {
  return Math.max(1, Math.min(Math.floor(limit ?? 50), 1000));
}

/**
 * The schedule_occurrences table and its indexes, one definition in each backend's words: its type for
 * text, a whole number and an instant (ISO text in SQLite), and what follows the table (SQLite: STRICT).
 */
export function scheduleOccurrencesTable(types: { text: string; integer: string; instant: string }, tableOptions: string): string {
  const { text, integer, instant } = types;
  return `
  CREATE TABLE schedule_occurrences (
    schedule_name    ${text} NOT NULL,
    scheduled_at     ${instant} NOT NULL,
    kind             ${text} NOT NULL CHECK (kind IN ('scheduled', 'catch_up', 'manual')),
    state            ${text} NOT NULL CHECK (state IN ('running', 'done', 'missed')),
    holder           ${text},
    host             ${text},
    lease_expires_at ${instant},
    starts           ${integer} NOT NULL DEFAULT 0,
    started_at       ${instant},
    finished_at      ${instant},
    outcome          ${text},
    exit_code        ${integer},
    summary          ${text},
    run_id           ${text},
    message          ${text},
    PRIMARY KEY (schedule_name, scheduled_at)
  )${tableOptions};
  CREATE INDEX schedule_occurrences_running ON schedule_occurrences (lease_expires_at) WHERE state = 'running';
  CREATE INDEX schedule_occurrences_by_run ON schedule_occurrences (run_id);
`;
}
