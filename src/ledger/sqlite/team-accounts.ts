/**
 * Accounts, sessions and the audit trail in an SQLite ledger. Synchronous underneath (better-sqlite3),
 * committed before each Promise settles.
 */
import type { Database } from 'better-sqlite3';
import { preparedOnce } from '../../sqlite/open-database.js';
import { sessionTouchMs, type AttemptCounter, type AuditEvent, type AuditQuery, type AuditRecord, type AuditTrail, type SessionStore, type UserChange, type UserStore } from '../team-types.js';
import { auditFilter, auditLimit, auditValues, sessionKey, toAudit, toCount, toSession, toUser, type AttemptRow, type AuditRow, type SessionRow, type UserRow } from '../team-rows.js';

export function createSqliteUsers(db: Database, now: () => Date): UserStore {
  const sql = preparedOnce(db);
  const endSessions = sql('DELETE FROM sessions WHERE user_name = ?');
  return {
    async add(user) {
      const at = now().toISOString();
      const { changes } = db
        .prepare(`INSERT INTO users (name, role, password_hash, is_disabled, created_at, updated_at, email) VALUES (?, ?, ?, 0, ?, ?, ?) ON CONFLICT DO NOTHING`)
        .run(user.name, user.role, user.passwordHash, at, at, user.email?.toLowerCase() ?? null);
      return changes > 0;
    },
    async get(name) {
      const row = sql('SELECT * FROM users WHERE name = ?').get(name) as UserRow | undefined;
      return row ? toUser(row) : null;
    },
    async findByEmail(email) {
      const row = sql('SELECT * FROM users WHERE email = ?').get(email.toLowerCase()) as UserRow | undefined;
      return row ? toUser(row) : null;
    },
    async list() {
      return (sql('SELECT * FROM users ORDER BY name').all() as UserRow[]).map((row) => {
        const { passwordHash: _hash, ...user } = toUser(row);
        return user;
      });
    },
    async countActive() {
      return sql('SELECT count(*) FROM users WHERE is_disabled = 0').pluck().get() as number;
    },
    async update(name: string, change: UserChange) {
      const sets: string[] = [];
      const values: unknown[] = [];
      if (change.role !== undefined) sets.push('role = ?'), values.push(change.role);
      if (change.email !== undefined) sets.push('email = ?'), values.push(change.email?.toLowerCase() ?? null);
      if (change.isDisabled !== undefined) sets.push('is_disabled = ?'), values.push(change.isDisabled ? 1 : 0);
      if (change.passwordHash !== undefined) sets.push('password_hash = ?'), values.push(change.passwordHash);
      sets.push('updated_at = ?');
      values.push(now().toISOString());
      return db.transaction(() => {
        const { changes } = sql(`UPDATE users SET ${sets.join(', ')} WHERE name = ?`).run(...values, name);
        if (changes > 0 && (change.isDisabled === true || change.passwordHash !== undefined)) endSessions.run(name);
        return changes > 0;
      })();
    },
    async remove(name) {
      return db.transaction(() => {
        endSessions.run(name);
        return sql('DELETE FROM users WHERE name = ?').run(name).changes > 0;
      })();
    },
  };
}

export function createSqliteSessions(db: Database, now: () => Date): SessionStore {
  const sql = preparedOnce(db);
  const select = sql(`SELECT s.user_name, s.data, s.created_at, s.last_seen_at, s.address, u.role, u.is_disabled
    FROM sessions s LEFT JOIN users u ON u.name = s.user_name WHERE s.id_hash = ?`);
  const remove = sql('DELETE FROM sessions WHERE id_hash = ?');
  return {
    async save(id, session) {
      const at = now().toISOString();
      sql(
        `INSERT INTO sessions (id_hash, user_name, data, created_at, last_seen_at, address) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (id_hash) DO UPDATE SET user_name = excluded.user_name, data = excluded.data, last_seen_at = excluded.last_seen_at, address = excluded.address`,
      ).run(sessionKey(id), session.userName, JSON.stringify(session.data), at, at, session.address);
    },
    async load(id, idleMs) {
      const key = sessionKey(id);
      const row = select.get(key) as (SessionRow & { is_disabled: number | null }) | undefined;
      if (!row) return null;
      const nowMs = now().getTime();
      const idle = nowMs - Date.parse(row.last_seen_at);
      const isUserGone = row.user_name !== null && (row.is_disabled === null || row.is_disabled !== 0);
      if (idle > idleMs || isUserGone) {
        remove.run(key);
        return null;
      }
      if (idle >= sessionTouchMs(idleMs)) {
        const at = new Date(nowMs).toISOString();
        sql('UPDATE sessions SET last_seen_at = ? WHERE id_hash = ?').run(at, key);
        row.last_seen_at = at;
      }
      return toSession(row);
    },
    async remove(id) {
      remove.run(sessionKey(id));
    },
    async sweep(idleMs) {
      const cutoff = new Date(now().getTime() - idleMs).toISOString();
      return sql('DELETE FROM sessions WHERE last_seen_at < ?').run(cutoff).changes;
    },
  };
}

export function createSqliteAudit(db: Database, now: () => Date): AuditTrail {
  const sql = preparedOnce(db);
  return {
    async record(event: AuditEvent): Promise<AuditRecord> {
      const row = db
        .prepare(
          `INSERT INTO audit (at, actor, via, address, action, file_name, file_sha256, counts, ref, detail)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
        )
        .get(...auditValues(event, now())) as AuditRow;
      return toAudit(row);
    },
    async list(query: AuditQuery = {}) {
      const { where, values } = auditFilter(query, () => '?');
      return (sql(`SELECT * FROM audit ${where} ORDER BY seq DESC LIMIT ?`).all(...values, auditLimit(query.limit)) as AuditRow[]).map(toAudit);
    },
    async listActors() {
      return sql('SELECT DISTINCT actor FROM audit ORDER BY actor').pluck().all() as string[];
    },
  };
}

export function createSqliteAttempts(db: Database, now: () => Date): AttemptCounter {
  const sql = preparedOnce(db);
  return {
    async count(key, windowMs) {
      const at = now();
      const windowStart = new Date(at.getTime() - windowMs).toISOString();
      return toCount(
        db
          .prepare(
            `INSERT INTO attempts (key, count, window_started_at) VALUES (?, 1, ?)
             ON CONFLICT (key) DO UPDATE SET
               count = CASE WHEN window_started_at <= ? THEN 1 ELSE count + 1 END,
               window_started_at = CASE WHEN window_started_at <= ? THEN excluded.window_started_at ELSE window_started_at END
             RETURNING count, window_started_at`,
          )
          .get(key, at.toISOString(), windowStart, windowStart) as AttemptRow,
      );
    },
    async peek(key, windowMs) {
      const at = now();
      const row = sql('SELECT count, window_started_at FROM attempts WHERE key = ?').get(key) as AttemptRow | undefined;
      return row && Date.parse(row.window_started_at) > at.getTime() - windowMs ? toCount(row) : { count: 0, windowStartedAt: at.toISOString() };
    },
    async forgive(key, windowMs) {
      const windowStart = new Date(now().getTime() - windowMs).toISOString();
      sql('UPDATE attempts SET count = count - 1 WHERE key = ? AND count > 0 AND window_started_at > ?').run(key, windowStart);
    },
    async sweep(windowMs) {
      sql('DELETE FROM attempts WHERE window_started_at <= ?').run(new Date(now().getTime() - windowMs).toISOString());
    },
  };
}
