/**
 * Reconcile throughput, by `npm run bench` (or `node dist-bench/bench/reconcile.js [packages]`): a nightly
 * reconcile (ledger mode, first run, whole window) of about 100,000 packages (the `reconcile` part;
 * 1,000,000 for `scale-reconcile`) from the sandbox with 20 ms injected latency, at concurrency 8.
 * Printed: packages per second, the ratio to paging the same window alone and to the ceiling (8 pages
 * of 100 packages per 20 ms = 40,000 packages/s, i.e. tracking pages alone with perfect overlap), and
 * the peak memory of the reconciling process (bench/index.ts runs this file as a child for that).
 *
 * The sandbox runs in a child process, so the memory figure is reconcile's own and the two do not
 * share a core. Orders are seeded before timing, without latency (reconcile-seed.ts).
 * The timed run is the reconciliation: selecting from the ledger, paging tracking updates, reading
 * the orders and matching; writing the workbook is timed on its own (the phases come from the run's
 * own log line). Then the same window is paged alone through the same API client, with a new one:
 * the share of the ceiling that paging reaches here without any of reconcile's other work; and once
 * more from a bare node:http server (reconcile-servers.ts), for what is left without the sandbox's
 * work per request. `--profile=<dir>` writes CPU profiles of the timed part only, of both processes
 * (reconcile.cpuprofile, sandbox.cpuprofile); `--window=<orders>,<packages>` sets the run's memory
 * window (0,0: everything on disk); `--alone` leaves out paging alone; `--json` prints the figures.
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as afterPendingIo } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { pino } from 'pino';
import { createApiClient } from '../src/api/client.js';
import { reconcile } from '../src/reconcile/reconcile-run.js';
import type { CreateOrderPayload } from '../src/contract/schemas.js';
import { openLedger } from '../src/ledger/index.js';
import type { Ledger } from '../src/ledger/types.js';
import type { Logger } from '../src/log.js';
import type { MemoryWindow } from '../src/reconcile/spill.js';
import { measureTimerCeiling } from './import.js';
import { peakRssMb } from './peak-rss.js';
import { forkServer, startProfiler, type ProfileMessage, type SandboxInfo } from './reconcile-servers.js';
import { control, PAGE_SIZE, SEED_CONCURRENCY, seedOrders, trackingPageText } from './reconcile-seed.js';

export interface ReconcileBench {
  /** Selecting, fetching and matching: the reconciliation itself. */
  ms: number;
  packagesPerSecond: number;
  ratioToCeiling: number;
  peakRssMb: number;
  /** Writing the workbook afterwards (not in `ms`). */
  writeMs: number;
  packages: number;
  orders: number;
  requests: string;
  /** 8 loops of bare setTimeout(20) x 100 packages, measured just before: what timers allow on this machine now. */
  timerPackagesPerSecond: number;
  /**
   * The same tracking window paged right after through the same API client, CONCURRENCY pages in
   * flight (every page parsed, checked and kept), with no selection, order reads or matching: what
   * paging alone reaches here now.
   */
  pagesAlonePackagesPerSecond: number;
  /**
   * As pagesAlone, from a bare node:http server that sends the sandbox's first page for every page
   * after 20 ms: what HTTP on this machine allows a client that keeps every record.
   */
  barePagesPackagesPerSecond: number;
}

/** What a bench run measures beyond the reconciliation itself. */
export interface ReconcileBenchOptions {
  /** CPU profiles of the timed part into this folder (--profile=<dir>). */
  profileDir?: string;
  /** The run's memory window (default the product's): `{ orders: 0, packages: 0 }` keeps everything on disk. */
  memoryWindow?: MemoryWindow;
  /** Page the same window alone afterwards, and from a bare server (default true). */
  isComparing?: boolean;
}

