/** Importing from an SFTP inbox against a real sshd (started here) and the sandbox, as cron would run it. */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeKey, sshdMissing, startSshd, type Sshd } from '../support/sshd.js';
import { useTempDir } from '../support/temp-dir.js';
import { writeOrdersCsv } from '../e2e/make-sheet.js';
import { hasStackTrace, runCli } from '../e2e/run-cli.js';
import { startSandboxProcess, type SandboxProcess } from '../e2e/sandbox-process.js';

const missing = sshdMissing();
const PASSWORD_SENTINEL = 'pw-sentinel-7731';

describe.skipIf(missing !== null)('import from an SFTP inbox (real sshd)', () => {
  const path = useTempDir('sftp-import');
  let sshd: Sshd;
  let sandbox: SandboxProcess;
  beforeAll(async () => {
    sshd = await startSshd(path('sshd'));
    mkdirSync(path('host'));
    sandbox = await startSandboxProcess();
  });
  afterAll(async () => {
    await sshd?.stop();
    await sandbox?.stop();
  });

  const run = (args: string[], work: string, extra: Record<string, string> = {}) => {
    mkdirSync(work, { recursive: true });
    return runCli([...args, '--ssh-key', sshd.userKey, '--known-hosts', sshd.knownHosts], {
      cwd: work,
      env: { ...sandbox.env, ORDER_BATCH_LEDGER: join(work, 'ledger.db'), ORDER_BATCH_SSH_PASSWORD: PASSWORD_SENTINEL, ...extra },
    });
  };

  it('imports the settled sheets of an inbox once, puts each result beside its sheet and archives the settled ones', async () => {
    const inbox = path('inbox');
    const archive = path('archive');
    mkdirSync(inbox);
    mkdirSync(archive);
    writeOrdersCsv(join(inbox, 'monday.csv'), { orders: 4, prefix: 'SFA', orderDate: new Date(Date.now() - 3_600_000) });
    writeFileSync(join(inbox, 'notes.md'), 'not a sheet');
    const before = await sandbox.stats();
    const args = ['import', `${sshd.url}${inbox}/`, '--archive', `${sshd.url}${archive}/`, '--settle', '0', '--json', '--log-level', 'error'];
    const first = await run(args, path('host'));
    expect(first.code, first.stderr).toBe(0);
    const report = JSON.parse(first.stdout);
    expect(report.summary).toEqual({ accepted: 4 });
    expect(report.archived).toEqual([{ file: `${sshd.url}${inbox}/monday.csv`, sheet: `${sshd.url}${archive}/monday.csv`, result: `${sshd.url}${archive}/monday.import-result.xlsx` }]);
    expect(readdirSync(archive).sort()).toEqual(['monday.csv', 'monday.import-result.xlsx']);
    expect(readdirSync(inbox)).toEqual(['notes.md']);
    const again = await run(args, path('host'));
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).summary).toEqual({});
    expect((await sandbox.stats()).postsReceived - before.postsReceived).toBe(4);
    // Nothing of a secret in what the run printed nor in the ledger; the work folder is emptied.
    const ledger = readFileSync(join(path('host'), 'ledger.db')).toString('latin1');
    for (const text of [first.stdout, first.stderr, again.stdout, again.stderr, ledger]) {
      expect(text).not.toContain(PASSWORD_SENTINEL);
      expect(text).not.toContain(readFileSync(sshd.userKey, 'utf8').split('\n')[1]);
    }
    expect(readdirSync(join(path('host'), 'remote'))).toEqual([]);
  });

  it('leaves a sheet with orders to fix in the inbox with its result beside it, and takes it again only once it changes', async () => {
    const inbox = path('fix-inbox');
    mkdirSync(inbox);
    const sheet = join(inbox, 'tuesday.csv');
    const orderDate = new Date(Date.now() - 3_600_000);
    writeOrdersCsv(sheet, { orders: 3, prefix: 'SFB', orderDate });
    writeFileSync(sheet, readFileSync(sheet, 'utf8').replace(/^(SFB-00002,.*?)PRD-\d{4}/m, '$1'));
    const args = ['import', `${sshd.url}${inbox}/`, '--archive', `${sshd.url}${path('fix-archive')}/`, '--settle', '0', '--json', '--log-level', 'error'];
    mkdirSync(path('fix-archive'));
    const first = await run(args, path('host-b'));
    expect(first.code, first.stderr).toBe(1);
    const report = JSON.parse(first.stdout);
    expect(report.kept).toHaveLength(1);
    expect(report.kept[0].result).toBe(`${sshd.url}${inbox}/tuesday.import-result.xlsx`);
    expect(readdirSync(inbox).sort()).toEqual(['tuesday.csv', 'tuesday.import-result.xlsx']);
    const unchanged = await run(args, path('host-b'));
    expect(JSON.parse(unchanged.stdout).remote.alreadyProcessed).toEqual([`${sshd.url}${inbox}/tuesday.csv`]);
    writeOrdersCsv(sheet, { orders: 3, prefix: 'SFB', orderDate });
    const fixed = await run(args, path('host-b'));
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(JSON.parse(fixed.stdout).summary).toEqual({ accepted: 1, already_submitted: 2 });
    expect(readdirSync(path('fix-archive')).sort()).toEqual(['tuesday.csv', 'tuesday.import-result.xlsx']);
  });

  it('refuses a server whose host key is unknown, with its fingerprint and the line to add, reading nothing', async () => {
    const inbox = path('unknown-inbox');
    mkdirSync(inbox);
    writeOrdersCsv(join(inbox, 'orders.csv'), { orders: 2, prefix: 'SFC', orderDate: new Date(Date.now() - 3_600_000) });
    writeFileSync(path('empty_known_hosts'), '');
    const before = await sandbox.stats();
    const result = await runCli(['import', `${sshd.url}${inbox}/`, '--ssh-key', sshd.userKey, '--known-hosts', path('empty_known_hosts'), '--settle', '0'], {
      cwd: path('host'),
      env: { ...sandbox.env, ORDER_BATCH_LEDGER: join(path('host'), 'ledger.db') },
    });
    expect(result.code).toBe(2);
    const fingerprint = /SHA256:\S+/.exec((await import('node:child_process')).execFileSync('ssh-keygen', ['-lf', join(path('sshd'), 'host_key.pub')]).toString())![0];
    expect(result.stderr).toContain(fingerprint);
    expect(result.stderr).toContain(`[127.0.0.1]:${sshd.port} ${sshd.hostPublicKey}`);
    expect(result.stderr).toContain('nothing was read or sent');
    expect(hasStackTrace(result.stderr)).toBe(false);
    expect(readdirSync(inbox)).toEqual(['orders.csv']);
    expect((await sandbox.stats()).postsReceived).toBe(before.postsReceived);
  });

  it('refuses a server whose host key changed, saying so', async () => {
    const other = makeKey(path('other_host_key'));
    writeFileSync(path('changed_known_hosts'), `# a team's file\n[127.0.0.1]:${sshd.port} ${other}\n`);
    const result = await runCli(['validate', `${sshd.url}/nowhere/orders.csv`, '--ssh-key', sshd.userKey, '--known-hosts', path('changed_known_hosts')], { cwd: path('host') });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/host key has CHANGED/);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('accepts a server listed under a hashed name, as ssh-keygen -H writes it', async () => {
    const hashed = path('hashed_known_hosts');
    writeFileSync(hashed, readFileSync(sshd.knownHosts));
    (await import('node:child_process')).execFileSync('ssh-keygen', ['-H', '-f', hashed], { stdio: 'ignore' });
    expect(readFileSync(hashed, 'utf8')).toMatch(/^\|1\|/);
    const inbox = path('hashed-inbox');
    mkdirSync(inbox);
    writeOrdersCsv(join(inbox, 'orders.csv'), { orders: 1, prefix: 'SFD', orderDate: new Date(Date.now() - 3_600_000) });
    const result = await runCli(['validate', `${sshd.url}${inbox}/orders.csv`, '--ssh-key', sshd.userKey, '--known-hosts', hashed, '--settle', '0', '--out', `${sshd.url}${inbox}/checked.csv`], { cwd: path('host') });
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(join(inbox, 'checked.csv'))).toBe(true);
  });

  it('names the location in one line when the server refuses the connection or the login', async () => {
    const refused = await runCli(['validate', 'sftp://nobody@127.0.0.1:1/in/', '--known-hosts', sshd.knownHosts], { cwd: path('host') });
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim()).toBe('order-batch: sftp://nobody@127.0.0.1:1: the connection was refused (is the SFTP server running on that port?).');
    const login = await runCli(['validate', `sftp://nobody@127.0.0.1:${sshd.port}/in/`, '--known-hosts', sshd.knownHosts, '--ssh-key', path('other_host_key')], { cwd: path('host') });
    expect(login.code).toBe(2);
    expect(login.stderr).toMatch(/the server refused the login/);
    const withPassword = await runCli(['validate', `sftp://me:${PASSWORD_SENTINEL}@127.0.0.1:${sshd.port}/in/`], { cwd: path('host') });
    expect(withPassword.code).toBe(2);
    expect(withPassword.stderr).toMatch(/ORDER_BATCH_SSH_PASSWORD/);
    expect(withPassword.stderr).not.toContain(PASSWORD_SENTINEL);
  });

  it('waits for a sheet modified within --settle, and says so', async () => {
    const inbox = path('settle-inbox');
    mkdirSync(inbox);
    writeOrdersCsv(join(inbox, 'fresh.csv'), { orders: 1, prefix: 'SFE', orderDate: new Date(Date.now() - 3_600_000) });
    const result = await run(['import', `${sshd.url}${inbox}/`, '--settle', '3600', '--json', '--log-level', 'error'], path('host'));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/fresh\.csv waits for the next run: it was modified \d+ s ago, less than --settle 3600 s/);
    expect(JSON.parse(result.stdout).remote.waiting).toEqual([{ location: `${sshd.url}${inbox}/fresh.csv`, reason: expect.stringMatching(/less than --settle 3600 s/) }]);
  });
  it('refuses an unknown --mapping with exit 2 and ends: the inbox it fetched from is let go of, not left open', async () => {
    const inbox = path('mapping-inbox');
    mkdirSync(inbox);
    writeOrdersCsv(join(inbox, 'friday.csv'), { orders: 2, prefix: 'SFM', orderDate: new Date(Date.now() - 3_600_000) });
    const result = await run(['import', `${sshd.url}${inbox}/`, '--mapping', 'no-such-mapping', '--settle', '0', '--log-level', 'error'], path('host-m'));
    // A connection left open would keep the process alive until runCli's timeout kills it (code null).
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('no-such-mapping');
    expect(hasStackTrace(result.stderr)).toBe(false);
    expect(readdirSync(inbox)).toEqual(['friday.csv']);
    const validated = await run(['validate', `${sshd.url}${inbox}/`, '--mapping', 'no-such-mapping', '--settle', '0', '--log-level', 'error'], path('host-m'));
    expect(validated.code, validated.stderr).toBe(2);
    expect(validated.stderr).toContain('no-such-mapping');
  });
});
