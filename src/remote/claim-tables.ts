/**
 * The ledger's remote_files table, on both ledgers: one row per version of a remote file (its
 * location, and its size and time or ETag), held by the run that processes it. A claim has a lease,
 * like an order's: a host that dies mid-file stops renewing it and another takes the file over.
 * `state`: claimed (a run holds it), done (processed; a new version is a new row), retry (processed
 * with orders that failed: the next run takes it again, and the ledger sends nothing twice).
 */

export const REMOTE_FILES_SQLITE = `
  CREATE TABLE remote_files (
    location    TEXT NOT NULL,
    version     TEXT NOT NULL,
    state       TEXT NOT NULL CHECK (state IN ('claimed', 'done', 'retry')),
    holder      TEXT NOT NULL,
    host        TEXT NOT NULL,
    claimed_at  TEXT NOT NULL,
    lease_until TEXT NOT NULL,
    finished_at TEXT,
    outcome     TEXT,
    PRIMARY KEY (location, version)
  ) STRICT;
`;

export const REMOTE_FILES_POSTGRES = `
  CREATE TABLE remote_files (
    location    text NOT NULL,
    version     text NOT NULL,
    state       text NOT NULL CHECK (state IN ('claimed', 'done', 'retry')),
    holder      text NOT NULL,
    host        text NOT NULL,
    claimed_at  timestamptz NOT NULL,
    lease_until timestamptz NOT NULL,
    finished_at timestamptz,
    outcome     text,
    PRIMARY KEY (location, version)
  );
`;
