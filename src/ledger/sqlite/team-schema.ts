/**
 * The SQLite ledger's team tables (schema version 4): accounts, sessions, the audit trail, jobs and
 * files. The PostgreSQL ledger has the same tables (postgres/schema.ts, 0002).
 */
import { JOB_KINDS, JOB_STATES, ROLES } from '../team-types.js';

const list = (values: readonly string[]) => values.map((v) => `'${v}'`).join(', ');

export const SQLITE_TEAM_TABLES = `
  CREATE TABLE users (
    name          TEXT PRIMARY KEY,
    role          TEXT NOT NULL CHECK (role IN (${list(ROLES)})),
    password_hash TEXT NOT NULL,
    is_disabled   INTEGER NOT NULL DEFAULT 0,
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL
  ) STRICT;

  -- id_hash: the sha256 of the session id the browser holds; the id itself is never stored.
  CREATE TABLE sessions (
    id_hash      TEXT PRIMARY KEY,
    user_name    TEXT,
    data         TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    last_seen_at TEXT NOT NULL,
    address      TEXT
  ) STRICT;
  CREATE INDEX sessions_by_user ON sessions (user_name);
  CREATE INDEX sessions_by_last_seen ON sessions (last_seen_at);

  CREATE TABLE audit (
    seq         INTEGER PRIMARY KEY,
    at          TEXT NOT NULL,
    actor       TEXT NOT NULL,
    via         TEXT NOT NULL,
    address     TEXT,
    action      TEXT NOT NULL,
    file_name   TEXT,
    file_sha256 TEXT,
    counts      TEXT,
    ref         TEXT,
    detail      TEXT
  ) STRICT;
  CREATE INDEX audit_by_at ON audit (at);
  CREATE INDEX audit_by_actor ON audit (actor, seq);

  -- holder_pid and holder_machine: a holder that died on this machine is seen dead at once.
  CREATE TABLE jobs (
    seq                 INTEGER PRIMARY KEY,
    id                  TEXT NOT NULL UNIQUE,
    upload_id           TEXT NOT NULL,
    file_name           TEXT NOT NULL,
    file_sha256         TEXT,
    sheet               TEXT,
    created_by          TEXT NOT NULL,
    expected            INTEGER NOT NULL,
    state               TEXT NOT NULL CHECK (state IN (${list(JOB_STATES)})),
    created_at          TEXT NOT NULL,
    holder              TEXT,
    holder_pid          INTEGER,
    holder_machine      TEXT,
    lease_expires_at    TEXT,
    starts              INTEGER NOT NULL DEFAULT 0,
    run_id              TEXT,
    cancel_requested_by TEXT,
    started_at          TEXT,
    finished_at         TEXT,
    progress            TEXT,
    outcome             TEXT
  ) STRICT;
  CREATE INDEX jobs_open ON jobs (state, seq) WHERE state IN ('queued', 'running');
  CREATE INDEX jobs_by_upload ON jobs (upload_id);

  CREATE TABLE files (
    id         INTEGER PRIMARY KEY,
    area       TEXT NOT NULL,
    owner      TEXT NOT NULL,
    name       TEXT NOT NULL,
    size       INTEGER NOT NULL,
    sha256     TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (area, owner, name)
  ) STRICT;
  CREATE INDEX files_by_created_at ON files (created_at);

  -- Failed logins per account and per address, in windows, shared by every instance.
  CREATE TABLE attempts (
    key               TEXT PRIMARY KEY,
    count             INTEGER NOT NULL,
    window_started_at TEXT NOT NULL
  ) STRICT;

  CREATE TABLE file_chunks (
    file_id INTEGER NOT NULL,
    seq     INTEGER NOT NULL,
    data    BLOB NOT NULL,
    PRIMARY KEY (file_id, seq)
  ) STRICT;
`;

/** Accounts' e-mail addresses (kept in lower case), one account each: a company login's verified e-mail finds its account. */
export const SQLITE_ACCOUNT_EMAIL = `
  ALTER TABLE users ADD COLUMN email TEXT;
  CREATE UNIQUE INDEX users_by_email ON users (email) WHERE email IS NOT NULL;
`;

/** Jobs of more than one kind (a reconciliation is one too), and how each was asked for besides the account. */
export const SQLITE_JOB_KINDS = `
  ALTER TABLE jobs ADD COLUMN kind TEXT NOT NULL DEFAULT 'submit' CHECK (kind IN (${list(JOB_KINDS)}));
  ALTER TABLE jobs ADD COLUMN requested_via TEXT;
`;