const LATENCY_MS = 20;
const CONCURRENCY = 8;
/** Packages per second if every request were a full tracking page and 8 were always in flight. */
export const CEILING_PACKAGES_PER_SECOND = (CONCURRENCY * PAGE_SIZE * 1000) / LATENCY_MS;
const PROFILE_FLAG = '--profile=';
/** --json: the figures as one JSON line, for runReconcileChild. */
const JSON_FLAG = '--json';
/** --alone: the reconciliation only, without paging the window again alone (a million packages). */
const ALONE_FLAG = '--alone';
/** --window=<orders>,<packages>: the run's memory window (0,0: everything on disk). */
const WINDOW_FLAG = '--window=';

async function askChild(child: ChildProcess, message: ProfileMessage): Promise<void> {
  child.send(message);
  await once(child, 'message');
}

async function startChild(): Promise<{ child: ChildProcess; info: SandboxInfo }> {
  const child = forkServer('sandbox');
  const [info] = (await once(child, 'message')) as [SandboxInfo];
  return { child, info };
}

/** How long each phase of a run took, in ms, as its 'reconciliation written' log line says. */
interface RunPhases {
  selectMs: number;
  fetchMs: number;
  matchMs: number;
  writeMs: number;
}

/**
 * A logger for the timed run that keeps nothing but the phases of its 'reconciliation written'
 * line (the JSON log a nightly job keeps): the run is measured from outside, through its own log.
 */
function runLog(): { logger: Logger; phases(): RunPhases } {
  let phases: RunPhases | undefined;
  const logger = pino(
    { level: 'info', base: null },
    {
      write(line: string) {
        const record = JSON.parse(line) as { msg?: string; timings?: RunPhases };
        if (record.msg === 'reconciliation written') phases = record.timings;
      },
    },
  );
  return {
    logger,
    phases() {
      if (!phases) throw new Error("bench: the reconcile run logged no 'reconciliation written' line with its phases");
      return phases;
    },
  };
}

/** The timed run (see the header), with a new client; only its figures outlive it. */
async function timedReconcile(run: {
  info: SandboxInfo;
  child: ChildProcess;
  ledger: Ledger;
  nowMs: number;
  out: string;
  profileDir: string | undefined;
  memoryWindow: MemoryWindow | undefined;
}): Promise<Omit<ReconcileBench, 'timerPackagesPerSecond' | 'pagesAlonePackagesPerSecond' | 'barePagesPackagesPerSecond'>> {
  const { info, child, profileDir } = run;
  const client = createApiClient({ baseUrl: info.url, clientId: info.clientId, clientSecret: info.clientSecret, connections: CONCURRENCY, now: () => run.nowMs });
  globalThis.gc?.();
  let stopProfiler: ((file: string) => Promise<void>) | undefined;
  if (profileDir) {
    await askChild(child, { profile: 'start' });
    stopProfiler = await startProfiler();
  }
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const log = runLog();
  const result = await reconcile({
    ledger: run.ledger,
    client,
    now: new Date(run.nowMs),
    lateAfterDays: 3,
    out: run.out,
    concurrency: CONCURRENCY,
    logger: log.logger,
    ...(run.memoryWindow ? { memoryWindow: run.memoryWindow } : {}),
  });
  const totalMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  if (profileDir && stopProfiler) {
    await stopProfiler(join(profileDir, 'reconcile.cpuprofile'));
    await askChild(child, { profile: 'stop', file: join(profileDir, 'sandbox.cpuprofile') });
  }
  await client.close();
  let fetched = 0;
  for (const o of result.orders) fetched += o.packages.length;
  result.release();
  const phases = log.phases();
  const ms = totalMs - phases.writeMs;
  const packagesPerSecond = fetched / (ms / 1000);
  return {
    ms,
    packagesPerSecond,
    ratioToCeiling: packagesPerSecond / CEILING_PACKAGES_PER_SECOND,
    // Taken before the pages are read alone: the peak is reconcile's.
    peakRssMb: peakRssMb(),
    writeMs: phases.writeMs,
    packages: fetched,
    orders: result.orders.length,
    requests: `${Object.entries(phases).map(([k, v]) => `${k} ${Math.round(v)}`).join(', ')}; CPU of the whole run ${Math.round((cpu.user + cpu.system) / 1000)} ms`,
  };
}

