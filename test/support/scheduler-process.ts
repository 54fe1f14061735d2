/** `order-batch scheduler` in its own process, as a host that only runs batches runs it. */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { CLI, cleanEnv } from '../e2e/run-cli.js';

export interface SchedulerProcess {
  child: ChildProcess;
  /** Everything it printed on stdout so far. */
  stdout(): string;
  /** Everything it printed on stderr so far. */
  stderr(): string;
  /** Resolves once it is up (its first line on stdout); rejects if it exits first. */
  started: Promise<void>;
  /** Its exit. */
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** kill -9, and its exit: for a test's cleanup. */
  kill(): Promise<void>;
}

export function startSchedulerProcess(args: string[], options: { cwd: string; env?: Record<string, string> }): SchedulerProcess {
  const child = spawn(process.execPath, [CLI, 'scheduler', ...args], { cwd: options.cwd, env: cleanEnv(options.env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const done = once(child, 'close').then(([code, signal]) => ({ code: code as number | null, signal: signal as NodeJS.Signals | null }));
  const started = new Promise<void>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      if (/^scheduler: /m.test(stdout)) resolve();
    });
    void done.then(({ code }) => reject(new Error(`scheduler exited with ${code} before it started: ${stderr}`)));
  });
  started.catch(() => undefined);
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    started,
    done,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await done;
    },
  };
}
