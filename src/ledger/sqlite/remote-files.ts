/**
 * Remote file claims in an SQLite ledger (remote-file-types.ts). One host uses an SQLite ledger, so
 * leases are timed on the ledger's clock (LedgerOptions.now); the rules are those of the PostgreSQL table.
 */
import type { Database } from 'better-sqlite3';
import { preparedOnce } from '../../sqlite/open-database.js';
import { remoteFilesTable, type RemoteFileClaims } from '../remote-file-types.js';

export const SQLITE_REMOTE_FILES_TABLE = remoteFilesTable({ text: 'TEXT', instant: 'TEXT' }, ' STRICT');

export function createSqliteRemoteFiles(db: Database, now: () => Date): RemoteFileClaims {
  const sql = preparedOnce(db);
  const leaseEnd = (leaseMs: number) => new Date(now().getTime() + leaseMs).toISOString();
  return {
    async claim(c) {
      const { changes } = sql(
        `INSERT INTO remote_files (location, version, state, holder, host, claimed_at, lease_until)
         VALUES (@location, @version, 'claimed', @holder, @host, @now, @until)
         ON CONFLICT (location, version) DO UPDATE SET state = 'claimed', holder = excluded.holder, host = excluded.host,
           claimed_at = excluded.claimed_at, lease_until = excluded.lease_until, finished_at = NULL
         WHERE remote_files.state = 'retry' OR (remote_files.state = 'claimed' AND remote_files.lease_until < @now)`,
      ).run({ location: c.location, version: c.version, holder: c.holder, host: c.host, now: now().toISOString(), until: leaseEnd(c.leaseMs) });
      return changes === 1;
    },
    async renew(holder, leaseMs) {
      sql(`UPDATE remote_files SET lease_until = ? WHERE holder = ? AND state = 'claimed'`).run(leaseEnd(leaseMs), holder);
    },
    async finish(key, holder, end, outcome) {
      sql(`UPDATE remote_files SET state = ?, finished_at = ?, outcome = ? WHERE location = ? AND version = ? AND holder = ?`).run(end, now().toISOString(), outcome, key.location, key.version, holder);
    },
    async letGo(holder, outcome) {
      sql(`UPDATE remote_files SET state = 'retry', finished_at = ?, outcome = ? WHERE holder = ? AND state = 'claimed'`).run(now().toISOString(), outcome, holder);
    },
  };
}
