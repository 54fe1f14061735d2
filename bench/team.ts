/**
 * A team on one PostgreSQL ledger (issue #18): two import processes at concurrency 8 each, against
 * the sandbox answering after 20 ms, measured against raw HTTP POSTs at the same total concurrency
 * to the same sandbox in the same run; and the ledger's own cost per order on PostgreSQL (the
 * commits an import makes: intents with their 'sending' marks in chunks, accepted marks in batches),
 * next to SQLite's. Printed, never asserted.
 *
 * The ledger is ORDER_BATCH_BENCH_LEDGER when set (a postgres:// URL to an empty database), else a
 * throwaway cluster started here from the distribution's PostgreSQL, as the tests do.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Pool } from 'undici';
import type { CreateOrderPayload } from '../src/contract/schemas.js';
import { fingerprintPayload } from '../src/ledger/hash.js';
import { openLedger } from '../src/ledger/open-ledger.js';
import { writeOrdersCsv } from '../test/e2e/make-sheet.js';
import { APP_PASSWORD, APP_ROLE, findPostgresBin, startCluster, SUPERUSER } from '../test/support/postgres/cluster.js';

export interface TeamBench {
  latencyMs: number;
  /** Orders each import process sends. */
  ordersEach: number;
  rawOrdersPerSecond: number;
  teamOrdersPerSecond: number;
  /** teamOrdersPerSecond / rawOrdersPerSecond (target >= 0.9). */
  ratio: number;
  /** The same two imports, each on an SQLite ledger of its own: what the import costs whatever the ledger. */
  sqliteOrdersPerSecond: number;
  ledgerMsPerOrder: { postgres: number; sqlite: number };
  /** The throwaway cluster's start (initdb to accepting connections); undefined with ORDER_BATCH_BENCH_LEDGER. */
  clusterStartMs?: number;
}

const CLI = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const CLIENT = { id: 'bench-client', secret: 'bench-secret' };
const CONCURRENCY_EACH = 8;
const PROCESSES = 2;

/** A valid order for the sandbox, placed an hour before `now`. */
function benchOrder(id: string, now: Date): CreateOrderPayload {
  return {
    customerDetails: {
      shippingAddress: { fullName: 'Ada Lovelace', addressLines: ['1 Main St'], city: 'Springfield', provinceOrState: 'IL', postalOrZipCode: '62701', countryCode: 'US', phone: '217-555-0134' },
    },
    orderDetails: {
      customerOrderId: id,
      orderDate: new Date(now.getTime() - 3_600_000).toISOString(),
      sourceOfSale: 'OtherMarketplace',
      lineItems: [{ productId: 'PRD-1001', customerLineItemId: '1', name: 'Mug', quantity: 2, unitPrice: 12.5 }],
      subTotal: 25,
      salesTax: 1.25,
      grandTotal: 26.25,
    },
  } as CreateOrderPayload;
}

async function ledgerDatabase(): Promise<{ url: (name: string) => Promise<string>; clusterStartMs?: number; stop(): Promise<void> }> {
  const given = process.env.ORDER_BATCH_BENCH_LEDGER;
  if (given) return { url: async () => given, stop: async () => undefined };
  const bindir = findPostgresBin();
  if (!bindir) throw new Error('no PostgreSQL here: install the postgresql package, or set ORDER_BATCH_BENCH_LEDGER to a postgres:// URL');
  const cluster = await startCluster(bindir);
  const admin = new pg.Client({ host: cluster.socketDir, user: SUPERUSER, database: 'postgres' });
  await admin.connect();
  await admin.query(`CREATE ROLE ${APP_ROLE} LOGIN PASSWORD '${APP_PASSWORD}'`);
  return {
    clusterStartMs: cluster.startMs,
    async url(name) {
      await admin.query(`CREATE DATABASE ${name} OWNER ${APP_ROLE}`);
      return `postgresql://${APP_ROLE}:${APP_PASSWORD}@/${name}?host=${cluster.socketDir}`;
    },
    async stop() {
      await admin.end();
      await cluster.stop();
    },
  };
}

async function startSandbox(latencyMs: number): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [CLI, 'sandbox', '--port', '0', '--client-id', CLIENT.id, '--client-secret', CLIENT.secret, '--latency-ms', String(latencyMs)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let text = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      text += d;
      const m = /^listening (\S+)/.exec(text);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
  });
  return { url, child };
}

/** Orders per second of `lanes` loops of raw undici POSTs (a token fetched once), `total` orders in all. */
async function measureRawHttp(url: string, lanes: number, total: number, prefix: string): Promise<number> {
  const pool = new Pool(url, { connections: lanes });
  const tokenReply = await pool.request({ method: 'POST', path: '/api/v0/auth/getToken', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ clientId: CLIENT.id, secret: CLIENT.secret }) });
  const { token } = (await tokenReply.body.json()) as { token: string };
  const now = new Date();
  const bodies = Array.from({ length: total }, (_, i) => JSON.stringify(benchOrder(`${prefix}-${i}`, now)));
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (next < total) {
        const body = bodies[next++]!;
        const res = await pool.request({ method: 'POST', path: '/api/v0/orders', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body });
        await res.body.text();
        if (res.statusCode !== 201) throw new Error(`raw POST answered ${res.statusCode}`);
      }
    }),
  );
  const perSecond = (total * 1000) / (performance.now() - started);
  await pool.close();
  return perSecond;
}

