/**
 * PostgreSQL failures in words (by SQLSTATE, or the socket's errno before the server answered): a
 * wrong password, a missing database, an unreachable server, a full disk are the user's or the
 * machine's situation, never a bug. Each becomes a LedgerError naming the ledger (without its
 * password) and what to do; one that happens once a run has started sending is a LedgerLostError.
 */
import { LedgerError, LedgerUnusableError } from '../errors.js';

/** The ledger stopped answering in the middle of a run (exit 3): the next run settles what was in flight. */
export class LedgerLostError extends LedgerUnusableError {}

/** SQLSTATE classes and codes this module knows (https://www.postgresql.org/docs/current/errcodes-appendix.html). */
const BY_SQLSTATE: Readonly<Record<string, string>> = {
  '28P01': 'PostgreSQL refused the password: check the user and password in the ledger URL',
  '28000': 'PostgreSQL refused the login (no pg_hba.conf entry allows this user, host or database): ask the database administrator',
  '3D000': 'the database does not exist: create it (createdb, or CREATE DATABASE) or fix the name in the ledger URL',
  '3F000': 'the schema named by the search_path does not exist: create it or fix the URL',
  '42501': 'the database user lacks a permission the ledger needs (creating its tables, or writing them): grant it, or use the user that owns the ledger',
  '53100': 'the database server is out of disk space: free some on the server, then run again',
  '53200': 'the database server is out of memory',
  '53300': 'the database server has no free connection slot (max_connections): try again later, or lower --concurrency',
  '53400': 'a limit configured on the database server was reached',
  '57P01': 'the database server ended the connection (its administrator, or a shutdown)',
  '57P02': 'the database server crashed',
  '57P03': 'the database server is starting up or shutting down: try again in a moment',
  '25006': 'the database is read-only (a standby?): point the ledger at the primary server',
  '08001': 'the database server could not be reached',
  '08006': 'the connection to the database server failed',
  '08P01': 'the database server and order-batch do not understand each other (protocol violation)',
};

const BY_ERRNO: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'nothing is listening there: is PostgreSQL running, and are the host and port right?',
  ENOENT: 'no PostgreSQL socket there: is PostgreSQL running, and is the host (socket folder) right?',
  ENOTFOUND: 'the host name does not resolve: check the host in the ledger URL',
  EAI_AGAIN: 'the host name could not be resolved right now: check the network and the host in the ledger URL',
  ETIMEDOUT: 'the server did not answer in time: check the host, the port and the network',
  EHOSTUNREACH: 'the host cannot be reached: check the network',
  ENETUNREACH: 'the network is unreachable',
  ECONNRESET: 'the connection was reset',
  EPIPE: 'the connection was closed',
  EACCES: 'permission denied on the socket',
};

/** What went wrong, in words, or null for an error this module does not recognise (a bug). */
export function describePostgresFailure(error: unknown): string | null {
  const e = error as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  const message = typeof e?.message === 'string' ? e.message : '';
  if (BY_SQLSTATE[code]) return BY_SQLSTATE[code]!;
  if (code === '55000' && /accepting connections/i.test(message)) {
    return 'the database is not accepting connections now (its administrator closed it, or it is being moved): try again later';
  }
  if (BY_ERRNO[code]) return BY_ERRNO[code]!;
  // Whole classes: 08 connection exception, 53 insufficient resources, 57 operator intervention, 58 system error (I/O).
  if (code.startsWith('08')) return `the connection to the database server failed (${message})`;
  if (code.startsWith('53')) return `the database server ran out of a resource (${message})`;
  if (code.startsWith('57')) return `the database server stopped the work (${message})`;
  if (code.startsWith('58')) return `the database server had a system error (${message})`;
  // node-postgres's own words for a socket closed under it, and its connection timeout.
  if (/Connection terminated|connection timeout|Client has encountered a connection error|Connection ended|not queryable/i.test(message)) {
    return 'the connection to the database server was lost';
  }
  if (/password authentication failed|SASL|SCRAM|client password must be a string/i.test(message)) {
    return 'PostgreSQL wants a password, and the ledger URL gave none or a wrong one';
  }
  if (/self[- ]signed certificate|certificate|SSL|TLS/i.test(message)) return `the TLS connection failed (${message})`;
  return null;
}

/** The failure's SQLSTATE or errno code (ECONNRESET ...), when it carries one. */
function sqlstateOf(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code !== '' ? code : null;
}

/**
 * The error to throw for a PostgreSQL failure, or null when it is none this module recognises.
 * `during` says what the ledger was doing ("open", or a run's work, which makes it a LedgerLostError).
 */
export function classifyPostgresError(error: unknown, location: string, during: 'open' | 'run'): LedgerError | null {
  if (error instanceof LedgerError) return error;
  const why = describePostgresFailure(error);
  if (why === null) return null;
  // A reason may end in its own question mark ("is PostgreSQL running ...?"): no full stop after it.
  const stop = /[.?!]$/.test(why) ? '' : '.';
  if (during === 'open') return new LedgerError(location, `Cannot use the ledger ${location}: ${why}${stop}`, { cause: error });
  return new LedgerLostError(
    location,
    sqlstateOf(error) ?? 'connection',
    `The ledger ${location} stopped working: ${why}${stop} Orders that were being sent are settled by the next run (it looks each one up before sending it again).`,
    { cause: error },
  );
}