/**
 * Every tracking page of a window through the API client, timed with its token request: page 1,
 * then CONCURRENCY lanes that each ask for the next page as soon as theirs is in and parse it after
 * the pending I/O, as reconcile pages; every record kept, as reconcile keeps them.
 */
async function pagesAlone(api: SandboxInfo, window: { startDate: string; endDate: string }): Promise<{ packages: number; ms: number }> {
  globalThis.gc?.();
  const client = createApiClient({ baseUrl: api.url, clientId: api.clientId, clientSecret: api.clientSecret, connections: CONCURRENCY, now: () => api.nowMs });
  const query = (pageNumber: number) => ({ searchBy: 'updated' as const, ...window, pageNumber, itemsPerPage: PAGE_SIZE });
  const kept: unknown[] = [];
  const started = performance.now();
  try {
    const first = (await client.fetchTrackingUpdates(query(1))).parse();
    for (const record of first.data) kept.push(record);
    const totalPages = first.pagination?.totalPages ?? 1;
    const parsing: Promise<void>[] = [];
    let next = 2;
    const lane = async (): Promise<void> => {
      while (next <= totalPages) {
        const unparsed = await client.fetchTrackingUpdates(query(next++));
        parsing.push(
          afterPendingIo().then(() => {
            for (const record of unparsed.parse().data) kept.push(record);
          }),
        );
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, lane));
    await Promise.all(parsing);
    return { packages: kept.length, ms: performance.now() - started };
  } finally {
    await client.close();
  }
}

/** pagesAlone from a bare node:http server (serveBarePage) that sends `page` for every page. */
async function barePagesAlone(page: string, window: { startDate: string; endDate: string }): Promise<{ packages: number; ms: number }> {
  const child = forkServer('bare');
  try {
    child.send({ page, latencyMs: LATENCY_MS });
    const [info] = (await once(child, 'message')) as [SandboxInfo];
    return await pagesAlone(info, window);
  } finally {
    child.disconnect();
  }
}

/** The V8 flags the order-batch bin runs with (src/cli/main.ts's shebang): the child measures what users get. */
const CLI_NODE_FLAGS = ['--max-semi-space-size=16'];

/**
 * benchReconcile in a process of its own (this file, --json), as the bin runs: its peak memory is the
 * run's alone, whatever the bench measured before it.
 */
export function runReconcileChild(packages: number, options: { isComparing?: boolean } = {}): ReconcileBench {
  const args = [...CLI_NODE_FLAGS, '--expose-gc', fileURLToPath(import.meta.url), String(packages), JSON_FLAG, ...(options.isComparing === false ? [ALONE_FLAG] : [])];
  const output = execFileSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024, stdio: ['ignore', 'pipe', 'inherit'] });
  return JSON.parse(output.trim().split('\n').pop()!) as ReconcileBench;
}

