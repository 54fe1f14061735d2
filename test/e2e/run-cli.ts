/** Spawns the built CLI (dist/cli/main.js, built by `pretest`) the way a user or cron would run it. */
import { spawn } from 'node:child_process';
import { useTempFolders } from '../support/temp-dir.js';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '..', '..');
export const CLI = join(ROOT, 'dist', 'cli', 'main.js');
export const SAMPLES = join(ROOT, 'samples');
/** The samples' orders were placed 2026-11-16..19; every date rule is evaluated as of this instant. */
export const SAMPLE_NOW = '2026-11-20T12:00:00Z';

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The folders go once the test file that asked for them is done (this module is loaded once per file). */
const newFolder = useTempFolders('e2e');

export function tempDir(prefix = 'e2e'): string {
  return newFolder(prefix);
}

/** Environment without the caller's FULFILLMENT_* settings, so a developer's shell cannot leak into a test. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('FULFILLMENT_') && !k.startsWith('ORDER_BATCH_')) env[k] = v;
  return { ...env, ...extra };
}

/** `input`: written to the command's standard input, which then ends (else it reads nothing). */
export function runCli(args: string[], options: { cwd?: string; env?: Record<string, string>; timeoutMs?: number; input?: string } = {}): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: options.cwd ?? ROOT, env: cleanEnv(options.env), stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    child.stdin?.end(options.input);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout, stderr });
    });
  });
}

/** A stack trace has lines like "    at fn (file.js:1:2)". */
export function hasStackTrace(text: string): boolean {
  return /^\s+at .+:\d+:\d+\)?$/m.test(text);
}
