import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failureOf as exitFailureOf } from '../../../src/cli/exit-codes.js';
import { LedgerError } from '../../../src/ledger/errors.js';
import { openLedger } from '../../../src/ledger/open-ledger.js';
import { classifyPostgresError, LedgerLostError } from '../../../src/ledger/postgres/errors.js';
import { APP_PASSWORD } from '../../support/postgres/cluster.js';
import { asSuperuser, describePostgres, ledgerUrl, useDatabase } from '../../support/postgres/database.js';
import { buildIntent } from '../builders.js';
import { makeTempFolder } from '../../support/temp-dir.js';

/** The failure, whatever it is, as the caller meets it. */
async function failureOf(work: Promise<unknown>): Promise<Error> {
  try {
    await work;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a failure');
}

describePostgres('a PostgreSQL ledger that cannot be used', () => {
  const db = useDatabase();
  let empty: string;
  beforeAll(() => {
    empty = makeTempFolder('obpg-none');
  });
  afterAll(() => rmSync(empty, { recursive: true, force: true }));

  it('says the password was refused, naming the ledger without the password', async () => {
    const error = await failureOf(openLedger(ledgerUrl(db.name, 'not-the-password')));
    expect(error).toBeInstanceOf(LedgerError);
    expect(error.message).toBe(`Cannot use the ledger postgresql://order_batch_test:***@/${db.name}?host=${ledgerUrl(db.name).split('host=')[1]}: PostgreSQL refused the password: check the user and password in the ledger URL.`);
    expect(error.message).not.toContain('not-the-password');
  });

  it('says the database does not exist and how to create it', async () => {
    const error = await failureOf(openLedger(ledgerUrl('no_such_db')));
    expect(error).toBeInstanceOf(LedgerError);
    expect(error.message).toMatch(/^Cannot use the ledger postgresql:\/\/order_batch_test:\*\*\*@\/no_such_db\?host=.*: the database does not exist: create it/);
    expect(error.message).not.toContain(APP_PASSWORD);
  });

  it('says nothing is listening where the URL points', async () => {
    const error = await failureOf(openLedger(`postgresql://someone:${APP_PASSWORD}@/ledger?host=${empty}`));
    expect(error).toBeInstanceOf(LedgerError);
    expect(error.message).toMatch(/no PostgreSQL socket there: is PostgreSQL running/);
    expect(error.message).not.toContain(APP_PASSWORD);
    const tcp = await failureOf(openLedger(`postgres://someone:${APP_PASSWORD}@127.0.0.1:1/ledger`));
    expect(tcp.message).toBe('Cannot use the ledger postgres://someone:***@127.0.0.1:1/ledger: nothing is listening there: is PostgreSQL running, and are the host and port right?');
  });

  it('stops a run whose connection is cut with a LedgerLostError, and the next run looks up what was in flight', async () => {
    const ledger = await openLedger(db.url);
    const run = await ledger.startRun({ command: 'import', files: [] });
    await run.prepareSends([buildIntent('L-1'), buildIntent('L-2')]);
    // The server goes away under the run: its connections are cut and no new one is let in.
    await asSuperuser(async (c) => {
      await c.query(`ALTER DATABASE ${db.name} WITH ALLOW_CONNECTIONS false`);
      await c.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = 'order-batch'`, [db.name]);
    });
    const error = await failureOf(run.markAccepted('L-1', { httpStatus: 201 }));
    await asSuperuser((c) => c.query(`ALTER DATABASE ${db.name} WITH ALLOW_CONNECTIONS true`));
    expect(error).toBeInstanceOf(LedgerLostError);
    expect(error.message).toMatch(/^The ledger postgresql:\/\/order_batch_test:\*\*\*@\/t_\w+\?host=\S+ stopped working: (the database is not accepting connections|the database server ended the connection|the connection to the database server was lost).*\. Orders that were being sent are settled by the next run/);
    await ledger.close();
    const next = await openLedger(db.url);
    const again = await next.startRun({ command: 'import', files: [] });
    expect((await again.prepareSends([buildIntent('L-1'), buildIntent('L-2')])).map((r) => r.action)).toEqual(['lookup', 'lookup']);
    await next.close();
  });

  it('puts a full disk on the server, and the failures of a connection, in words', () => {
    const location = 'postgres://u:***@db/ledger';
    expect(classifyPostgresError(Object.assign(new Error('could not extend file'), { code: '53100' }), location, 'run')?.message).toBe(
      'The ledger postgres://u:***@db/ledger stopped working: the database server is out of disk space: free some on the server, then run again. Orders that were being sent are settled by the next run (it looks each one up before sending it again).',
    );
    expect(classifyPostgresError(new Error('Connection terminated unexpectedly'), location, 'run')).toBeInstanceOf(LedgerLostError);
    expect(classifyPostgresError(Object.assign(new Error('x'), { code: '53100' }), location, 'open')?.message).toBe(
      'Cannot use the ledger postgres://u:***@db/ledger: the database server is out of disk space: free some on the server, then run again.',
    );
    // A bug (a syntax error in the ledger's own SQL) stays a bug.
    expect(classifyPostgresError(Object.assign(new Error('syntax error'), { code: '42601' }), location, 'run')).toBeNull();
  });
});

describe('the exit code of a ledger failure', () => {
  it('is 3 for a ledger lost mid-run and 2 for one that cannot be opened, each with one line naming it', () => {
    const lost = exitFailureOf(new LedgerLostError('postgres://u:***@db/l', '08006', 'The ledger postgres://u:***@db/l stopped working: the connection to the database server was lost.'));
    expect(lost).toEqual({ exitCode: 3, kind: 'ledger_lost', message: expect.stringMatching(/^The ledger postgres:\/\/u:\*\*\*@db\/l stopped working/), stderr: expect.stringMatching(/^order-batch: The ledger .*\n$/) });
    const refused = exitFailureOf(classifyPostgresError(Object.assign(new Error('x'), { code: '28P01' }), 'postgres://u:***@db/l', 'open'));
    expect(refused).toMatchObject({ exitCode: 2, kind: 'file' });
  });
});
