/**
 * Two hosts on one PostgreSQL ledger polling one SFTP inbox while sheets arrive slowly, a byte range at
 * a time, and one is replaced by a newer version: every order reaches the API exactly once and no run
 * ever reads a sheet half-written.
 */
import { closeSync, mkdirSync, openSync, readFileSync, writeSync, ftruncateSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, describePostgres, type TestDatabase } from '../support/postgres/database.js';
import { sshdMissing, startSshd, type Sshd } from '../support/sshd.js';
import { useTempDir } from '../support/temp-dir.js';
import { writeOrdersCsv } from '../e2e/make-sheet.js';
import { runCli, type CliResult } from '../e2e/run-cli.js';
import { startSandboxProcess, type SandboxProcess } from '../e2e/sandbox-process.js';

const missing = sshdMissing();
const CHUNK = 300;

/** Writes `content` into `file` a byte range at a time, as a slow upload does (the pause is the upload's pace, not a wait for a result). */
async function uploadSlowly(file: string, content: Buffer, isSeenWaiting: () => boolean = () => true): Promise<void> {
  const fd = openSync(file, 'w');
  try {
    ftruncateSync(fd, 0);
    // Tiny ranges until some poll has met this sheet mid-upload, however slow the machine: the upload keeps going meanwhile.
    for (let at = 0, size = 0; at < content.length; at += size) {
      size = isSeenWaiting() ? CHUNK : 20;
      writeSync(fd, content, at, Math.min(size, content.length - at), at);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    closeSync(fd);
  }
}

(missing === null ? describePostgres : describe.skip)('two hosts polling one SFTP inbox on a PostgreSQL ledger', () => {
  const path = useTempDir('two-hosts');
  let sshd: Sshd;
  let sandbox: SandboxProcess;
  let db: TestDatabase;
  beforeAll(async () => {
    sshd = await startSshd(path('sshd'));
    sandbox = await startSandboxProcess();
    db = await createDatabase();
  });
  afterAll(async () => {
    await sshd?.stop();
    await sandbox?.stop();
    await db?.drop();
  });

  it('sends every order exactly once and never reads a sheet half-written', { timeout: 300_000 }, async () => {
    const inbox = path('inbox');
    mkdirSync(inbox);
    const orderDate = new Date(Date.now() - 3_600_000);
    const sheets = ['a', 'b', 'c'].map((name) => {
      writeOrdersCsv(path(`${name}.csv`), { orders: 25, prefix: `TH${name.toUpperCase()}`, orderDate });
      return { name, content: readFileSync(path(`${name}.csv`)) };
    });
    // The newer version of a.csv: its 25 orders unchanged and 15 more.
    writeOrdersCsv(path('a2.csv'), { orders: 40, prefix: 'THA', orderDate });
    const expected = 25 * 3 + 15;
    const before = await sandbox.stats();
    const runs: CliResult[] = [];
    let isUploading = true;
    const poll = async (host: string) => {
      mkdirSync(path(host));
      // Polls while sheets arrive, then until every order has reached the API (bounded).
      for (let round = 0; round < 60; round++) {
        const result = await runCli(
          ['import', `${sshd.url}${inbox}/`, '--settle', '2', '--ssh-key', sshd.userKey, '--known-hosts', sshd.knownHosts, '--json', '--log-level', 'error'],
          { cwd: path(host), env: { ...sandbox.env, ORDER_BATCH_LEDGER: db.url } },
        );
        runs.push(result);
        const stats = await sandbox.stats();
        if (!isUploading && stats.postsReceived - before.postsReceived >= expected) return;
      }
    };
    const upload = async () => {
      const seenWaiting = (name: string) => () => runs.some((r) => r.stdout.startsWith('{') && JSON.parse(r.stdout).remote.waiting.some((w: { location: string }) => w.location.endsWith(`/${name}.csv`)));
      await Promise.all(sheets.map((s) => uploadSlowly(join(inbox, `${s.name}.csv`), s.content, s.name === 'b' ? seenWaiting('b') : undefined)));
      // Replaced once the first version has gone through (its orders in the API), slowly again.
      for (let i = 0; i < 400 && (await sandbox.stats()).postsReceived - before.postsReceived < 75; i++) await new Promise((resolve) => setTimeout(resolve, 250));
      await uploadSlowly(join(inbox, 'a.csv'), readFileSync(path('a2.csv')));
      isUploading = false;
    };
    await Promise.all([poll('host-1'), poll('host-2'), upload()]);

    const stats = await sandbox.stats();
    expect(stats.postsReceived - before.postsReceived).toBe(expected);
    expect(stats.duplicatesRejected - before.duplicatesRejected).toBe(0);
    let accepted = 0;
    for (const run of runs) {
      expect(run.code, run.stderr).toBe(0);
      const report = JSON.parse(run.stdout);
      // A sheet read half-written would show as a damaged file or orders cut short.
      expect(report.input.filter((i: { error?: unknown }) => i.error)).toEqual([]);
      expect(report.summary.invalid ?? 0).toBe(0);
      accepted += report.summary.accepted ?? 0;
    }
    expect(accepted).toBe(expected);
    // The newer a.csv was processed again (its first 25 orders already in the ledger: not sent twice).
    const aRuns = runs.map((r) => JSON.parse(r.stdout)).filter((r) => r.input.some((i: { file: string }) => i.file.endsWith('/a.csv')));
    expect(aRuns).toHaveLength(2);
    // The polls met sheets mid-upload, and let them wait.
    expect(runs.some((r) => JSON.parse(r.stdout).remote.waiting.length > 0 && /waits for the next run/.test(r.stderr)), runs.map((r) => r.stderr).join('\n')).toBe(true);
  });
});
