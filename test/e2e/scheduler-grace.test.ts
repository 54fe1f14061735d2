/**
 * SIGTERM to `order-batch scheduler` while its occurrence waits on an API that does not answer: past
 * --shutdown-grace the process exits anyway, saying so, and lets go of the occurrence, its orders and
 * the remote sheet it claimed at once. Another instance, started after it is gone, finishes the
 * occurrence long before the ten-minute leases would have lapsed: every order accepted once.
 */
import { mkdirSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asSuperuser, createDatabase, describePostgres, type TestDatabase } from '../support/postgres/database.js';
import { startSchedulerProcess, type SchedulerProcess } from '../support/scheduler-process.js';
import { sshdMissing, startSshd, type Sshd } from '../support/sshd.js';
import { useTempFolder } from '../support/temp-dir.js';
import { writeOrdersCsv } from './make-sheet.js';
import { hasStackTrace, runCli } from './run-cli.js';
import { startSandboxProcess, type SandboxProcess } from './sandbox-process.js';
import { until } from '../support/until.js';

const ORDERS = 6;
/** Seconds from now to the occurrence: the first instance is up well before it. */
const LEAD_SECONDS = 15;

const missing = sshdMissing();

(missing === null ? describePostgres : describe.skip)('scheduler --shutdown-grace with another instance on the PostgreSQL ledger', () => {
  const dir = useTempFolder('scheduler-grace');
  let sandbox: SandboxProcess;
  let sshd: Sshd;
  let db: TestDatabase;
  const instances: SchedulerProcess[] = [];
  beforeAll(async () => {
    sandbox = await startSandboxProcess(['--seed', '13']);
    sshd = await startSshd(join(dir, 'sshd'));
    db = await createDatabase();
  });
  afterAll(async () => {
    for (const instance of instances) await instance.kill();
    await sandbox?.stop();
    await sshd?.stop();
    await db?.drop();
  });

  const rowsOf = <T extends object>(sql: string) => asSuperuser(async (c) => (await c.query<T & pg.QueryResultRow>(sql)).rows as T[], db.name);

  it("lets go of the stuck occurrence, its orders and its remote sheet at the end of the grace, so another instance finishes it at once, every order accepted once", async () => {
    const inbox = join(dir, 'inbox');
    mkdirSync(inbox);
    writeOrdersCsv(join(inbox, 'night.csv'), { orders: ORDERS, prefix: `SGRACE${Math.floor(Math.random() * 1e6)}`, orderDate: new Date(Date.now() - 3_600_000) });
    const old = new Date(Date.now() - 3_600_000);
    utimesSync(join(inbox, 'night.csv'), old, old);
    const at = new Date(Math.ceil(Date.now() / 1000) * 1000 + LEAD_SECONDS * 1000);
    const cron = `${at.getUTCSeconds()} ${at.getUTCMinutes()} ${at.getUTCHours()} ${at.getUTCDate()} ${at.getUTCMonth() + 1} *`;
    const config = join(dir, 'config.json');
    const args = [`${sshd.url}${inbox}/`, '--settle', '0', '--ssh-key', sshd.userKey, '--known-hosts', sshd.knownHosts, '--concurrency', '2'];
    writeFileSync(config, JSON.stringify({ ledger: db.url, schedules: [{ name: 'inbox', cron, timezone: 'UTC', command: 'import', args }] }));
    // Leases of ten minutes: only a let-go explains another instance finishing the occurrence within the test.
    const flags = ['--config', config, '--claim-lease', '600', '--shutdown-grace', '1', '--log-level', 'warn'];
    const before = await sandbox.stats();
    // Answers that take two seconds, so that the orders are still going out when the test looks.
    await sandbox.setFaults({ latencyMs: 2_000, paths: ['/api/v0/orders'] });
    mkdirSync(join(dir, 'a'));
    const a = startSchedulerProcess(flags, { cwd: join(dir, 'a'), env: sandbox.env });
    instances.push(a);
    await a.started;
    expect(Date.now()).toBeLessThan(at.getTime());
    await until(async () => (await sandbox.stats()).postsReceived > before.postsReceived, `A to be sending: ${a.stderr()}`);
    // From the first POST on, every answer takes ten minutes: A's occurrence cannot finish by itself.
    await sandbox.setFaults({ latencyMs: 600_000, paths: ['/api/v0/orders'] });
    const sending = async () => (await rowsOf<{ n: number }>(`SELECT count(*)::int AS n FROM orders WHERE state = 'sending'`))[0]!.n;
    await until(async () => (await sending()) > 0 && (await sandbox.stats()).postsReceived - before.postsReceived > 2, `A to be stuck on a POST: ${a.stderr()}`);
    const [file] = await rowsOf<{ state: string; holder: string }>('SELECT state, holder FROM remote_files');
    expect(file).toMatchObject({ state: 'claimed' });
    // A's run as if A ran on another host: B cannot end it as a dead process of its own machine, so only what A let go of is free.
    await asSuperuser((c) => c.query(`UPDATE runs SET machine = 'another-host' WHERE finished_at IS NULL`), db.name);

    a.child.kill('SIGTERM');
    let exit: { code: number | null } | null = null;
    void a.done.then((e) => (exit = e));
    await until(async () => exit !== null, 'A to exit once its grace is over');
    expect(exit).toEqual({ code: 0, signal: null });
    expect(a.stderr()).toContain('stopping: taking no more schedule occurrences; the running one finishes within 1 s or is let go of');
    expect(a.stderr()).toContain('the schedule occurrence running did not finish within 1 s: it is let go of');
    expect(await rowsOf<{ state: string }>('SELECT state FROM remote_files')).toEqual([{ state: 'retry' }]);

    await sandbox.setFaults({});
    // B starts after A is gone: what it finds in the ledger is all A left behind.
    mkdirSync(join(dir, 'b'));
    const b = startSchedulerProcess(flags, { cwd: join(dir, 'b'), env: sandbox.env });
    instances.push(b);
    const occurrences = () => rowsOf<{ state: string; starts: number; outcome: string | null; exit_code: number | null; summary: unknown }>('SELECT state, starts, outcome, exit_code, summary FROM schedule_occurrences');
    await until(async () => (await occurrences())[0]?.state === 'done', `B to finish the occurrence: ${b.stderr()}`);
    expect(await occurrences()).toMatchObject([{ state: 'done', starts: 2, outcome: 'ok', exit_code: 0 }]);
    const files = await rowsOf<{ state: string; holder: string }>('SELECT state, holder FROM remote_files');
    expect(files).toMatchObject([{ state: 'done' }]);
    expect(files[0]!.holder).not.toBe(file!.holder);
    const after = await sandbox.stats();
    expect(after.orders - before.orders).toBe(ORDERS);
    expect(after.duplicatesRejected - before.duplicatesRejected).toBe(0);
  }, 240_000);
});

describe('scheduler --shutdown-grace, given a value it cannot take', () => {
  const dir = useTempFolder('scheduler-grace-usage');

  it('refuses it at start in one line (exit 2), before it claims anything', async () => {
    const config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ ledger: join(dir, 'ledger.db'), schedules: [{ name: 'inbox', cron: '0 2 * * *', command: 'import', args: [join(dir, 'inbox/')] }] }));
    const result = await runCli(['scheduler', '--config', config, '--shutdown-grace', 'soon']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--shutdown-grace/);
    expect(hasStackTrace(result.stderr)).toBe(false);
  });
});
