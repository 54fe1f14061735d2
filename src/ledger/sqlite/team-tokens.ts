/** API tokens in an SQLite ledger (see token-types.ts). */
import type { Database } from 'better-sqlite3';
import { preparedOnce } from '../../sqlite/open-database.js';
import type { Role } from '../team-types.js';
import { TOKEN_TOUCH_MS, toToken, type TokenRow, type TokenStore } from '../token-types.js';

export function createSqliteTokens(db: Database, now: () => Date): TokenStore {
  const sql = preparedOnce(db);
  return {
    async add(token) {
      const { changes } = sql(
        `INSERT INTO api_tokens (label, token_hash, user_name, created_by, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (label) DO NOTHING`,
      ).run(token.label, token.tokenHash, token.userName, token.createdBy, now().toISOString(), token.expiresAt);
      return changes > 0;
    },
    async list(userName) {
      const rows = (userName === undefined ? sql('SELECT * FROM api_tokens ORDER BY user_name, label').all() : sql('SELECT * FROM api_tokens WHERE user_name = ? ORDER BY label').all(userName)) as TokenRow[];
      return rows.map(toToken);
    },
    async revoke(label) {
      return sql('DELETE FROM api_tokens WHERE label = ?').run(label).changes > 0;
    },
    async find(tokenHash) {
      const at = now();
      const row = sql(
        `SELECT t.label, t.user_name, t.expires_at, t.last_used_at, u.role FROM api_tokens t JOIN users u ON u.name = t.user_name
         WHERE t.token_hash = ? AND u.is_disabled = 0`,
      ).get(tokenHash) as { label: string; user_name: string; expires_at: string | null; last_used_at: string | null; role: Role } | undefined;
      if (!row || (row.expires_at !== null && Date.parse(row.expires_at) <= at.getTime())) return null;
      if (row.last_used_at === null || at.getTime() - Date.parse(row.last_used_at) >= TOKEN_TOUCH_MS) {
        sql('UPDATE api_tokens SET last_used_at = ? WHERE label = ?').run(at.toISOString(), row.label);
      }
      return { label: row.label, userName: row.user_name, role: row.role };
    },
  };
}
