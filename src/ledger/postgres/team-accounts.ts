/**
 * Accounts, sessions and the audit trail in a PostgreSQL ledger: every instance of the web app that
 * shares the database sees the same accounts and sessions, so a disabled account is out everywhere.
 */
import type pg from 'pg';
import { sessionTouchMs, type AttemptCounter, type AuditQuery, type AuditTrail, type SessionStore, type UserChange, type UserStore } from '../team-types.js';
import { auditFilter, auditLimit, auditValues, sessionKey, toAudit, toCount, toSession, toUser, type AttemptRow, type AuditRow, type SessionRow, type UserRow } from '../team-rows.js';

export interface TeamContext {
  query: pg.Pool['query'];
  transaction<T>(work: (client: pg.ClientBase) => Promise<T>): Promise<T>;
  now: () => Date;
}

export function createPostgresUsers({ query, transaction, now }: TeamContext): UserStore {
  return {
    async add(user) {
      const at = now().toISOString();
      const { rowCount } = await query(
        `INSERT INTO users (name, role, password_hash, is_disabled, created_at, updated_at, email) VALUES ($1, $2, $3, false, $4, $4, $5) ON CONFLICT DO NOTHING`,
        [user.name, user.role, user.passwordHash, at, user.email?.toLowerCase() ?? null],
      );
      return (rowCount ?? 0) > 0;
    },
    async get(name) {
      const { rows } = await query<UserRow>('SELECT * FROM users WHERE name = $1', [name]);
      return rows[0] ? toUser(rows[0]) : null;
    },
    async findByEmail(email) {
      const { rows } = await query<UserRow>('SELECT * FROM users WHERE email = $1', [email.toLowerCase()]);
      return rows[0] ? toUser(rows[0]) : null;
    },
    async list() {
      const { rows } = await query<UserRow>('SELECT * FROM users ORDER BY name COLLATE "C"');
      return rows.map((row) => {
        const { passwordHash: _hash, ...user } = toUser(row);
        return user;
      });
    },
    async countActive() {
      const { rows } = await query<{ n: string }>('SELECT count(*) AS n FROM users WHERE NOT is_disabled');
      return Number(rows[0]!.n);
    },
    async update(name: string, change: UserChange) {
      const sets: string[] = [];
      const values: unknown[] = [];
      const set = (column: string, value: unknown) => (values.push(value), sets.push(`${column} = $${values.length}`));
      if (change.role !== undefined) set('role', change.role);
      if (change.email !== undefined) set('email', change.email?.toLowerCase() ?? null);
      if (change.isDisabled !== undefined) set('is_disabled', change.isDisabled);
      if (change.passwordHash !== undefined) set('password_hash', change.passwordHash);
      set('updated_at', now().toISOString());
      values.push(name);
      return transaction(async (client) => {
        const { rowCount } = await client.query(`UPDATE users SET ${sets.join(', ')} WHERE name = $${values.length}`, values);
        const isChanged = (rowCount ?? 0) > 0;
        if (isChanged && (change.isDisabled === true || change.passwordHash !== undefined)) await client.query('DELETE FROM sessions WHERE user_name = $1', [name]);
        return isChanged;
      });
    },
    async remove(name) {
      return transaction(async (client) => {
        await client.query('DELETE FROM sessions WHERE user_name = $1', [name]);
        const { rowCount } = await client.query('DELETE FROM users WHERE name = $1', [name]);
        return (rowCount ?? 0) > 0;
      });
    },
  };
}

