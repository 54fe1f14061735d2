/**
 * Schedule occurrences in an SQLite ledger. One host uses an SQLite ledger, so leases are timed on
 * the ledger's clock (LedgerOptions.now); the rules are those of the PostgreSQL table.
 */
import type { Database } from 'better-sqlite3';
import { preparedOnce } from '../../sqlite/open-database.js';
import type { ScheduleOccurrences } from '../team-types.js';
import { finishedValues, OCCURRENCE_COLUMNS, occurrenceLimit, scheduleOccurrencesTable, toOccurrence, type OccurrenceRow } from '../schedule-rows.js';

export const SQLITE_SCHEDULE_TABLES = scheduleOccurrencesTable({ text: 'TEXT', integer: 'INTEGER', instant: 'TEXT' }, ' STRICT');

export function createSqliteSchedules(db: Database, now: () => Date): ScheduleOccurrences {
  const sql = preparedOnce(db);
  const leaseEnd = (leaseMs: number) => new Date(now().getTime() + leaseMs).toISOString();
  const read = (schedule: string, scheduledAt: string) => {
    const row = sql(`SELECT ${OCCURRENCE_COLUMNS} FROM schedule_occurrences WHERE schedule_name = ? AND scheduled_at = ?`).get(schedule, scheduledAt) as OccurrenceRow | undefined;
    return row ? toOccurrence(row) : null;
  };
  const iso = (at: string) => new Date(at).toISOString();
  return {
    async claim(o) {
      const at = iso(o.scheduledAt);
      return db.transaction(() => {
        const stamp = now().toISOString();
        const inserted = sql(
          `INSERT INTO schedule_occurrences (schedule_name, scheduled_at, kind, state, holder, host, lease_expires_at, starts, started_at)
           VALUES (?, ?, ?, 'running', ?, ?, ?, 1, ?)
           ON CONFLICT (schedule_name, scheduled_at) DO UPDATE SET holder = excluded.holder, host = excluded.host,
             lease_expires_at = excluded.lease_expires_at, starts = starts + 1
           WHERE state = 'running' AND lease_expires_at <= ?`,
        ).run(o.schedule, at, o.kind, o.holder, o.host, leaseEnd(o.leaseMs), stamp, stamp);
        return inserted.changes > 0 ? read(o.schedule, at) : null;
      }).immediate();
    },
    async beat(key, holder, leaseMs, update = {}) {
      const { changes } = sql(
        `UPDATE schedule_occurrences SET lease_expires_at = ?, run_id = coalesce(?, run_id)
         WHERE schedule_name = ? AND scheduled_at = ? AND holder = ? AND state = 'running'`,
      ).run(leaseEnd(leaseMs), update.runId ?? null, key.schedule, iso(key.scheduledAt), holder);
      return changes > 0;
    },
    async finish(key, holder, result) {
      const { changes } = sql(
        `UPDATE schedule_occurrences SET state = ?, outcome = ?, exit_code = ?, summary = ?, run_id = coalesce(?, run_id), message = ?,
           finished_at = ?, holder = NULL, lease_expires_at = NULL
         WHERE schedule_name = ? AND scheduled_at = ? AND holder = ? AND state = 'running'`,
      ).run(...finishedValues(result), now().toISOString(), key.schedule, iso(key.scheduledAt), holder);
      return changes > 0;
    },
    async recordMissed(key, message) {
      const { changes } = sql(
        `INSERT INTO schedule_occurrences (schedule_name, scheduled_at, kind, state, outcome, message, finished_at)
         VALUES (?, ?, 'scheduled', 'missed', 'missed', ?, ?) ON CONFLICT DO NOTHING`,
      ).run(key.schedule, iso(key.scheduledAt), message, now().toISOString());
      return changes > 0;
    },
    async latestTimed(schedule) {
      const row = sql(`SELECT max(scheduled_at) AS at FROM schedule_occurrences WHERE schedule_name = ? AND kind <> 'manual'`).get(schedule) as { at: string | null };
      return row.at;
    },
    async listLapsed() {
      const rows = sql(`SELECT ${OCCURRENCE_COLUMNS} FROM schedule_occurrences WHERE state = 'running' AND lease_expires_at <= ? ORDER BY scheduled_at`).all(now().toISOString()) as OccurrenceRow[];
      return rows.map(toOccurrence);
    },
    async list(query = {}) {
      const limit = occurrenceLimit(query.limit);
      const rows = (query.schedule === undefined
        ? sql(`SELECT ${OCCURRENCE_COLUMNS} FROM schedule_occurrences ORDER BY scheduled_at DESC, schedule_name LIMIT ?`).all(limit)
        : sql(`SELECT ${OCCURRENCE_COLUMNS} FROM schedule_occurrences WHERE schedule_name = ? ORDER BY scheduled_at DESC LIMIT ?`).all(query.schedule, limit)) as OccurrenceRow[];
      return rows.map(toOccurrence);
    },
  };
}
