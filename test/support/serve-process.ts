/** `order-batch serve` in its own process, as an operations team runs it (one or several instances). */
import { spawn, type ChildProcess } from 'node:child_process';
import { CLI, cleanEnv } from '../e2e/run-cli.js';

export interface ServeProcess {
  /** The address of its first line: `listening <url>`. */
  url: string;
  /** Everything it printed on stdout so far. */
  stdout(): string;
  child: ChildProcess;
  /** Everything it printed on stderr so far. */
  stderr(): string;
  /** Ctrl-C, and its exit. */
  stop(): Promise<number | null>;
  /** kill -9: no chance to clean anything up. */
  kill(): Promise<void>;
}

export async function startServeProcess(args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<ServeProcess> {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', ...args], { cwd: options.cwd, env: cleanEnv(options.env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let stdout = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr}`)), 30_000);
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      const match = /^listening (http:\/\/\S+)$/m.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code}: ${stderr}`));
    });
  });
  return {
    url,
    child,
    stderr: () => stderr,
    stdout: () => stdout,
    async stop() {
      if (child.exitCode === null) child.kill('SIGINT');
      return exited;
    },
    async kill() {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
