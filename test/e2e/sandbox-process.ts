/** A sandbox in its own process (`order-batch sandbox`), as a separate CLI run would meet it. */
import { spawn, type ChildProcess } from 'node:child_process';
import { CLI, ROOT, cleanEnv } from './run-cli.js';

export const CLIENT_ID = 'e2e-client';
export const CLIENT_SECRET = 'e2e-secret';

export interface SandboxProcess {
  url: string;
  port: number;
  child: ChildProcess;
  env: Record<string, string>;
  stats(): Promise<{ orders: number; postsReceived: number; duplicatesRejected: number; maxPostsInFlight: number; byStatus: Record<string, number> }>;
  setFaults(faults: Record<string, unknown>): Promise<void>;
  /** The most POSTs in flight counts again from now (what is in flight now stays counted). */
  resetMaxInFlight(): Promise<void>;
  stop(): Promise<void>;
}

export async function startSandboxProcess(args: string[] = []): Promise<SandboxProcess> {
  // Port 0 unless the test names one: test files run in parallel and must never meet on 8787.
  const portArgs = args.includes('--port') ? [] : ['--port', '0'];
  const child = spawn(process.execPath, [CLI, 'sandbox', '--client-id', CLIENT_ID, '--client-secret', CLIENT_SECRET, ...portArgs, ...args], {
    cwd: ROOT,
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const url = await new Promise<string>((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => reject(new Error(`sandbox did not start: ${stderr}`)), 20_000);
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      buffered += d;
      const first = buffered.split('\n')[0]!;
      const m = /^listening (http:\/\/\S+)$/.exec(first);
      if (buffered.includes('\n') && m) {
        clearTimeout(timer);
        resolve(m[1]!);
      } else if (buffered.includes('\n')) {
        clearTimeout(timer);
        reject(new Error(`unexpected first line: ${first}`));
      }
    });
    child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}: ${stderr}`)));
  });
  const port = Number(new URL(url).port);
  const control = async (path: string, body?: unknown): Promise<any> => {
    const res = await fetch(`${url}${path}`, body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  return {
    url,
    port,
    child,
    env: { FULFILLMENT_BASE_URL: url, FULFILLMENT_CLIENT_ID: CLIENT_ID, FULFILLMENT_CLIENT_SECRET: CLIENT_SECRET },
    stats: () => control('/sandbox/stats'),
    setFaults: async (faults) => {
      await control('/sandbox/faults', faults);
    },
    resetMaxInFlight: async () => {
      await control('/sandbox/stats/reset-max', {});
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
