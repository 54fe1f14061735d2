/** Import processes of the real CLI on one PostgreSQL ledger, and what the ledger says of their progress. */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { asSuperuser } from '../support/postgres/database.js';
import { CLI, ROOT, cleanEnv, type CliResult } from './run-cli.js';

export interface ImportProcess {
  child: ChildProcess;
  /** What it has written to stderr so far. */
  readonly stderr: string;
  done: Promise<CliResult>;
}

export function startImport(args: string[], env: Record<string, string>): ImportProcess {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const done = once(child, 'close').then(([code, signal]) => ({ code: code as number | null, signal: signal as NodeJS.Signals | null, stdout, stderr }));
  return {
    child,
    get stderr() {
      return stderr;
    },
    done,
  };
}

/** How many orders the process's current run holds or has settled: its own progress, read in the ledger. */
export function ordersOfProcess(database: string, pid: number): Promise<number> {
  return asSuperuser(async (c) => {
    const { rows } = await c.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM orders o JOIN runs r ON r.run_id = o.run_id WHERE r.pid = $1 AND r.finished_at IS NULL`,
      [pid],
    );
    return rows[0]!.n;
  }, database);
}