export async function benchReconcile(packages: number, options: ReconcileBenchOptions = {}): Promise<ReconcileBench> {
  const dir = mkdtempSync(join(tmpdir(), 'order-batch-bench-reconcile-'));
  const { child, info } = await startChild();
  const pool = new Pool(info.url, { connections: SEED_CONCURRENCY });
  const ledger = await openLedger(join(dir, 'ledger.db'));
  try {
    const { headers, firstOrderMs, nowMs: simulatedNowMs } = await seedOrders({ pool, info, ledger, packages });
    await control(pool, '/sandbox/faults', { latencyMs: LATENCY_MS });
    const timerPackagesPerSecond = (await measureTimerCeiling(CONCURRENCY, LATENCY_MS)) * PAGE_SIZE;
    const figures = await timedReconcile({ info, child, ledger, nowMs: simulatedNowMs, out: join(dir, 'reconcile.xlsx'), profileDir: options.profileDir, memoryWindow: options.memoryWindow });
    if (options.isComparing === false) return { ...figures, timerPackagesPerSecond, pagesAlonePackagesPerSecond: Number.NaN, barePagesPackagesPerSecond: Number.NaN };
    // reconcile's result is gone by now: paging alone does not collect around its 600 MB.
    const window = { startDate: new Date(firstOrderMs - 3_600_000).toISOString(), endDate: new Date(simulatedNowMs).toISOString() };
    const alone = await pagesAlone({ ...info, nowMs: simulatedNowMs }, window);
    if (alone.packages !== figures.packages) throw new Error(`bench: paging alone read ${alone.packages} packages, reconcile ${figures.packages}`);
    const bare = await barePagesAlone(await trackingPageText(pool, headers, 1), window);
    return {
      ...figures,
      timerPackagesPerSecond,
      pagesAlonePackagesPerSecond: alone.packages / (alone.ms / 1000),
      barePagesPackagesPerSecond: bare.packages / (bare.ms / 1000),
    };
  } finally {
    await ledger.close();
    await pool.close();
    child.disconnect();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const profileDir = args.find((a) => a.startsWith(PROFILE_FLAG))?.slice(PROFILE_FLAG.length);
  const packages = Number(args.find((a) => !a.startsWith('--')) ?? 100_000);
  const window = args.find((a) => a.startsWith(WINDOW_FLAG))?.slice(WINDOW_FLAG.length).split(',').map(Number);
  const r = await benchReconcile(packages, {
    ...(profileDir ? { profileDir } : {}),
    ...(window ? { memoryWindow: { orders: window[0]!, packages: window[1]! } } : {}),
    isComparing: !args.includes(ALONE_FLAG),
  });
  // For bench/index.ts, which runs this file as a child so that the peak memory is the run's own.
  if (args.includes(JSON_FLAG)) {
    console.log(JSON.stringify(r));
    process.exit(0);
  }
  console.log(`reconcile, ${LATENCY_MS} ms latency, concurrency ${CONCURRENCY} (ceiling ${CEILING_PACKAGES_PER_SECOND.toLocaleString('en-US')} packages/s)`);
  console.log(
    `  ${r.packages.toLocaleString('en-US')} packages of ${r.orders.toLocaleString('en-US')} orders: ${Math.round(r.packagesPerSecond).toLocaleString('en-US')} packages/s ` +
      `in ${(r.ms / 1000).toFixed(2)} s, ${(r.ratioToCeiling * 100).toFixed(0)}% of the ceiling; then the workbook in ${(r.writeMs / 1000).toFixed(2)} s; peak RSS ${Math.round(r.peakRssMb)} MB`,
  );
  console.log(`  phases (ms): ${r.requests}`);
  console.log(`  bare setTimeout(${LATENCY_MS}) x${CONCURRENCY} x ${PAGE_SIZE} packages on this machine just before: ${Math.round(r.timerPackagesPerSecond).toLocaleString('en-US')} packages/s`);
  console.log(
    `  the same pages alone through the same client just after (no selection, order reads or matching): ${Math.round(r.pagesAlonePackagesPerSecond).toLocaleString('en-US')} packages/s, ` +
      `${((r.pagesAlonePackagesPerSecond / CEILING_PACKAGES_PER_SECOND) * 100).toFixed(0)}% of the ceiling`,
  );
  console.log(
    `  the same client from a bare node:http server sending the sandbox's first page after ${LATENCY_MS} ms: ${Math.round(r.barePagesPackagesPerSecond).toLocaleString('en-US')} packages/s, ` +
      `${((r.barePagesPackagesPerSecond / CEILING_PACKAGES_PER_SECOND) * 100).toFixed(0)}% of the ceiling`,
  );
}
