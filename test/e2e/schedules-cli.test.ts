/**
 * `order-batch scheduler`, `schedules list|run` and `serve` with schedules, spawned as a user or a
 * service manager runs them, on an SQLite ledger: mistakes in the schedules stop them at start with
 * one line and exit 2; a schedule runs now, once; serve runs the schedules beside the web app.
 */
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { openLedger } from '../../src/ledger/open-ledger.js';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { startServeProcess } from '../support/serve-process.js';
import { writeOrdersCsv } from './make-sheet.js';
import { CLI, cleanEnv, hasStackTrace, runCli, SAMPLE_NOW, SAMPLES, tempDir } from './run-cli.js';
import { startSandboxProcess } from './sandbox-process.js';

function writeConfig(dir: string, config: unknown): string {
  const path = join(dir, 'config.json');
  writeFileSync(path, typeof config === 'string' ? config : JSON.stringify(config, null, 2));
  return path;
}

function importSchedule(dir: string, extra: object = {}) {
  copyFileSync(join(SAMPLES, 'orders-valid.csv'), join(dir, 'orders.csv'));
  return { name: 'nightly', cron: '0 2 * * *', timezone: 'Europe/Berlin', command: 'import', args: [join(dir, 'orders.csv'), '--sandbox', '--now', SAMPLE_NOW, '--out', join(dir, 'result.xlsx')], ...extra };
}

