/** API tokens in a PostgreSQL ledger (see ../token-types.ts): every instance reads the same rows. */
import type { Role } from '../team-types.js';
import { TOKEN_TOUCH_MS, toToken, type TokenRow, type TokenStore } from '../token-types.js';
import type { TeamContext } from './team-accounts.js';

export function createPostgresTokens({ query, now }: TeamContext): TokenStore {
  return {
    async add(token) {
      const { rowCount } = await query(
        `INSERT INTO api_tokens (label, token_hash, user_name, created_by, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (label) DO NOTHING`,
        [token.label, token.tokenHash, token.userName, token.createdBy, now().toISOString(), token.expiresAt],
      );
      return (rowCount ?? 0) > 0;
    },
    async list(userName) {
      const { rows } =
        userName === undefined
          ? await query<TokenRow>('SELECT * FROM api_tokens ORDER BY user_name COLLATE "C", label')
          : await query<TokenRow>('SELECT * FROM api_tokens WHERE user_name = $1 ORDER BY label', [userName]);
      return rows.map(toToken);
    },
    async revoke(label) {
      const { rowCount } = await query('DELETE FROM api_tokens WHERE label = $1', [label]);
      return (rowCount ?? 0) > 0;
    },
    async find(tokenHash) {
      const at = now();
      const { rows } = await query<{ label: string; user_name: string; expires_at: string | null; last_used_at: string | null; role: Role }>(
        `SELECT t.label, t.user_name, t.expires_at, t.last_used_at, u.role FROM api_tokens t JOIN users u ON u.name = t.user_name
         WHERE t.token_hash = $1 AND NOT u.is_disabled`,
        [tokenHash],
      );
      const row = rows[0];
      if (!row || (row.expires_at !== null && Date.parse(row.expires_at) <= at.getTime())) return null;
      if (row.last_used_at === null || at.getTime() - Date.parse(row.last_used_at) >= TOKEN_TOUCH_MS) {
        await query('UPDATE api_tokens SET last_used_at = $1 WHERE label = $2', [at.toISOString(), row.label]);
      }
      return { label: row.label, userName: row.user_name, role: row.role };
    },
  };
}
