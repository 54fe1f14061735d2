/**
 * API tokens: a long random secret another system sends as `Authorization: Bearer`, acting with the
 * role of the account it belongs to. The ledger keeps only the token's sha256 and a label; every
 * instance sharing the ledger reads it on each request, so a revoked token is refused everywhere at
 * once, and a disabled or removed account's tokens stop working with it.
 */
import type { Role } from './roles.js';

export interface ApiTokenRecord {
  /** Unique across the ledger: how the token is listed and revoked. */
  label: string;
  userName: string;
  createdBy: string;
  createdAt: string;
  /** Null: never expires. */
  expiresAt: string | null;
  /** Noted at most once a minute. */
  lastUsedAt: string | null;
}

/** Whom a live token acts for. */
export interface TokenHolder {
  label: string;
  userName: string;
  role: Role;
}

export interface TokenStore {
  /** False (nothing stored) when a token with that label exists. */
  add(token: { label: string; userName: string; tokenHash: string; createdBy: string; expiresAt: string | null }): Promise<boolean>;
  /** By account, then label; `userName`: that account's only. */
  list(userName?: string): Promise<ApiTokenRecord[]>;
  /** False when there was no such token. */
  revoke(label: string): Promise<boolean>;
  /**
   * The holder of the token with this hash when it is live: not expired, its account exists and is not
   * disabled. Null otherwise. Notes the use at most once a minute.
   */
  find(tokenHash: string): Promise<TokenHolder | null>;
}

/** A token's use is written at most this often, so an integration polling each second does not write each second. */
export const TOKEN_TOUCH_MS = 60_000;

/** A token as `ledger copy` moves it: its hash with it (never the token, which no ledger holds). */
export interface StoredToken extends ApiTokenRecord {
  tokenHash: string;
}

export interface TokenRow {
  label: string;
  user_name: string;
  created_by: string;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  token_hash?: string;
}

export function toToken(row: TokenRow): ApiTokenRecord {
  return { label: row.label, userName: row.user_name, createdBy: row.created_by, createdAt: row.created_at, expiresAt: row.expires_at, lastUsedAt: row.last_used_at };
}

export function toStoredToken(row: TokenRow): StoredToken {
  return { ...toToken(row), tokenHash: row.token_hash ?? '' };
}

export const SQLITE_TOKENS_TABLE = `
  -- token_hash: the sha256 of the token the other system holds; the token itself is never stored.
  CREATE TABLE api_tokens (
    label        TEXT PRIMARY KEY,
    token_hash   TEXT NOT NULL UNIQUE,
    user_name    TEXT NOT NULL,
    created_by   TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    expires_at   TEXT,
    last_used_at TEXT
  ) STRICT;
  CREATE INDEX api_tokens_by_user ON api_tokens (user_name);
`;

export const POSTGRES_TOKENS_TABLE = `
  -- token_hash: the sha256 of the token the other system holds; the token itself is never stored.
  -- The SQLite ledger has the same table (token-types.ts).
  CREATE TABLE api_tokens (
    label        text COLLATE "C" PRIMARY KEY,
    token_hash   text NOT NULL UNIQUE,
    user_name    text NOT NULL,
    created_by   text NOT NULL,
    created_at   timestamptz NOT NULL,
    expires_at   timestamptz,
    last_used_at timestamptz
  );
  CREATE INDEX api_tokens_by_user ON api_tokens (user_name);
`;
