/**
 * The team's concurrency cap kept in the ledger (docs/team.md), with the real CLI in processes of
 * their own: `ledger set team-concurrency` stores it, and every import on the ledger obeys it, with
 * or without a --team-concurrency of its own, including a cap lowered while the imports go. The
 * sandbox counts the POSTs in flight.
 */
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLedger } from '../../src/ledger/open-ledger.js';
import { asSuperuser, createDatabase, describePostgres, type TestDatabase } from '../support/postgres/database.js';
import { writeOrdersCsv } from './make-sheet.js';
import { runCli, tempDir } from './run-cli.js';
import { startSandboxProcess, type SandboxProcess } from './sandbox-process.js';
import { ordersOfProcess, startImport, type ImportProcess } from './team-processes.js';

/** Polls `condition` until it holds (no time limit of its own: the test's timeout is the limit). */
async function waitFor(condition: () => boolean | Promise<boolean>, what: string, processes: readonly ImportProcess[] = []): Promise<void> {
  let ended = false;
  for (const p of processes) void p.done.then(() => (ended = true));
  while (!(await condition())) {
    if (ended) throw new Error(`an import ended before ${what}`);
    await sleep(20);
  }
}

describePostgres('the team cap stored in a PostgreSQL ledger (real CLI)', () => {
  let db: TestDatabase;
  let sandbox: SandboxProcess;
  let dir: string;
  beforeAll(async () => {
    db = await createDatabase();
    await (await openLedger(db.url)).close();
    sandbox = await startSandboxProcess(['--seed', '7']);
    dir = tempDir();
  });
  afterAll(async () => {
    await sandbox?.stop();
    await db?.drop();
  });

  const setCap = async (value: string) => {
    const result = await runCli(['ledger', 'set', 'team-concurrency', value, '--ledger', db.url]);
    expect(result.code, result.stderr).toBe(0);
    return result;
  };
  const sheetOf = (name: string, orders: number) => {
    const file = join(dir, `${name}.csv`);
    writeOrdersCsv(file, { orders, prefix: name.toUpperCase(), orderDate: new Date(Date.now() - 3_600_000) });
    return file;
  };
  const importOf = (sheet: string, extra: string[] = []) =>
    startImport(['import', sheet, '--ledger', db.url, '--out', `${sheet}.result.csv`, '--json', '--concurrency', '8', ...extra], sandbox.env);

  it('stores the cap with ledger set (audited, shown by ledger show), and the password stays out of both', async () => {
    const set = await setCap('5');
    expect(set.stdout).toContain("The team's concurrency cap on the ledger");
    expect(set.stdout).toContain('is 5 POSTs in flight across every run (it was none)');
    const show = await runCli(['ledger', 'show', '--ledger', db.url]);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toMatch(/backend +PostgreSQL/);
    expect(show.stdout).toMatch(/team concurrency +5 POSTs in flight across every run/);
    expect(show.stdout).toMatch(/claim lease +120 s/);
    for (const text of [set.stdout, show.stdout]) expect(text).not.toContain('pg-test-s3cret');
    const json = JSON.parse((await runCli(['ledger', 'show', '--ledger', db.url, '--json'])).stdout) as Record<string, unknown>;
    expect(json).toMatchObject({ command: 'ledger show', backend: 'postgres', teamConcurrency: 5, schemaVersion: expect.stringMatching(/^\d+ \(/) });
    const audit = JSON.parse((await runCli(['audit', '--ledger', db.url, '--json'])).stdout) as { entries?: { action: string; detail: string }[] } | { action: string; detail: string }[];
    const entries = Array.isArray(audit) ? audit : (audit.entries ?? []);
    expect(entries.filter((e) => e.action === 'ledger_setting').map((e) => e.detail)).toContain('team-concurrency 5 (was off)');
    const refused = await runCli(['ledger', 'set', 'team-concurrency', 'lots', '--ledger', db.url]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('team-concurrency takes a whole number from 1 to 1000');
  });

  it('holds two imports to the stored cap together: one without --team-concurrency, one whose value is higher', async () => {
    await setCap('3');
    await sandbox.setFaults({ latencyMs: 15 });
    await sandbox.resetMaxInFlight();
    const plain = importOf(sheetOf('plain', 150));
    const higher = importOf(sheetOf('higher', 150), ['--team-concurrency', '10']);
    const [a, b] = await Promise.all([plain.done, higher.done]);
    await sandbox.setFaults({});
    for (const result of [a, b]) expect(result.code, result.stderr).toBe(0);
    expect(a.stderr).toContain("the team's cap stored in the ledger applies: at most 3");
    expect(b.stderr.split('--team-concurrency 10 is above the team\'s cap of 3 stored in the ledger: the ledger\'s cap applies')).toHaveLength(2);
    const stats = await sandbox.stats();
    expect(stats.maxPostsInFlight).toBeLessThanOrEqual(3);
    expect(stats.duplicatesRejected).toBe(0);
  }, 120_000);

  it('applies a cap lowered while the imports go, without restarting them', async () => {
    await setCap('6');
    await sandbox.setFaults({ latencyMs: 10 });
    const imports = [importOf(sheetOf('lowered-a', 400)), importOf(sheetOf('lowered-b', 400), ['--team-concurrency', '4'])];
    await waitFor(async () => (await Promise.all(imports.map((p) => ordersOfProcess(db.name, p.child.pid!)))).every((n) => n >= 30), 'both were busy', imports);
    await setCap('2');
    // Each says it when its next place is taken; from then on no place is taken while one above the new cap is held.
    await waitFor(() => imports.every((p) => p.stderr.includes("the team's cap was changed in the ledger: at most 2")), 'both read the new cap', imports);
    const placesAboveCap = () =>
      asSuperuser(async (c) => {
        const { rows } = await c.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2 AND objid >= 2
             AND database = (SELECT oid FROM pg_database WHERE datname = $1)`,
          [db.name],
        );
        return rows[0]!.n;
      });
    // The POSTs that were in flight under the old cap finish; the sandbox counts again from then.
    await waitFor(async () => (await placesAboveCap()) === 0, 'the POSTs above the new cap ended', imports);
    await sandbox.resetMaxInFlight();
    const results = await Promise.all(imports.map((p) => p.done));
    await sandbox.setFaults({});
    for (const result of results) expect(result.code, result.stderr).toBe(0);
    // The one whose own value is 4 is told once that the ledger's cap of 2 now applies.
    expect(results[1]!.stderr.split("--team-concurrency 4 is above the team's cap of 2").length).toBe(2);
    const stats = await sandbox.stats();
    expect(stats.maxPostsInFlight).toBeLessThanOrEqual(2);
    expect(stats.duplicatesRejected).toBe(0);
  }, 180_000);
});

describe('the team cap on a SQLite ledger (real CLI)', () => {
  it('is refused: a file ledger runs one import at a time, so there is no team to cap', async () => {
    const ledger = join(tempDir(), 'ledger.db');
    await (await openLedger(ledger)).close();
    const refused = await runCli(['ledger', 'set', 'team-concurrency', '4', '--ledger', ledger]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('is a SQLite file, which admits one run at a time: there is no team to cap');
    const show = await runCli(['ledger', 'show', '--ledger', ledger]);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toMatch(/backend +SQLite file/);
    expect(show.stdout).toMatch(/team concurrency +none \(a file ledger runs one import at a time/);
    const missing = await runCli(['ledger', 'show', '--ledger', join(tempDir(), 'none.db')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('There is no ledger at');
  });
});
