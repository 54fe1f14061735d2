/**
 * A stop whose grace is over lets go of the remote sheets its import claimed (a real sshd and the
 * PostgreSQL ledger, started here): another host's run, on its own ledger object, reads the sheet at
 * once, long before the ten-minute lease the stopped run's claim was made with would have lapsed.
 */
import { mkdirSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLedger } from '../../src/ledger/index.js';
import { prepareRemoteRun, type RemoteRunContext } from '../../src/remote/remote-run.js';
import { writeOrdersCsv } from '../e2e/make-sheet.js';
import { createDatabase, describePostgres, type TestDatabase } from '../support/postgres/database.js';
import { sshdMissing, startSshd, type Sshd } from '../support/sshd.js';
import { useTempDir } from '../support/temp-dir.js';

const missing = sshdMissing();
const LEASE_MS = 600_000;

(missing === null ? describePostgres : describe.skip)('remote sheets let go at the end of a stop\'s grace (real sshd, PostgreSQL)', () => {
  const path = useTempDir('remote-let-go');
  let sshd: Sshd;
  let db: TestDatabase;
  beforeAll(async () => {
    sshd = await startSshd(path('sshd'));
    db = await createDatabase();
  });
  afterAll(async () => {
    await sshd?.stop();
    await db?.drop();
  });

  const contextOn = (host: string, ledger: RemoteRunContext['ledger']): RemoteRunContext => {
    mkdirSync(path(host), { recursive: true });
    return { settings: { sshKeyPath: sshd.userKey, knownHostsPath: sshd.knownHosts, settleSeconds: 0 }, ledgerPath: path(`${host}/ledger.db`), ledger, claimLeaseMs: LEASE_MS, currentFolder: path(host) };
  };

  it('lets another host read the sheet right after the let-go, not after the lease', async () => {
    const inbox = path('inbox');
    mkdirSync(inbox);
    writeOrdersCsv(join(inbox, 'night.csv'), { orders: 3, prefix: 'LETGO', orderDate: new Date(Date.now() - 3_600_000) });
    const old = new Date(Date.now() - 3_600_000);
    utimesSync(join(inbox, 'night.csv'), old, old);
    const folder = `${sshd.url}${inbox}/`;
    const [a, b] = [await openLedger(db.url), await openLedger(db.url)];
    try {
      const stopped = await prepareRemoteRun({ command: 'import', files: [folder] }, contextOn('a', a));
      expect(stopped.files).toHaveLength(1);
      // While A holds it, B's run finds it taken.
      const meanwhile = await prepareRemoteRun({ command: 'import', files: [folder] }, contextOn('b', b));
      await meanwhile.close();
      expect(meanwhile.warnings).toEqual([]);
      expect(meanwhile.files[0]).not.toMatch(/night\.csv$/);
      // A's stop: its grace is over.
      await a.abandonRuns();
      await stopped.close();
      const taken = await prepareRemoteRun({ command: 'import', files: [folder] }, contextOn('b', b));
      await taken.close();
      expect(taken.files).toHaveLength(1);
      expect(taken.files[0]).toMatch(/night\.csv$/);
    } finally {
      await a.close();
      await b.close();
    }
  }, 120_000);
});
