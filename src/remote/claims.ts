/**
 * Claiming a version of a remote file in the ledger so that, across every host of the ledger, one run
 * processes it once. SQLite serialises writers (one host); PostgreSQL's upsert is atomic across hosts
 * and leases run on the database's clock, as order claims do.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { connectionConfigOf, openLedger, openLedgerDatabase, parseLedgerLocation } from '../ledger/index.js';

export type ClaimEnd = 'done' | 'retry';

export interface ClaimStore {
  /** True when this run now holds the version: new, released for retry, or its holder's lease has lapsed. */
  claim(location: string, version: string): Promise<boolean>;
  /** Keeps this run's claims alive. */
  renew(): Promise<void>;
  /** Settles a claim: done (a new version is needed to process it again) or retry (the next run takes it). */
  finish(location: string, version: string, end: ClaimEnd, outcome: string): Promise<void>;
  close(): Promise<void>;
}

export async function openClaimStore(ledgerPath: string, leaseMs: number): Promise<ClaimStore> {
  const where = parseLedgerLocation(ledgerPath);
  const holder = `${hostname()}:${process.pid}:${randomBytes(6).toString('hex')}`;
  if (where.backend === 'sqlite') return openSqliteClaims(where.path, holder, leaseMs);
  return openPostgresClaims(where.url, ledgerPath, holder, leaseMs);
}

async function openSqliteClaims(path: string, holder: string, leaseMs: number): Promise<ClaimStore> {
  const db = openLedgerDatabase(path);
  const until = () => new Date(Date.now() + leaseMs).toISOString();
  const claim = db.prepare(`
    INSERT INTO remote_files (location, version, state, holder, host, claimed_at, lease_until)
    VALUES (@location, @version, 'claimed', @holder, @host, @now, @until)
    ON CONFLICT (location, version) DO UPDATE SET state = 'claimed', holder = excluded.holder, host = excluded.host,
      claimed_at = excluded.claimed_at, lease_until = excluded.lease_until, finished_at = NULL
    WHERE remote_files.state = 'retry' OR (remote_files.state = 'claimed' AND remote_files.lease_until < @now)`);
  const renew = db.prepare(`UPDATE remote_files SET lease_until = ? WHERE holder = ? AND state = 'claimed'`);
  const finish = db.prepare(`UPDATE remote_files SET state = ?, finished_at = ?, outcome = ? WHERE location = ? AND version = ? AND holder = ?`);
  return {
    async claim(location, version) {
      const now = new Date().toISOString();
      return claim.run({ location, version, holder, host: hostname(), now, until: until() }).changes === 1;
    },
    async renew() {
      renew.run(until(), holder);
    },
    async finish(location, version, end, outcome) {
      finish.run(end, new Date().toISOString(), outcome, location, version, holder);
    },
    async close() {
      db.close();
    },
  };
}

async function openPostgresClaims(url: string, location: string, holder: string, leaseMs: number): Promise<ClaimStore> {
  // Opening the ledger brings its schema up to date (the remote_files table among it).
  await (await openLedger(location)).close();
  const { default: pg } = await import('pg');
  const client = new pg.Client(connectionConfigOf(url, location).config);
  await client.connect();
  const seconds = leaseMs / 1000;
  // One connection, one query at a time: files are claimed several at once and the lease renewed meanwhile.
  let queue: Promise<unknown> = Promise.resolve();
  const query = (text: string, values: unknown[]) => {
    const next = queue.then(() => client.query(text, values));
    queue = next.catch(() => undefined);
    return next;
  };
  return {
    async claim(file, version) {
      const result = await query(
        `INSERT INTO remote_files (location, version, state, holder, host, claimed_at, lease_until)
         VALUES ($1, $2, 'claimed', $3, $4, now(), now() + make_interval(secs => $5))
         ON CONFLICT (location, version) DO UPDATE SET state = 'claimed', holder = excluded.holder, host = excluded.host,
           claimed_at = excluded.claimed_at, lease_until = excluded.lease_until, finished_at = NULL
         WHERE remote_files.state = 'retry' OR (remote_files.state = 'claimed' AND remote_files.lease_until < now())`,
        [file, version, holder, hostname(), seconds],
      );
      return result.rowCount === 1;
    },
    async renew() {
      await query(`UPDATE remote_files SET lease_until = now() + make_interval(secs => $1) WHERE holder = $2 AND state = 'claimed'`, [seconds, holder]);
    },
    async finish(file, version, end, outcome) {
      await query(`UPDATE remote_files SET state = $1, finished_at = now(), outcome = $2 WHERE location = $3 AND version = $4 AND holder = $5`, [end, outcome, file, version, holder]);
    },
    async close() {
      await client.end();
    },
  };
}
