/**
 * What the ledger keeps of remote files (PRODUCT.md section 9): one row per version of a remote file
 * (its location, and its size and time or ETag), claimed by the run that processes it so that, across
 * every host of the ledger, one run processes it once. A claim has a lease, like an order's: a host
 * that dies mid-file stops renewing it and another takes the file over.
 */

/** done: processed (a new version is needed to process it again); retry: the next run takes it again. */
export type RemoteFileEnd = 'done' | 'retry';

export interface RemoteFileKey {
  /** The file's location as shown (never with a secret in it). */
  location: string;
  /** Its size and modification time, or its ETag. */
  version: string;
}

/**
 * The claims of remote file versions. Leases are timed by the ledger's clock: the database's on
 * PostgreSQL (atomic across hosts), the ledger's `now` on SQLite (one host).
 */
export interface RemoteFileClaims {
  /** True when `holder` now holds the version: new, released for retry, or its holder's lease has lapsed. */
  claim(claim: RemoteFileKey & { holder: string; host: string; leaseMs: number }): Promise<boolean>;
  /** Keeps every claim `holder` holds alive for another `leaseMs`. */
  renew(holder: string, leaseMs: number): Promise<void>;
  /** Settles a claim `holder` holds: done or retry, with a word on how it went. */
  finish(key: RemoteFileKey, holder: string, end: RemoteFileEnd, outcome: string): Promise<void>;
  /** Releases every claim `holder` still holds for the next run at once (state retry), not after its lease. */
  letGo(holder: string, outcome: string): Promise<void>;
}

/**
 * The remote_files table in a backend's own types (text, and an instant: timestamptz on PostgreSQL,
 * ISO text on SQLite). state: claimed (a run holds it), done (processed; a new version is a new row),
 * retry (the next run takes it again).
 */
export function remoteFilesTable(types: { text: string; instant: string }, tableOptions: string): string {
  const { text, instant } = types;
  return `
  CREATE TABLE remote_files (
    location    ${text} NOT NULL,
    version     ${text} NOT NULL,
    state       ${text} NOT NULL CHECK (state IN ('claimed', 'done', 'retry')),
    holder      ${text} NOT NULL,
    host        ${text} NOT NULL,
    claimed_at  ${instant} NOT NULL,
    lease_until ${instant} NOT NULL,
    finished_at ${instant},
    outcome     ${text},
    PRIMARY KEY (location, version)
  )${tableOptions};
`;
}
