/**
 * A schedule on three `order-batch scheduler` processes sharing one PostgreSQL ledger (PRODUCT.md
 * section 9), the sandbox in a process of its own as the API. The schedule's cron names one instant a
 * few seconds after the processes start (a cron with seconds: no wall-clock minute is waited for).
 * The process that takes the occurrence is killed with SIGKILL mid-run; another finishes it once the
 * lease has lapsed. One occurrence, one finished run, every order posted once.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openLedger } from '../../src/ledger/open-ledger.js';
import { asSuperuser, createDatabase, describePostgres, type TestDatabase } from '../support/postgres/database.js';
import { writeOrdersCsv } from './make-sheet.js';
import { ROOT, runCli, tempDir } from './run-cli.js';
import { startSandboxProcess, type SandboxProcess } from './sandbox-process.js';
import { ordersOfProcess } from './team-processes.js';
import { startSchedulerProcess, type SchedulerProcess } from '../support/scheduler-process.js';
import { until } from '../support/until.js';

const ORDERS = 150;
/** Seconds from now to the occurrence: the three processes are up well before it. */
const LEAD_SECONDS = 18;
/**
 * The lease of the occurrence and of the run's orders (--claim-lease): how long the killed instance's work
 * waits. Long enough that a live instance, renewing every third of it, keeps its lease on a loaded machine
 * (3 s was not: a third instance took over the one that was finishing).
 */
const LEASE_SECONDS = 10;

interface OccurrenceRow {
  schedule_name: string;
  scheduled_at: string;
  state: string;
  host: string | null;
  starts: number;
  outcome: string | null;
  exit_code: number | null;
  run_id: string | null;
}

