/**
 * Remote file claims in a PostgreSQL ledger (remote-file-types.ts): the upsert is atomic across hosts
 * and leases run on the database's clock, as order claims do. Each statement takes a connection of the
 * ledger's pool, so claims go on beside a run's commits on the same ledger.
 */
import { remoteFilesTable, type RemoteFileClaims } from '../remote-file-types.js';
import type { TeamContext } from './team-accounts.js';

export const POSTGRES_REMOTE_FILES_TABLE = remoteFilesTable({ text: 'text', instant: 'timestamptz' }, '');

const LEASE_END = (n: number) => `now() + make_interval(secs => $${n}::double precision / 1000)`;

/**
 * `letGoQuery` runs the let-go: a stop whose grace is over hands it the pool's own query, which does not
 * ride out an outage as `query` does, so the stop stays within its grace (the lease frees the files then).
 */
export function createPostgresRemoteFiles({ query }: Pick<TeamContext, 'query'>, letGoQuery: TeamContext['query'] = query): RemoteFileClaims {
  return {
    async claim(c) {
      const { rowCount } = await query(
        `INSERT INTO remote_files (location, version, state, holder, host, claimed_at, lease_until)
         VALUES ($1, $2, 'claimed', $3, $4, now(), ${LEASE_END(5)})
         ON CONFLICT (location, version) DO UPDATE SET state = 'claimed', holder = excluded.holder, host = excluded.host,
           claimed_at = excluded.claimed_at, lease_until = excluded.lease_until, finished_at = NULL
         WHERE remote_files.state = 'retry' OR (remote_files.state = 'claimed' AND remote_files.lease_until < now())`,
        [c.location, c.version, c.holder, c.host, c.leaseMs],
      );
      return rowCount === 1;
    },
    async renew(holder, leaseMs) {
      await query(`UPDATE remote_files SET lease_until = ${LEASE_END(1)} WHERE holder = $2 AND state = 'claimed'`, [leaseMs, holder]);
    },
    async finish(key, holder, end, outcome) {
      await query(`UPDATE remote_files SET state = $1, finished_at = now(), outcome = $2 WHERE location = $3 AND version = $4 AND holder = $5`, [end, outcome, key.location, key.version, holder]);
    },
    async letGo(holder, outcome) {
      await letGoQuery(`UPDATE remote_files SET state = 'retry', finished_at = now(), outcome = $1 WHERE holder = $2 AND state = 'claimed'`, [outcome, holder]);
    },
  };
}
