/**
 * Schedule occurrences in a PostgreSQL ledger. The primary key is the claim: of the instances that
 * insert one occurrence at once, one inserts it and the others wait for its commit, then find it held.
 * Leases are timed by the database's clock, as runs' are; a lapsed occurrence is taken over only when
 * its run (if it started one) no longer holds its orders, so the import that resumes meets none of
 * them "in progress elsewhere".
 */
import type { ScheduleOccurrences } from '../team-types.js';
import { finishedValues, OCCURRENCE_COLUMNS, occurrenceLimit, scheduleOccurrencesTable, toOccurrence, type OccurrenceRow } from '../schedule-rows.js';
import type { TeamContext } from './team-accounts.js';

// Each occurrence of a schedule, claimed once across the team (the SQLite ledger has the same table).
export const POSTGRES_SCHEDULE_TABLES = scheduleOccurrencesTable({ text: 'text', integer: 'integer', instant: 'timestamptz' }, '');

const LEASE_END = (n: number) => `clock_timestamp() + $${n}::int * interval '1 millisecond'`;
/** The occurrence `s` may be taken over: its lease lapsed and its run, if any, holds no orders. */
const LAPSED = (s: string) => `${s}.state = 'running' AND ${s}.lease_expires_at <= clock_timestamp()
  AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.run_id = ${s}.run_id AND r.finished_at IS NULL AND r.lease_expires_at > clock_timestamp())`;

export function createPostgresSchedules({ query, now }: TeamContext): ScheduleOccurrences {
  return {
    async claim(o) {
      const { rows } = await query<OccurrenceRow>(
        `INSERT INTO schedule_occurrences AS s (schedule_name, scheduled_at, kind, state, holder, host, lease_expires_at, starts, started_at)
         VALUES ($1, $2, $3, 'running', $4, $5, ${LEASE_END(6)}, 1, $7)
         ON CONFLICT (schedule_name, scheduled_at) DO UPDATE SET holder = EXCLUDED.holder, host = EXCLUDED.host,
           lease_expires_at = EXCLUDED.lease_expires_at, starts = s.starts + 1
         WHERE ${LAPSED('s')}
         RETURNING ${OCCURRENCE_COLUMNS}`,
        [o.schedule, o.scheduledAt, o.kind, o.holder, o.host, o.leaseMs, now().toISOString()],
      );
      return rows[0] ? toOccurrence(rows[0]) : null;
    },
    async beat(key, holder, leaseMs, update = {}) {
      const { rowCount } = await query(
        `UPDATE schedule_occurrences SET lease_expires_at = ${LEASE_END(1)}, run_id = coalesce($2, run_id)
         WHERE schedule_name = $3 AND scheduled_at = $4 AND holder = $5 AND state = 'running'`,
        [leaseMs, update.runId ?? null, key.schedule, key.scheduledAt, holder],
      );
      return (rowCount ?? 0) > 0;
    },
    async finish(key, holder, result) {
      const { rowCount } = await query(
        `UPDATE schedule_occurrences SET state = $1, outcome = $2, exit_code = $3, summary = $4, run_id = coalesce($5, run_id), message = $6,
           finished_at = $7, holder = NULL, lease_expires_at = NULL
         WHERE schedule_name = $8 AND scheduled_at = $9 AND holder = $10 AND state = 'running'`,
        [...finishedValues(result), now().toISOString(), key.schedule, key.scheduledAt, holder],
      );
      return (rowCount ?? 0) > 0;
    },
    async recordMissed(key, message) {
      const { rowCount } = await query(
        `INSERT INTO schedule_occurrences (schedule_name, scheduled_at, kind, state, outcome, message, finished_at)
         VALUES ($1, $2, 'scheduled', 'missed', 'missed', $3, $4) ON CONFLICT DO NOTHING`,
        [key.schedule, key.scheduledAt, message, now().toISOString()],
      );
      return (rowCount ?? 0) > 0;
    },
    async latestTimed(schedule) {
      const { rows } = await query<{ at: string | null }>(`SELECT max(scheduled_at) AS at FROM schedule_occurrences WHERE schedule_name = $1 AND kind <> 'manual'`, [schedule]);
      return rows[0]?.at ? new Date(rows[0].at).toISOString() : null;
    },
    async listLapsed() {
      const { rows } = await query<OccurrenceRow>(`SELECT ${OCCURRENCE_COLUMNS} FROM schedule_occurrences o WHERE ${LAPSED('o')} ORDER BY scheduled_at`);
      return rows.map(toOccurrence);
    },
    async list(q = {}) {
      const limit = occurrenceLimit(q.limit);
      const { rows } = q.schedule === undefined
        ? await query<OccurrenceRow>(`SELECT ${OCCURRENCE_COLUMNS} FROM schedule_occurrences ORDER BY scheduled_at DESC, schedule_name LIMIT $1`, [limit])
        : await query<OccurrenceRow>(`SELECT ${OCCURRENCE_COLUMNS} FROM schedule_occurrences WHERE schedule_name = $1 ORDER BY scheduled_at DESC LIMIT $2`, [q.schedule, limit]);
      return rows.map(toOccurrence);
    },
  };
}
