/**
 * Import throughput against the sandbox: orders/s at concurrency 16 with 20 ms injected latency
 * (ceiling 16 / 0.020 s = 800 orders/s) and with none, measured over the whole `import` command
 * (check, online checks, ledger, POSTs, result file), not just the POST loop.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importFiles } from '../commands/import.js';
import { silentLogger } from '../log.js';
import { startSandbox } from '../sandbox/index.js';
import { writeLargeCsv } from './read-baseline.js';

export interface ImportBench {
  orders: number;
  latencyMs: number;
  concurrency: number;
  ms: number;
  ordersPerSecond: number;
  /** concurrency / latency: what a perfect client could reach; undefined without latency. */
  ceilingOrdersPerSecond?: number;
  ratioToCeiling?: number;
}

export async function benchImport(options: { rows: number; latencyMs: number; concurrency?: number }): Promise<ImportBench> {
  const concurrency = options.concurrency ?? 16;
  const dir = mkdtempSync(join(tmpdir(), 'order-batch-bench-import-'));
  const now = new Date();
  const sheet = join(dir, 'orders.csv');
  await writeLargeCsv(sheet, options.rows, now);
  const sandbox = await startSandbox({ port: 0, latencyMs: options.latencyMs, startTime: now });
  try {
    const started = performance.now();
    const result = await importFiles({
      files: [sheet],
      out: join(dir, 'result.csv'),
      context: { now, timezone: 'UTC', sourcesOfSale: ['OtherMarketplace'] },
      connection: { baseUrl: sandbox.url, clientId: sandbox.clientId, clientSecret: sandbox.clientSecret, auth: 'oauth' },
      useSandbox: false,
      concurrency,
      maxAttempts: 6,
      dryRun: false,
      ledgerPath: join(dir, 'ledger.db'),
      logger: silentLogger,
    });
    const ms = performance.now() - started;
    const orders = result.report.summary.accepted ?? 0;
    if (orders !== result.report.orders.length) throw new Error(`bench import: not every order was accepted: ${JSON.stringify(result.report.summary)}`);
    const ordersPerSecond = (orders * 1000) / ms;
    const bench: ImportBench = { orders, latencyMs: options.latencyMs, concurrency, ms, ordersPerSecond };
    if (options.latencyMs > 0) {
      bench.ceilingOrdersPerSecond = (concurrency * 1000) / options.latencyMs;
      bench.ratioToCeiling = ordersPerSecond / bench.ceilingOrdersPerSecond;
    }
    return bench;
  } finally {
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