describe('order-batch scheduler and schedules', () => {
  it('refuses to start without schedules, or with a schedule whose args its command refuses, in one line with exit 2', async () => {
    const dir = tempDir();
    const none = await runCli(['scheduler', '--config', writeConfig(dir, {}), '--ledger', join(dir, 'ledger.db')]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^order-batch: no schedules to run: the config file \S+ has no "schedules" \(see docs\/schedules\.md\)\.\n$/);

    const badFlag = await runCli(['scheduler', '--config', writeConfig(dir, { schedules: [importSchedule(dir, { args: ['inbox/', '--no-such-flag'] })] }), '--ledger', join(dir, 'ledger.db')]);
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toBe(`order-batch: schedule "nightly": its args: unknown option '--no-such-flag'\n`);

    const otherLedger = await runCli(['schedules', 'run', 'nightly', '--config', writeConfig(dir, { schedules: [importSchedule(dir, { args: ['inbox/', '--ledger', 'other.db'] })] })]);
    expect(otherLedger.code).toBe(2);
    expect(otherLedger.stderr).toContain(`schedule "nightly": --ledger cannot be among its args`);
    for (const result of [none, badFlag, otherLedger]) expect(hasStackTrace(result.stderr)).toBe(false);
  });

  it('refuses at start a schedule whose args hold a value its command refuses, the address in it shown without its password', async () => {
    const dir = tempDir();
    const badValue = await runCli(['scheduler', '--config', writeConfig(dir, { schedules: [importSchedule(dir, { args: ['inbox/', '--concurrency', 'sftp://batch:hunter2@files.example/in'] })] }), '--ledger', join(dir, 'ledger.db')]);
    expect(badValue.code).toBe(2);
    expect(badValue.stderr).toBe(`order-batch: schedule "nightly": its args: --concurrency takes a whole number, not "sftp://batch:***@files.example/in".\n`);
    const badHours = await runCli(['scheduler', '--config', writeConfig(dir, { schedules: [{ name: 'morning', cron: '0 6 * * *', command: 'reconcile', args: ['--hours', 'soon'] }] }), '--ledger', join(dir, 'ledger.db')]);
    expect(badHours.code).toBe(2);
    expect(badHours.stderr).toContain(`schedule "morning": its args: --hours takes a whole number of hours, not "soon"`);
  });

  it('names a bad cron by its line and column in the config file', async () => {
    const dir = tempDir();
    const config = writeConfig(dir, `{\n  "schedules": [\n    { "name": "nightly", "command": "import", "cron": "0 25 * * *" }\n  ]\n}\n`);
    const result = await runCli(['schedules', 'list', '--config', config]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`order-batch: Config file ${config}: schedules.0.cron (line 3, column 55): not a cron expression croner reads (Invalid value for hour: 25).\n`);
  });

  it('runs a schedule now, once, and lists it with its outcome; an unknown name is refused with the names there are', async () => {
    const dir = tempDir();
    const config = writeConfig(dir, { ledger: join(dir, 'ledger.db'), schedules: [importSchedule(dir)] });
    const unknown = await runCli(['schedules', 'run', 'weekly', '--config', config]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe('order-batch: no schedule named "weekly" in the config file (it has nightly).\n');

    const ran = await runCli(['schedules', 'run', 'nightly', '--config', config, '--log-level', 'warn'], { timeoutMs: 60_000 });
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(/^nightly: \d{4}-\d\d-\d\dT[\d:.]+Z ok \[manual\] \(exit 0: 8 accepted\) on \S+ \d+, run [0-9a-f-]{36}\n$/);

    const listed = await runCli(['schedules', 'list', '--config', config]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(`nightly: import ${join(dir, 'orders.csv')} --sandbox`);
    expect(listed.stdout).toMatch(/\n {2}cron {6}0 2 \* \* \* \(Europe\/Berlin\), catch-up 6h\n {2}next {6}\S+Z, \S+Z, \S+Z\n {2}last {6}\S+Z ok \[manual\]/);
  });

  it('serve runs the schedules beside the web app, and stops them with itself', async () => {
    const dir = tempDir();
    const ledgerPath = join(dir, 'ledger.db');
    const config = writeConfig(dir, { schedules: [importSchedule(dir, { cron: '*/2 * * * * *' })] });
    const serve = await startServeProcess(['--sandbox', '--ledger', ledgerPath, '--config', config, '--log-level', 'warn', '--now', SAMPLE_NOW], { cwd: dir });
    try {
      const ledger = await openLedger(ledgerPath);
      try {
        for (let waited = 0; !(await ledger.schedules.list()).some((o) => o.state === 'done'); waited += 100) {
          if (waited > 30_000) throw new Error(`no occurrence ran: ${serve.stderr()}`);
          await sleep(100);
        }
        expect((await ledger.schedules.list()).find((o) => o.state === 'done')).toMatchObject({ schedule: 'nightly', kind: 'scheduled', outcome: 'ok', exitCode: 0, summary: { accepted: 8 } });
      } finally {
        await ledger.close();
      }
    } finally {
      expect(await serve.stop()).toBe(0);
    }
  });

  it('on SIGTERM takes no more occurrences, lets the running one finish, and exits 0', async () => {
    const dir = tempDir();
    const ledgerPath = join(dir, 'ledger.db');
    const sheet = join(dir, 'orders.csv');
    writeOrdersCsv(sheet, { orders: 60, prefix: 'TERM', orderDate: new Date(Date.now() - 3_600_000) });
    const sandbox = await startSandboxProcess(['--seed', '7']);
    try {
      await sandbox.setFaults({ latencyMs: 50 });
      const config = writeConfig(dir, { ledger: ledgerPath, schedules: [{ name: 'inbox', cron: '*/2 * * * * *', command: 'import', args: [sheet, '--out', join(dir, 'result.xlsx'), '--concurrency', '1'] }] });
      const child = spawn(process.execPath, [CLI, 'scheduler', '--config', config, '--log-level', 'warn'], { cwd: dir, env: cleanEnv(sandbox.env), stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      const exited = once(child, 'close');
      const ledger = await openLedger(ledgerPath);
      try {
        for (let waited = 0; !(await ledger.schedules.list()).some((o) => o.state === 'running' && o.runId !== null); waited += 50) {
          if (waited > 30_000) throw new Error(`no occurrence started: ${stderr}`);
          await sleep(50);
        }
        child.kill('SIGTERM');
        const [code] = await exited;
        expect(code).toBe(0);
        expect(stderr).toContain('stopping: taking no more schedule occurrences; the running one finishes');
        const occurrences = await ledger.schedules.list();
        expect(occurrences.map((o) => [o.state, o.outcome, o.exitCode])).toEqual([['done', 'ok', 0]]);
        expect((await sandbox.stats()).postsReceived).toBe(60);
      } finally {
        await ledger.close();
      }
    } finally {
      await sandbox.stop();
    }
  });
});