/** The sending window of one import process, read from its own log: "sending N orders" to the run's last line about them. */
async function runImport(sheet: string, out: string, ledger: string, sandboxUrl: string): Promise<{ startMs: number; endMs: number; accepted: number }> {
  const env = { ...process.env, FULFILLMENT_BASE_URL: sandboxUrl, FULFILLMENT_CLIENT_ID: CLIENT.id, FULFILLMENT_CLIENT_SECRET: CLIENT.secret, ORDER_BATCH_LEDGER: ledger };
  const child = spawn(process.execPath, ['--max-semi-space-size=64', CLI, 'import', sheet, '--out', out, '--json', '--concurrency', String(CONCURRENCY_EACH)], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const [code] = await once(child, 'close');
  if (code !== 0) throw new Error(`bench import exited with ${code}: ${stderr}`);
  const lines = stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { time: number; msg: string });
  const start = lines.find((l) => /^sending \d+ orders/.test(l.msg));
  const end = lines.findLast((l) => 'summary' in l && 'posts' in l);
  if (!start || !end) throw new Error(`bench import: no sending window in its log:\n${stderr}`);
  return { startMs: start.time, endMs: end.time, accepted: (JSON.parse(stdout) as { summary: { accepted?: number } }).summary.accepted ?? 0 };
}

/** Orders per second over the processes' sending windows together, first start to last end. */
function ordersPerSecondOf(windows: readonly { startMs: number; endMs: number; accepted: number }[]): number {
  const accepted = windows.reduce((n, w) => n + w.accepted, 0);
  return (accepted * 1000) / (Math.max(...windows.map((w) => w.endMs)) - Math.min(...windows.map((w) => w.startMs)));
}

/** ms per order of an import's ledger commits, without HTTP: chunks of 64 intents marked sending, then their accepted marks. */
async function measureLedgerCost(location: string, orders: number): Promise<number> {
  const ledger = await openLedger(location);
  const now = new Date();
  const intents = Array.from({ length: orders }, (_, i) => {
    const payload = benchOrder(`LEDGER-${i}`, now);
    return { payload, sourceRows: [i + 2], fingerprint: fingerprintPayload(payload) };
  });
  const run = await ledger.startRun({ command: 'bench', files: [] });
  const started = performance.now();
  for (let from = 0; from < orders; from += 64) {
    const chunk = intents.slice(from, from + 64);
    await run.prepareSends(chunk);
    await run.markAcceptedMany(chunk.map((intent) => ({ customerOrderId: intent.payload.orderDetails.customerOrderId, info: { httpStatus: 201 } })));
  }
  const ms = performance.now() - started;
  await run.finish({ summary: {} });
  await ledger.close();
  return ms / orders;
}

export async function benchTeam(options: { ordersEach?: number; latencyMs?: number } = {}): Promise<TeamBench> {
  const ordersEach = options.ordersEach ?? 4000;
  const latencyMs = options.latencyMs ?? 20;
  const dir = mkdtempSync(join(tmpdir(), 'order-batch-bench-team-'));
  const database = await ledgerDatabase();
  const sandbox = await startSandbox(latencyMs);
  try {
    const teamLedger = await database.url('bench_team');
    // The ledger made once before the runs, as a team's is: its creation is not the runs' cost.
    await (await openLedger(teamLedger)).close();
    const sheetsOf = (name: string) =>
      Array.from({ length: PROCESSES }, (_, k) => {
        const sheet = join(dir, `${name}-${k}.csv`);
        writeOrdersCsv(sheet, { orders: ordersEach, prefix: `${name.toUpperCase()}${k}`, orderDate: new Date(Date.now() - 3_600_000) });
        return sheet;
      });
    const sheets = sheetsOf('team');
    // Raw HTTP first and last: the team's figure is read against the better of the two (a busy machine only slows a run).
    const rawBefore = await measureRawHttp(sandbox.url, PROCESSES * CONCURRENCY_EACH, PROCESSES * ordersEach, 'RAWA');
    const windows = await Promise.all(sheets.map((sheet, k) => runImport(sheet, join(dir, `result-${k}.csv`), teamLedger, sandbox.url)));
    const apart = await Promise.all(sheetsOf('apart').map((sheet, k) => runImport(sheet, join(dir, `apart-${k}.result.csv`), join(dir, `apart-${k}.db`), sandbox.url)));
    const rawAfter = await measureRawHttp(sandbox.url, PROCESSES * CONCURRENCY_EACH, PROCESSES * ordersEach, 'RAWB');
    const accepted = windows.reduce((n, w) => n + w.accepted, 0);
    if (accepted !== PROCESSES * ordersEach) throw new Error(`bench team: ${accepted} of ${PROCESSES * ordersEach} orders accepted`);
    const teamOrdersPerSecond = ordersPerSecondOf(windows);
    const rawOrdersPerSecond = Math.max(rawBefore, rawAfter);
    const postgres = await measureLedgerCost(await database.url('bench_ledger'), 5000);
    const sqlite = await measureLedgerCost(join(dir, 'ledger.db'), 5000);
    return {
      latencyMs,
      ordersEach,
      rawOrdersPerSecond,
      teamOrdersPerSecond,
      ratio: teamOrdersPerSecond / rawOrdersPerSecond,
      sqliteOrdersPerSecond: ordersPerSecondOf(apart),
      ledgerMsPerOrder: { postgres, sqlite },
      ...(database.clusterStartMs === undefined ? {} : { clusterStartMs: database.clusterStartMs }),
    };
  } finally {
    sandbox.child.kill('SIGTERM');
    await database.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