export function createPostgresSessions({ query, now }: TeamContext): SessionStore {
  return {
    async save(id, session) {
      const at = now().toISOString();
      await query(
        `INSERT INTO sessions (id_hash, user_name, data, created_at, last_seen_at, address) VALUES ($1, $2, $3::jsonb, $4, $4, $5)
         ON CONFLICT (id_hash) DO UPDATE SET user_name = excluded.user_name, data = excluded.data, last_seen_at = excluded.last_seen_at, address = excluded.address`,
        [sessionKey(id), session.userName, JSON.stringify(session.data), at, session.address],
      );
    },
    async load(id, idleMs) {
      const key = sessionKey(id);
      const { rows } = await query<SessionRow & { is_disabled: boolean | null }>(
        `SELECT s.user_name, s.data, s.created_at, s.last_seen_at, s.address, u.role, u.is_disabled
         FROM sessions s LEFT JOIN users u ON u.name = s.user_name WHERE s.id_hash = $1`,
        [key],
      );
      const row = rows[0];
      if (!row) return null;
      const nowMs = now().getTime();
      const idle = nowMs - Date.parse(row.last_seen_at);
      const isUserGone = row.user_name !== null && row.is_disabled !== false;
      if (idle > idleMs || isUserGone) {
        await query('DELETE FROM sessions WHERE id_hash = $1', [key]);
        return null;
      }
      if (idle >= sessionTouchMs(idleMs)) {
        const at = new Date(nowMs).toISOString();
        await query('UPDATE sessions SET last_seen_at = $1 WHERE id_hash = $2', [at, key]);
        row.last_seen_at = at;
      }
      return toSession(row);
    },
    async remove(id) {
      await query('DELETE FROM sessions WHERE id_hash = $1', [sessionKey(id)]);
    },
    async sweep(idleMs) {
      const { rowCount } = await query('DELETE FROM sessions WHERE last_seen_at < $1', [new Date(now().getTime() - idleMs).toISOString()]);
      return rowCount ?? 0;
    },
  };
}

export function createPostgresAudit({ query, now }: TeamContext): AuditTrail {
  return {
    async record(event) {
      const { rows } = await query<AuditRow>(
        `INSERT INTO audit (at, actor, via, address, action, file_name, file_sha256, counts, ref, detail)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10) RETURNING *`,
        auditValues(event, now()),
      );
      return toAudit(rows[0]!);
    },
    async list(query_: AuditQuery = {}) {
      const { where, values } = auditFilter(query_, (n) => `$${n}`);
      const { rows } = await query<AuditRow>(`SELECT * FROM audit ${where} ORDER BY seq DESC LIMIT $${values.length + 1}`, [...values, auditLimit(query_.limit)]);
      return rows.map(toAudit);
    },
    async listActors() {
      const { rows } = await query<{ actor: string }>('SELECT DISTINCT actor COLLATE "C" AS actor FROM audit ORDER BY 1');
      return rows.map((r) => r.actor);
    },
  };
}

export function createPostgresAttempts({ query, now }: TeamContext): AttemptCounter {
  return {
    async count(key, windowMs) {
      const at = now();
      const windowStart = new Date(at.getTime() - windowMs).toISOString();
      const { rows } = await query<AttemptRow>(
        `INSERT INTO attempts (key, count, window_started_at) VALUES ($1, 1, $2)
         ON CONFLICT (key) DO UPDATE SET
           count = CASE WHEN attempts.window_started_at <= $3 THEN 1 ELSE attempts.count + 1 END,
           window_started_at = CASE WHEN attempts.window_started_at <= $3 THEN excluded.window_started_at ELSE attempts.window_started_at END
         RETURNING count, window_started_at`,
        [key, at.toISOString(), windowStart],
      );
      return toCount(rows[0]!);
    },
    async peek(key, windowMs) {
      const at = now();
      const { rows } = await query<AttemptRow>('SELECT count, window_started_at FROM attempts WHERE key = $1', [key]);
      const row = rows[0];
      return row && Date.parse(row.window_started_at) > at.getTime() - windowMs ? toCount(row) : { count: 0, windowStartedAt: at.toISOString() };
    },
    async forgive(key, windowMs) {
      const windowStart = new Date(now().getTime() - windowMs).toISOString();
      await query('UPDATE attempts SET count = count - 1 WHERE key = $1 AND count > 0 AND window_started_at > $2', [key, windowStart]);
    },
    async sweep(windowMs) {
      await query('DELETE FROM attempts WHERE window_started_at <= $1', [new Date(now().getTime() - windowMs).toISOString()]);
    },
  };
}
