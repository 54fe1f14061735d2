/**
 * The servers the reconcile bench pages, each in a process of its own so the bench's memory and CPU
 * figures are reconcile's: the sandbox (seeded, clock frozen, every shipment split), and a bare
 * node:http server that sends one page for every page asked for.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { fileURLToPath } from 'node:url';

const KINDS = { sandbox: '--reconcile-bench-sandbox', bare: '--reconcile-bench-bare-server' } as const;

export type ProfileMessage = { profile: 'start' } | { profile: 'stop'; file: string };

/** Where a server listens and how to log in; nowMs is its clock. */
export interface SandboxInfo {
  url: string;
  clientId: string;
  clientSecret: string;
  nowMs: number;
}

/** One of the servers in a child process: its first message is its SandboxInfo (the bare one first waits for its page). */
export function forkServer(kind: keyof typeof KINDS): ChildProcess {
  return fork(fileURLToPath(import.meta.url), [KINDS[kind]], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

/** Starts the V8 profiler in this process; the returned function stops it and writes the profile. */
export async function startProfiler(): Promise<(file: string) => Promise<void>> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 500 });
  await session.post('Profiler.start');
  return async (file) => {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  };
}

/** The sandbox the bench reconciles against; it profiles itself when the bench asks (--profile). */
async function serveSandbox(): Promise<void> {
  const { startSandbox } = await import('../src/sandbox/index.js');
  // Every shipment split: dense packages per order. The clock moves only when told.
  const sandbox = await startSandbox({ seed: 11, freezeClock: true, rates: { split: 1 } });
  process.send!({ url: sandbox.url, clientId: sandbox.clientId, clientSecret: sandbox.clientSecret, nowMs: sandbox.now().getTime() } satisfies SandboxInfo);
  let stopProfiler: ((file: string) => Promise<void>) | undefined;
  process.on('message', (message: ProfileMessage) => {
    const done = () => process.send!({ profiled: message.profile });
    if (message.profile === 'start') void startProfiler().then((stop) => ((stopProfiler = stop), done()));
    else void stopProfiler?.(message.file).then(done);
  });
  // Leave cleanly when the bench is done (so --cpu-prof can write the child's profile too).
  process.once('disconnect', () => {
    void sandbox.close().then(() => process.exit(0));
  });
}

/**
 * A bare node:http server for barePagesAlone: every GET gets the page it was sent (its pagination
 * unchanged, so as many pages are asked for as the sandbox had) after the bench's latency, every POST
 * a token at once. No auth, no routing, no work per request: what HTTP and the client cost alone.
 */
async function serveBarePage(): Promise<void> {
  const { createServer } = await import('node:http');
  const [{ page, latencyMs }] = (await once(process, 'message')) as [{ page: string; latencyMs: number }];
  const body = Buffer.from(page);
  const token = Buffer.from(JSON.stringify({ accessToken: 'bench', expiresIn: 3600 }));
  const server = createServer((request, response) => {
    request.resume();
    const answer = request.method === 'POST' ? token : body;
    const send = () => {
      response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': answer.length });
      response.end(answer);
    };
    if (request.method === 'POST') send();
    else setTimeout(send, latencyMs);
  });
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as { port: number };
    process.send!({ url: `http://127.0.0.1:${port}`, clientId: 'bench', clientSecret: 'bench', nowMs: Date.now() } satisfies SandboxInfo);
  });
  process.once('disconnect', () => process.exit(0));
}

if (process.argv.includes(KINDS.sandbox)) await serveSandbox();
else if (process.argv.includes(KINDS.bare)) await serveBarePage();
