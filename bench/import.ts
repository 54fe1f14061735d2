/**
 * Import throughput against the sandbox: orders/s at concurrency 16 with 20 ms injected latency
 * (ceiling 16 / 0.020 s = 800 orders/s) and with none, measured over the whole `import` command
 * (check, online checks, ledger, POSTs, result file), not just the POST loop.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { runImport } from '../src/import/run-import.js';
import { openLedger } from '../src/ledger/index.js';
import { silentLogger } from '../src/log.js';
import { writeLargeCsv } from './order-sheets.js';

export interface ImportBench {
  orders: number;
  latencyMs: number;
  concurrency: number;
  /** The whole command. */
  ms: number;
  ordersPerSecond: number;
  /** Sending alone: from the first POST to the last answer. */
  submitMs: number;
  submitOrdersPerSecond: number;
  /** concurrency / latency: what a perfect client could reach; undefined without latency. */
  ceilingOrdersPerSecond?: number;
  ratioToCeiling?: number;
  /**
   * What this machine allows right now: `concurrency` loops of bare setTimeout(latencyMs), no HTTP,
   * measured just before sending. On a busy 2-core machine timers fire late (22-23 ms for 20), and
   * no client can beat its timers: read ratioToCeiling beside this figure.
   */
  timerOrdersPerSecond?: number;
  /**
   * What HTTP allows on this machine right now: raw undici POSTs of a bench order, `concurrency` at
   * once, to a bare node:http server in its own process that answers after the same latency.
   * No client can beat it; read ratioToCeiling beside it.
   */
  httpFloorOrdersPerSecond?: number;
}

/** Operations per second of `lanes` loops each awaiting setTimeout(ms), over `durationMs`. */
export async function measureTimerCeiling(lanes: number, ms: number, durationMs = 2000): Promise<number> {
  let done = 0;
  const started = performance.now();
  const deadline = started + durationMs;
  const lane = async () => {
    while (performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, ms));
      done++;
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
  return (done * 1000) / (performance.now() - started);
}

export async function benchImport(options: { rows: number; latencyMs: number; concurrency?: number }): Promise<ImportBench> {
  const concurrency = options.concurrency ?? 16;
  const dir = mkdtempSync(join(tmpdir(), 'order-batch-bench-import-'));
  const now = new Date();
  const sheet = join(dir, 'orders.csv');
  await writeLargeCsv(sheet, options.rows, now);
  // The sandbox runs in its own process, as the real API would: the client's process measures only itself.
  const sandbox = await startSandboxProcess(options.latencyMs);
  try {
    const timerOrdersPerSecond = options.latencyMs > 0 ? await measureTimerCeiling(concurrency, options.latencyMs) : undefined;
    const httpFloorOrdersPerSecond = options.latencyMs > 0 ? await measureHttpFloor(concurrency, options.latencyMs) : undefined;
    // Sending alone is timed through the progress hook the command calls around its sends.
    const sending = { startedAt: 0, stoppedAt: 0 };
    const started = performance.now();
    // Opened and closed inside the timing, as the command does around its run.
    const ledger = await openLedger(join(dir, 'ledger.db'), { logger: silentLogger });
    const result = await runImport({
      files: [sheet],
      out: join(dir, 'result.csv'),
      context: { now, timezone: 'UTC', sourcesOfSale: ['OtherMarketplace'] },
      connection: { baseUrl: sandbox.url, clientId: sandbox.clientId, clientSecret: sandbox.clientSecret, auth: 'oauth' },
      useSandbox: false,
      concurrency,
      maxAttempts: 6,
      dryRun: false,
      ledgerPath: join(dir, 'ledger.db'),
      ledger,
      logger: silentLogger,
      orderProgress: {
        start: () => void (sending.startedAt = performance.now()),
        tick: () => undefined,
        stop: () => void (sending.stoppedAt = performance.now()),
      },
    }).finally(() => ledger.close());
    const ms = performance.now() - started;
    const orders = result.report.summary.accepted ?? 0;
    if (orders !== result.report.orders.length) throw new Error(`bench import: not every order was accepted: ${JSON.stringify(result.report.summary)}`);
    const ordersPerSecond = (orders * 1000) / ms;
    const submitMs = sending.stoppedAt - sending.startedAt;
    const submitOrdersPerSecond = (orders * 1000) / submitMs;
    const bench: ImportBench = { orders, latencyMs: options.latencyMs, concurrency, ms, ordersPerSecond, submitMs, submitOrdersPerSecond };
    if (options.latencyMs > 0) {
      bench.ceilingOrdersPerSecond = (concurrency * 1000) / options.latencyMs;
      bench.ratioToCeiling = submitOrdersPerSecond / bench.ceilingOrdersPerSecond;
      bench.timerOrdersPerSecond = timerOrdersPerSecond;
      bench.httpFloorOrdersPerSecond = httpFloorOrdersPerSecond;
    }
    return bench;
  } finally {
    sandbox.child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

const CLI = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const LATENCY_SERVER = fileURLToPath(new URL('./latency-server.js', import.meta.url));

/** Requests per second of raw undici POSTs against a bare server answering after `latencyMs` (see latency-server.ts). */
export async function measureHttpFloor(lanes: number, latencyMs: number, durationMs = 3000): Promise<number> {
  const child = spawn(process.execPath, [LATENCY_SERVER, String(latencyMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const url = await listeningUrl(child);
    const pool = new Pool(url, { connections: lanes });
    const body = JSON.stringify({ orderDetails: { customerOrderId: 'X'.repeat(12), lineItems: [{ productId: 'PRD-1001', quantity: 1 }] }, padding: 'x'.repeat(600) });
    const post = async () => {
      const res = await pool.request({ method: 'POST', path: '/api/v0/orders', headers: { 'content-type': 'application/json' }, body });
      await res.body.text();
    };
    await post();
    let done = 0;
    const started = performance.now();
    const deadline = started + durationMs;
    await Promise.all(
      Array.from({ length: lanes }, async () => {
        while (performance.now() < deadline) {
          await post();
          done++;
        }
      }),
    );
    const perSecond = (done * 1000) / (performance.now() - started);
    await pool.close();
    return perSecond;
  } finally {
    child.kill('SIGTERM');
  }
}

function listeningUrl(child: ChildProcess): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let text = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      text += d;
      const m = /^listening (\S+)/.exec(text);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  });
}

async function startSandboxProcess(latencyMs: number): Promise<{ url: string; clientId: string; clientSecret: string; child: ChildProcess }> {
  const clientId = 'bench-client';
  const clientSecret = 'bench-secret';
  const args = [CLI, 'sandbox', '--port', '0', '--client-id', clientId, '--client-secret', clientSecret];
  if (latencyMs > 0) args.push('--latency-ms', String(latencyMs));
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  return { url: await listeningUrl(child), clientId, clientSecret, child };
}
