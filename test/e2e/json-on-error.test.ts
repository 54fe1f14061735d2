/**
 * `--json > logs/x.json` in a cron line: whatever ends the run, stdout holds exactly one JSON object.
 * A run that stops before its report (a bad flag, a missing file, no ledger, an unusable API) prints
 * { command, error: { kind, message }, exitCode } and keeps its one line on stderr; a run that printed
 * its report never prints a second object. Spawns the built CLI (CLI_DIST, default dist/).
 */
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { writeOrdersCsv } from './make-sheet.js';
import { cleanEnv, hasStackTrace, ROOT, tempDir, type CliResult } from './run-cli.js';

const CLI = resolve(ROOT, process.env.CLI_DIST ?? 'dist', 'cli', 'main.js');
const NOW = '2026-11-20T12:00:00Z';

function runCli(args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: options.cwd, env: cleanEnv(options.env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout, stderr });
    });
  });
}

interface ErrorReport {
  command: string;
  error: { kind: string; message: string };
  exitCode: number;
}

/** stdout as the one JSON object it must be (JSON.parse refuses two objects or none). */
function onlyObject(result: CliResult): ErrorReport {
  return JSON.parse(result.stdout) as ErrorReport;
}

let dir: string;
let server: TestServer;
const api = (extra: Record<string, string> = {}) => ({ FULFILLMENT_BASE_URL: `${server.url}/foo`, FULFILLMENT_CLIENT_ID: 'client-7', FULFILLMENT_CLIENT_SECRET: 'secret-value', ...extra });

beforeAll(async () => {
  dir = tempDir('json-error');
  // No route is scripted: every request, the token request included, is answered 404.
  server = await startTestServer();
});
afterAll(() => server.close());

describe('--json when the run stops before its report', () => {
  it('prints one usage object for an unknown option, and commander still explains on stderr', async () => {
    const result = await runCli(['reconcile', '--json', '--bogus'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(onlyObject(result)).toEqual({ command: 'reconcile', error: { kind: 'usage', message: expect.stringContaining("unknown option '--bogus'") }, exitCode: 2 });
    expect(result.stderr).toContain("unknown option '--bogus'");
  });

  it('prints one usage object for import without a file', async () => {
    const result = await runCli(['import', '--json'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(onlyObject(result)).toMatchObject({ command: 'import', error: { kind: 'usage', message: expect.stringContaining("missing required argument 'file'") }, exitCode: 2 });
  });

  it('prints one usage object for a bad --hours, which must be positive', async () => {
    const result = await runCli(['reconcile', '--json', '--hours', '0'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(onlyObject(result)).toEqual({ command: 'reconcile', error: { kind: 'usage', message: '--hours must be positive (1 hour or more), not 0.' }, exitCode: 2 });
    expect(result.stderr).toContain('order-batch: --hours must be positive (1 hour or more), not 0.');
  });

  it('prints one file object for a --orders file that does not exist', async () => {
    // --now: the run does not ask the API for its clock first, so the file is the first thing it meets.
    const result = await runCli(['reconcile', '--json', '--orders', 'nonexist.xlsx', '--now', NOW], { cwd: dir, env: api() });
    expect(result.code).toBe(2);
    expect(onlyObject(result)).toMatchObject({ command: 'reconcile', error: { kind: 'file', message: expect.stringContaining('nonexist.xlsx') }, exitCode: 2 });
  });

  it('knows --late-after-days, and refuses a ledger path with no ledger without creating one', async () => {
    const result = await runCli(['reconcile', '--json', '--late-after-days', '5', '--ledger', 'typo.db'], { cwd: dir, env: api() });
    expect(result.code).toBe(2);
    const report = onlyObject(result);
    expect(report).toMatchObject({ command: 'reconcile', error: { kind: 'usage' }, exitCode: 2 });
    expect(report.error.message).toContain('There is no ledger at typo.db');
    expect(result.stderr).not.toContain('unknown option');
    expect(existsSync(join(dir, 'typo.db'))).toBe(false);
  });

  it('validate --online against a token endpoint that answers 404: one api_unusable object, exit 3, no internal error', async () => {
    const sheet = join(dir, 'online.csv');
    writeOrdersCsv(sheet, { orders: 1, prefix: 'JSE', orderDate: new Date(Date.parse(NOW) - 3_600_000) });
    const result = await runCli(['validate', sheet, '--online', '--json', '--now', NOW, '--ledger', 'none.db'], { cwd: dir, env: api() });
    expect(result.code).toBe(3);
    const report = onlyObject(result);
    expect(report).toMatchObject({ command: 'validate', error: { kind: 'api_unusable' }, exitCode: 3 });
    expect(report.error.message).toContain(`${server.url}/foo/api/v0/oauth/token answered 404`);
    expect(result.stderr).not.toContain('internal error');
    expect(hasStackTrace(result.stderr)).toBe(false);
  });
});

describe('--json when the run printed its report', () => {
  it('prints that report alone, also when the run exits non-zero', async () => {
    const sheet = join(dir, 'invalid.csv');
    writeFileSync(sheet, 'customerOrderId,orderDate\nX-1,not a date\n');
    const result = await runCli(['validate', sheet, '--json', '--now', NOW], { cwd: dir });
    expect(result.code).toBe(2);
    const report = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(report.command).toBe('validate');
    expect(report).not.toHaveProperty('error');
    expect(report).toHaveProperty('summary');
  });
});
