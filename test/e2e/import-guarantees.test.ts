/**
 * The guarantees of PRODUCT.md section 5, each proven by spawning the real CLI against a sandbox
 * running in its own process: kills, faults, an API that is down, tokens that expire mid-run.
 */
import ExcelJS from 'exceljs';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openLedger } from '../../src/ledger/index.js';
import { CLI, ROOT, cleanEnv, runCli, tempDir } from './run-cli.js';
import { writeOrdersCsv } from './make-sheet.js';
import { startSandboxProcess, type SandboxProcess } from './sandbox-process.js';
import { holdQuietAddress } from '../support/quiet-address.js';

const running: SandboxProcess[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop()));
});

async function sandbox(args: string[] = []): Promise<SandboxProcess> {
  const s = await startSandboxProcess(args);
  running.push(s);
  return s;
}

/** A deterministic PRNG so the kill moments are the same on every run of the suite. */
function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function runKilledAfter(args: string[], env: Record<string, string>, killAfterMs: number): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env: cleanEnv(env), stdio: 'ignore' });
    const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

async function statusesOf(resultXlsx: string): Promise<string[]> {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.readFile(resultXlsx);
  const ws = wb.getWorksheet('Results')!;
  const header = (ws.getRow(1).values as unknown[]).slice(1);
  const col = header.indexOf('status') + 1;
  const out: string[] = [];
  for (let r = 2; r <= ws.rowCount; r++) out.push(String(ws.getRow(r).getCell(col).value));
  return out;
}

