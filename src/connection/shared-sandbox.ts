/**
 * One embedded sandbox per state file, shared by every process that asks for it (`serve --sandbox`,
 * `import --sandbox`, `reconcile --sandbox`, `sandbox clock`): what one sends, the others see.
 *
 * The first process hosts it: it holds a lock beside the state file (an OS lock, released by the
 * kernel whatever the death) and writes where it listens. A process that finds the lock held
 * attaches: it serves a small local forwarder that passes each request on to the host. When the host
 * goes (it stops, or is killed), a forwarder whose request finds nobody there takes the lock and
 * hosts the sandbox itself, from the state file, so a long-lived `serve` never depends on a
 * short-lived `import` that happened to start first. A request the host never received (connection
 * refused) is passed to the new host; one cut off mid-way is cut off for the caller too, whose
 * ledger then looks the order up before sending it again.
 */
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { UsageError } from '../errors.js';
import { tryLockFile, type FileLock } from '../sqlite/file-lock.js';
import type { Logger } from '../log.js';
import { startSandbox, type SandboxHandle } from '../sandbox/index.js';
import { writeFileAtomic } from '../sandbox/persistence.js';

export interface SharedSandbox {
  /** Where to send requests: the hosted sandbox, or this process's forwarder to it. */
  url: string;
  /** Whether this process hosts it now. */
  isHost(): boolean;
  /** The sandbox's simulated clock. */
  now(): Promise<Date>;
  /** Moves the clock forward; resolves with the new time. */
  advanceClock(hours: number): Promise<Date>;
  close(): Promise<void>;
}

/** How long an attaching process waits for a host that holds the lock to say where it listens. */
const HOST_WAIT_MS = 15_000;
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'host', 'upgrade', 'proxy-connection', 'te', 'trailer']);

interface HostNote {
  url: string;
  pid: number;
}

const hostNotePath = (statePath: string) => `${statePath}.host.json`;

function readHostNote(statePath: string): HostNote | null {
  try {
    const note = JSON.parse(readFileSync(hostNotePath(statePath), 'utf8')) as HostNote;
    return typeof note.url === 'string' ? note : null;
  } catch {
    return null;
  }
}

interface Hosted {
  sandbox: SandboxHandle;
  lock: FileLock;
}

/** Hosts the sandbox of `statePath` when its lock is free; null when another process holds it. */
async function tryHost(statePath: string, startTime: Date | undefined, logger: Logger): Promise<Hosted | null> {
  const lock = tryLockFile(`${statePath}.lock`);
  if (!lock) return null;
  try {
    const sandbox = await startSandbox({ port: 0, statePath, ...(startTime ? { startTime } : {}) });
    writeFileAtomic(hostNotePath(statePath), JSON.stringify({ url: sandbox.url, pid: process.pid } satisfies HostNote));
    logger.info({ baseUrl: sandbox.url, state: statePath }, 'hosting the embedded sandbox');
    return { sandbox, lock };
  } catch (error) {
    lock.release();
    throw error;
  }
}

async function endHosting(hosted: Hosted, statePath: string): Promise<void> {
  // The note goes first: a forwarder that then finds nobody takes over from the flushed state.
  if (readHostNote(statePath)?.url === hosted.sandbox.url) rmSync(hostNotePath(statePath), { force: true });
  await hosted.sandbox.close();
  hosted.lock.release();
}

export async function openSharedSandbox(options: { statePath: string; startTime?: Date; logger: Logger }): Promise<SharedSandbox> {
  const { statePath, logger } = options;
  mkdirSync(dirname(statePath), { recursive: true });
  let hosted = await tryHost(statePath, options.startTime, logger);
  if (hosted) {
    const own = hosted;
    return {
      url: own.sandbox.url,
      isHost: () => true,
      now: async () => own.sandbox.now(),
      advanceClock: async (hours) => (own.sandbox.advanceClock(hours), own.sandbox.now()),
      close: () => endHosting(own, statePath),
    };
  }

  let target = await waitForHost(statePath, null);
  let failover: Promise<void> | undefined;
  /** The host at `dead` is gone: host the sandbox here, or follow whoever did. */
  const takeOver = (dead: string) =>
    (failover ??= (async () => {
      try {
        if (target !== dead) return;
        hosted = await tryHost(statePath, undefined, logger);
        target = hosted ? hosted.sandbox.url : await waitForHost(statePath, dead);
        logger.info({ from: dead, to: target }, 'the embedded sandbox moved to another process');
      } finally {
        failover = undefined;
      }
    })());

  const forwarder = createServer((incoming, outgoing) => void forward(incoming, outgoing));
  const forward = async (incoming: IncomingMessage, outgoing: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const headers = Object.fromEntries(Object.entries(incoming.headers).filter(([name]) => !HOP_BY_HOP.has(name)));
    for (let attempt = 1; ; attempt++) {
      const to = target;
      try {
        const answer = await request(`${to}${incoming.url ?? '/'}`, { method: incoming.method as 'GET', headers, ...(body.length > 0 ? { body } : {}) });
        const answerHeaders = Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !HOP_BY_HOP.has(name)));
        outgoing.writeHead(answer.statusCode, answerHeaders as Record<string, string | string[]>);
        for await (const chunk of answer.body) outgoing.write(chunk);
        outgoing.end();
        return;
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (code === 'ECONNREFUSED' && attempt < 3 && !outgoing.headersSent) {
          await takeOver(to).catch((failure: unknown) => logger.error({ err: failure }, 'could not take the embedded sandbox over'));
          continue;
        }
        // Cut off mid-way: the caller sees it cut off too (its ledger knows what to do with that).
        outgoing.destroy();
        return;
      }
    }
  };
  await new Promise<void>((listening) => forwarder.listen(0, '127.0.0.1', listening));
  const url = `http://127.0.0.1:${(forwarder.address() as AddressInfo).port}`;
  logger.info({ host: target, via: url }, 'using the embedded sandbox another process hosts');

  const clock = async (advanceHours?: number): Promise<Date> => {
    const answer = await request(`${url}/sandbox/clock`, advanceHours === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ advanceHours }) });
    const json = (await answer.body.json()) as { now?: string };
    if (answer.statusCode !== 200 || typeof json.now !== 'string') throw new UsageError(`The embedded sandbox did not tell its clock (HTTP ${answer.statusCode}).`);
    return new Date(json.now);
  };
  return {
    url,
    isHost: () => hosted !== null,
    now: () => clock(),
    advanceClock: (hours) => clock(hours),
    async close() {
      forwarder.closeAllConnections();
      await new Promise<void>((closed) => forwarder.close(() => closed()));
      if (hosted) await endHosting(hosted, statePath);
    },
  };
}

/** The url of the process that hosts the sandbox (not `dead`), once it has written it. */
async function waitForHost(statePath: string, dead: string | null): Promise<string> {
  const start = performance.now();
  for (;;) {
    const note = readHostNote(statePath);
    if (note && note.url !== dead) return note.url;
    if (performance.now() - start > HOST_WAIT_MS) {
      throw new UsageError(`Another process holds the embedded sandbox of ${statePath} but does not say where it listens; stop it, or remove ${statePath}.lock if no order-batch runs here.`);
    }
    await sleep(50);
  }
}