describePostgres('a schedule on three scheduler processes sharing one PostgreSQL ledger', () => {
  let db: TestDatabase;
  let sandbox: SandboxProcess;
  const schedulers: SchedulerProcess[] = [];
  beforeAll(async () => {
    db = await createDatabase();
    await (await openLedger(db.url)).close();
    sandbox = await startSandboxProcess(['--seed', '29']);
  });
  afterAll(async () => {
    for (const s of schedulers) await s.kill();
    await sandbox?.stop();
    await db?.drop();
  });

  const occurrences = () => asSuperuser(async (c) => (await c.query<OccurrenceRow>('SELECT * FROM schedule_occurrences ORDER BY scheduled_at')).rows, db.name);

  it('runs the occurrence once; the killed instance\'s run is finished by another after the lease, nothing sent twice', async () => {
    const dir = tempDir();
    const sheet = join(dir, 'orders.csv');
    writeOrdersCsv(sheet, { orders: ORDERS, prefix: 'SCHED', orderDate: new Date(Date.now() - 3_600_000) });
    // Slow enough answers that the run is still sending when it is killed.
    await sandbox.setFaults({ latencyMs: 60 });
    const at = new Date(Math.ceil(Date.now() / 1000) * 1000 + LEAD_SECONDS * 1000);
    const cron = `${at.getUTCSeconds()} ${at.getUTCMinutes()} ${at.getUTCHours()} ${at.getUTCDate()} ${at.getUTCMonth() + 1} *`;
    const config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({
      ledger: db.url,
      schedules: [{ name: 'inbox', cron, timezone: 'UTC', command: 'import', args: [sheet, '--out', join(dir, 'result.xlsx'), '--concurrency', '2'], notify: ['https://hooks.example.com/services/T000/B000/s3cr3t'] }],
    }));
    for (let i = 0; i < 3; i++) schedulers.push(startSchedulerProcess(['--config', config, '--claim-lease', String(LEASE_SECONDS), '--log-level', 'warn'], { cwd: ROOT, env: sandbox.env }));
    // The three are up before the occurrence (else the test would prove nothing about sharing it).
    await Promise.all(schedulers.map((s) => s.started));
    for (const s of schedulers) expect(s.stdout()).toMatch(/^scheduler: 1 schedule \(inbox\) on the ledger postgresql:\/\/order_batch_test:\*\*\*@/);
    expect(Date.now()).toBeLessThan(at.getTime());

    // The instance that took the occurrence, once its run has sent a part of the orders.
    let running: OccurrenceRow[] = [];
    await until(async () => (running = await occurrences()).length === 1 && running[0]!.run_id !== null, 'the occurrence to run');
    expect(running[0]).toMatchObject({ schedule_name: 'inbox', state: 'running', starts: 1 });
    const holderPid = Number(running[0]!.host!.split(' ').at(-1));
    const holder = schedulers.find((s) => s.child.pid === holderPid)!;
    expect(holder).toBeDefined();
    await until(async () => (await ordersOfProcess(db.name, holderPid)) >= 20, 'the run to be under way');
    holder.child.kill('SIGKILL');
    expect((await holder.done).signal).toBe('SIGKILL');

    let finished: OccurrenceRow[] = [];
    await until(async () => (finished = await occurrences())[0]?.state === 'done', 'another instance to finish the occurrence');
    expect(finished).toHaveLength(1);
    expect(finished[0]).toMatchObject({ state: 'done', starts: 2, outcome: 'ok', exit_code: 0 });
    expect(new Date(finished[0]!.scheduled_at).toISOString()).toBe(at.toISOString());
    const finisherPid = Number(finished[0]!.host!.split(' ').at(-1));
    expect(finisherPid).not.toBe(holderPid);
    expect(schedulers.map((s) => s.child.pid)).toContain(finisherPid);

    // Two import runs: the killed one, never finished, and the one that finished its work.
    const runs = await asSuperuser(async (c) => (await c.query<{ pid: number; finished: boolean }>(`SELECT pid, finished_at IS NOT NULL AS finished FROM runs WHERE command = 'import' ORDER BY started_at`)).rows, db.name);
    expect(runs).toEqual([{ pid: holderPid, finished: false }, { pid: finisherPid, finished: true }]);
    const stats = await sandbox.stats();
    expect({ orders: stats.orders, postsReceived: stats.postsReceived, duplicatesRejected: stats.duplicatesRejected }).toEqual({ orders: ORDERS, postsReceived: ORDERS, duplicatesRejected: 0 });

    // The audit trail names the schedule.
    const actors = await asSuperuser(async (c) => (await c.query<{ actor: string }>(`SELECT DISTINCT actor FROM audit WHERE action = 'import'`)).rows, db.name);
    expect(actors).toEqual([{ actor: 'schedule inbox' }]);

    // schedules list --json: the schedule, its next occurrences, its last outcome and where it ran.
    const list = await runCli(['schedules', 'list', '--config', config, '--json'], { env: sandbox.env });
    expect(list.code).toBe(0);
    expect(list.stdout).not.toContain('s3cr3t');
    const listed = JSON.parse(list.stdout) as { command: string; now: string; schedules: Record<string, unknown>[] };
    expect(listed).toMatchObject({ command: 'schedules list', schedules: [{ name: 'inbox', command: 'import', cron, timezone: 'UTC', catchUp: '6h', notify: ['https://hooks.example.com/…'], running: null }] });
    const entry = listed.schedules[0] as { next: string[]; last: Record<string, unknown>; args: string[] };
    expect(entry.next).toHaveLength(3);
    expect(entry.next.every((n) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/.test(n))).toBe(true);
    expect(entry.last).toMatchObject({ schedule: 'inbox', scheduledAt: at.toISOString(), kind: 'scheduled', state: 'done', outcome: 'ok', exitCode: 0, starts: 2, host: finished[0]!.host, runId: finished[0]!.run_id });

    // SIGTERM: the two left stop taking occurrences and exit.
    for (const s of schedulers.filter((p) => p !== holder)) s.child.kill('SIGTERM');
    for (const s of schedulers.filter((p) => p !== holder)) expect((await s.done).code).toBe(0);
  }, 180_000);
});

