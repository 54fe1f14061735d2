/**
 * The CLI piped into a reader that stops early (`order-batch --help | head -1`, `npm start | head -1`,
 * `validate x.csv | head -1`), through a real pipe whose reading end is closed: the run ends as the
 * command would (its exit code, its result files), with no stack trace. Spawns the built CLI.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, CLI, hasStackTrace, SAMPLE_NOW, SAMPLES, tempDir } from './run-cli.js';

interface ClosedRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** What came through the stream left open. */
  open: string;
  /** What came through the closed stream before it was closed (its first line, with `afterFirstLine`). */
  closed: string;
}

/**
 * Runs the CLI with `which` (stdout or stderr) a pipe closed by its reader: at once, before the CLI
 * writes to it, or, like `head -1`, once its first line has come.
 */
function runWithClosedPipe(args: string[], which: 'stdout' | 'stderr', options: { cwd?: string; afterFirstLine?: boolean } = {}): Promise<ClosedRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: options.cwd, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    const closing = child[which];
    const open = which === 'stdout' ? child.stderr : child.stdout;
    let openText = '';
    let closedText = '';
    open.setEncoding('utf8').on('data', (d: string) => (openText += d));
    if (options.afterFirstLine) {
      closing.setEncoding('utf8').on('data', (d: string) => {
        closedText += d;
        if (closedText.includes('\n')) closing.destroy();
      });
    } else closing.destroy();
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, open: openText, closed: closedText });
    });
  });
}

describe('stdout closed by its reader', () => {
  it('--help: exit 0, nothing on stderr', async () => {
    const res = await runWithClosedPipe(['--help'], 'stdout');
    expect(res).toMatchObject({ code: 0, signal: null, open: '' });
  });

  it('validate of a sheet with mistakes: exit 1 as always, the result file written, no stack trace', async () => {
    const dir = tempDir('closed');
    const out = join(dir, 'result.xlsx');
    const res = await runWithClosedPipe(['validate', join(SAMPLES, 'orders-with-mistakes.csv'), '--out', out, '--now', SAMPLE_NOW], 'stdout');
    expect(res.code).toBe(1);
    expect(hasStackTrace(res.open)).toBe(false);
    expect(res.open).not.toMatch(/EPIPE|internal error/);
    expect(existsSync(out)).toBe(true);
  });

  it('validate --json of valid orders: exit 0; of a missing file: exit 2', async () => {
    const valid = await runWithClosedPipe(['validate', join(SAMPLES, 'orders-valid.csv'), '--out', join(tempDir('closed'), 'r.xlsx'), '--now', SAMPLE_NOW, '--json', '--log-level', 'silent'], 'stdout');
    expect(valid).toMatchObject({ code: 0, open: '' });
    const missing = await runWithClosedPipe(['validate', join(SAMPLES, 'no-such-sheet.csv'), '--json'], 'stdout');
    expect(missing).toMatchObject({ code: 2, open: '' });
  });

  it('demo (npm start) read up to its first line, like `| head -1`: runs to its end, exit 0', async () => {
    const dir = tempDir('closed-demo');
    const res = await runWithClosedPipe(['demo'], 'stdout', { cwd: dir, afterFirstLine: true });
    expect(res.closed).toMatch(/^Embedded sandbox at http:\/\/127\.0\.0\.1:\d+/);
    expect(res.code).toBe(0);
    expect(hasStackTrace(res.open)).toBe(false);
    expect(res.open).not.toMatch(/EPIPE/);
  });
});

describe('stderr closed by its reader', () => {
  it('the report still comes on stdout, with the exit code the command decided', async () => {
    const valid = await runWithClosedPipe(['validate', join(SAMPLES, 'orders-valid.csv'), '--out', join(tempDir('closed'), 'r.xlsx'), '--now', SAMPLE_NOW], 'stderr');
    expect(valid.code).toBe(0);
    expect(valid.open).toMatch(/^Orders: 8 valid$/m);
    const missing = await runWithClosedPipe(['validate', join(SAMPLES, 'no-such-sheet.csv')], 'stderr');
    expect(missing.code).toBe(2);
  });
});