describe('import guarantees (real CLI, sandbox in its own process)', () => {
  it('never posts an order twice and loses none when killed at random moments', async () => {
    const s = await sandbox(['--latency-ms', '15', '--seed', '3']);
    const dir = tempDir();
    const sheet = join(dir, 'orders.csv');
    const { rows } = writeOrdersCsv(sheet, { orders: 120, prefix: 'KILL', orderDate: new Date(Date.now() - 3_600_000) });
    const out = join(dir, 'result.xlsx');
    const args = ['import', sheet, '--ledger', join(dir, 'ledger.db'), '--out', out, '--json', '--concurrency', '8'];
    const random = mulberry32(42);
    let kills = 0;
    let finished = false;
    for (let round = 0; round < 40 && !finished; round++) {
      const killAfter = round < 12 ? 250 + Math.floor(random() * 900) : 60_000;
      const code = await runKilledAfter(args, s.env, killAfter);
      if (code === null) kills++;
      else {
        expect(code).toBe(0);
        finished = true;
      }
    }
    expect(finished).toBe(true);
    expect(kills).toBeGreaterThan(0);
    const stats = await s.stats();
    expect(stats.orders).toBe(120);
    expect(stats.duplicatesRejected).toBe(0);
    const statuses = await statusesOf(out);
    expect(statuses).toHaveLength(rows);
    expect(statuses.every((st) => st === 'accepted' || st === 'already_submitted')).toBe(true);
  });

  it('ends with every order accepted once when 20% of requests fail and 5% of replies are lost', async () => {
    const s = await sandbox(['--seed', '11']);
    await s.setFaults({ errorRate: 0.15, resetRate: 0.05, lostReplyRate: 0.05 });
    const dir = tempDir();
    const sheet = join(dir, 'orders.csv');
    writeOrdersCsv(sheet, { orders: 100, prefix: 'FLAKY', orderDate: new Date(Date.now() - 3_600_000) });
    const res = await runCli(['import', sheet, '--ledger', join(dir, 'ledger.db'), '--out', join(dir, 'r.csv'), '--json', '--max-attempts', '12'], { env: s.env, timeoutMs: 120_000 });
    expect(res.code).toBe(0);
    const report = JSON.parse(res.stdout);
    expect(report.summary).toEqual({ accepted: 100 });
    await s.setFaults({});
    const stats = await s.stats();
    expect(stats.orders).toBe(100);
    expect(stats.duplicatesRejected).toBe(0);
  });

  it('marks orders failed with exit 3 when the API is down, and the next run submits them', async () => {
    const quiet = await holdQuietAddress();
    try {
      const dir = tempDir();
      const sheet = join(dir, 'orders.csv');
      writeOrdersCsv(sheet, { orders: 12, prefix: 'DOWN', orderDate: new Date(Date.now() - 3_600_000) });
      const env = { FULFILLMENT_BASE_URL: `http://${quiet.host}:${quiet.port}`, FULFILLMENT_CLIENT_ID: 'e2e-client', FULFILLMENT_CLIENT_SECRET: 'e2e-secret' };
      const args = ['import', sheet, '--ledger', join(dir, 'ledger.db'), '--out', join(dir, 'r.csv'), '--json', '--max-attempts', '2'];
      const down = await runCli(args, { env });
      expect(down.code).toBe(3);
      expect(JSON.parse(down.stdout).summary).toEqual({ failed: 12 });
      expect(down.stderr).toMatch(/could not be reached|unreachable|ECONNREFUSED/i);

      const s = await sandbox(['--host', quiet.host, '--port', String(quiet.port)]);
      const up = await runCli(args, { env: s.env });
      expect(up.code).toBe(0);
      expect(JSON.parse(up.stdout).summary).toEqual({ accepted: 12 });
      expect((await s.stats()).orders).toBe(12);
    } finally {
      await quiet.release();
    }
  });

  it('stops on a 403 and leaves the orders it never sent pending, so the next run sends them without lookups', async () => {
    const s = await sandbox();
    const dir = tempDir();
    const sheet = join(dir, 'orders.csv');
    writeOrdersCsv(sheet, { orders: 12, prefix: 'RO', orderDate: new Date(Date.now() - 3_600_000) });
    const ledgerPath = join(dir, 'ledger.db');
    const args = ['import', sheet, '--ledger', ledgerPath, '--out', join(dir, 'r.csv'), '--json', '--concurrency', '1'];
    const reader = { ...s.env, FULFILLMENT_CLIENT_ID: 'sandbox-reader', FULFILLMENT_CLIENT_SECRET: 'sandbox-reader-secret' };
    const refused = await runCli(args, { env: reader });
    expect(refused.code).toBe(3);
    expect(JSON.parse(refused.stdout).summary).toEqual({ failed: 12 });
    const ledger = await openLedger(ledgerPath);
    try {
      // The chunk recorded before the first POST was marked sending; all but the refused one go back to pending.
      expect((await ledger.countByState())).toMatchObject({ sending: 0, failed: 1, pending: 11, accepted: 0 });
    } finally {
      await ledger.close();
    }
    const up = await runCli(args, { env: s.env });
    expect(up.code).toBe(0);
    expect(JSON.parse(up.stdout).summary).toEqual({ accepted: 12 });
    expect(await s.stats()).toMatchObject({ orders: 12, postsReceived: 13, duplicatesRejected: 0 });
  });

  it('winds down on Ctrl-C: finishes the orders in flight, writes the results, and the next run sends the rest once', async () => {
    const s = await sandbox(['--latency-ms', '150']);
    const dir = tempDir();
    const sheet = join(dir, 'orders.csv');
    writeOrdersCsv(sheet, { orders: 40, prefix: 'INT', orderDate: new Date(Date.now() - 3_600_000) });
    const ledgerPath = join(dir, 'ledger.db');
    const out = join(dir, 'r.xlsx');
    const args = ['import', sheet, '--ledger', ledgerPath, '--out', out, '--json', '--concurrency', '2'];
    const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env: cleanEnv(s.env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    // Interrupt once a few orders are stored: the run is then surely sending.
    while ((await s.stats()).orders < 2) await new Promise((r) => setTimeout(r, 25));
    child.kill('SIGINT');
    expect(await exited).toBe(1);
    expect(stderr).toMatch(/interrupted: .*\(press Ctrl-C again to quit at once\)\./);
    const summary = JSON.parse(stdout).summary as Record<string, number>;
    const accepted = summary.accepted ?? 0;
    expect(accepted).toBeGreaterThanOrEqual(2);
    expect(summary.failed).toBeGreaterThan(0);
    expect(accepted + summary.failed!).toBe(40);
    expect((await s.stats()).orders).toBe(accepted);
    const report = JSON.parse(stdout) as { orders: { status: string; issues: { message: string }[] }[] };
    for (const order of report.orders.filter((o) => o.status === 'failed')) expect(order.issues.map((i) => i.message).join(' ')).toMatch(/Not sent: .*interrupted/);
    expect(new Set(await statusesOf(out))).toEqual(new Set(['accepted', 'failed']));
    const ledger = await openLedger(ledgerPath);
    try {
      expect((await ledger.countByState())).toMatchObject({ sending: 0, unknown: 0, accepted, pending: 40 - accepted });
    } finally {
      await ledger.close();
    }
    const rest = await runCli(args, { env: s.env, timeoutMs: 60_000 });
    expect(rest.code).toBe(0);
    expect(JSON.parse(rest.stdout).summary).toEqual({ accepted: 40 - accepted, already_submitted: accepted });
    expect(await s.stats()).toMatchObject({ orders: 40, postsReceived: 40, duplicatesRejected: 0 });
  });

  it('refreshes tokens that expire mid-run without failing an order', async () => {
    const s = await sandbox(['--token-ttl', '1', '--latency-ms', '20']);
    const dir = tempDir();
    const sheet = join(dir, 'orders.csv');
    writeOrdersCsv(sheet, { orders: 150, prefix: 'TTL', orderDate: new Date(Date.now() - 3_600_000) });
    const res = await runCli(['import', sheet, '--ledger', join(dir, 'ledger.db'), '--out', join(dir, 'r.csv'), '--json', '--concurrency', '2'], { env: s.env, timeoutMs: 120_000 });
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout).summary).toEqual({ accepted: 150 });
  });

  it('says already_submitted on a re-run and sends nothing twice', async () => {
    const s = await sandbox();
    const dir = tempDir();
    const sheet = join(dir, 'orders.csv');
    writeOrdersCsv(sheet, { orders: 10, prefix: 'AGAIN', orderDate: new Date(Date.now() - 3_600_000) });
    const args = ['import', sheet, '--ledger', join(dir, 'ledger.db'), '--out', join(dir, 'r.csv'), '--json'];
    expect((await runCli(args, { env: s.env })).code).toBe(0);
    const again = await runCli(args, { env: s.env });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).summary).toEqual({ already_submitted: 10 });
    const stats = await s.stats();
    expect(stats.postsReceived).toBe(10);
  });

  it('refuses to start without a configured API or --sandbox, saying how to set both', async () => {
    const dir = tempDir();
    const sheet = join(dir, 'orders.csv');
    writeOrdersCsv(sheet, { orders: 1, prefix: 'NOCONF', orderDate: new Date(Date.now() - 3_600_000) });
    const res = await runCli(['import', sheet, '--ledger', join(dir, 'ledger.db')]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('FULFILLMENT_BASE_URL');
    expect(res.stderr).toContain('--sandbox');
  });
});
