/**
 * `npm run bench`: every performance figure the issues ask for, printed, never asserted. It builds
 * bench/ with the product sources it measures into dist-bench/ (bench/tsconfig.json), apart from the
 * package's dist/. Data sets are generated into bench-data/ (kept between runs; delete it to
 * regenerate). Heavy measurements run in child processes so each peak memory is its own.
 *
 *   npm run bench                 all of it (several minutes)
 *   npm run bench -- validate     only the validate figures (also: scale, sandbox, import, reconcile, confirmations, writers, team, api, remote)
 *   npm run bench -- scale-huge   a 10,000,000-row CSV (about 2.5 GB, generated and removed; run it sparingly)
 *   npm run bench -- scale-reconcile   reconcile 1,000,000 packages (run it sparingly)
 *   npm run bench -- metrics      what scraping /metrics every second costs the 50-upload web bench
 *   npm run bench -- wide-xlsx    a workbook of 16,384 columns x 2,000 rows beside exceljs alone (minutes; kept in bench-data/)
 */
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchApi } from './api.js';
import { benchConfirmations } from './confirmations.js';
import { benchImport } from './import.js';
import { benchLedger } from './ledger.js';
import { benchMetrics } from './metrics.js';
import { writeLargeCsv, writeLargeXlsx } from './order-sheets.js';
import { measureExcelJsBaseline } from './read-baseline.js';
import { CEILING_PACKAGES_PER_SECOND, runReconcileChild } from './reconcile.js';
import { benchRemote } from './remote.js';
import { benchSandbox } from './sandbox.js';
import { benchTeam } from './team.js';
import { measureWriters } from './write.js';
import { benchScale, benchScaleHuge, floorLine, runPapaparseChild, runValidateChild } from './scale.js';
import { benchWideXlsx } from './wide-xlsx.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const DATA = resolve(HERE, '..', '..', 'bench-data');
const CSV_ROWS = 1_000_000;
const XLSX_ROWS = 100_000;

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const line = (text: string) => process.stdout.write(`${text}\n`);

/** The best of `rounds` runs: a busy machine only ever slows a run down. */
async function best<T extends { ms: number }>(rounds: number, run: () => Promise<T> | T): Promise<T> {
  let top: T | undefined;
  for (let i = 0; i < rounds; i++) {
    const r = await run();
    if (!top || r.ms < top.ms) top = r;
  }
  return top!;
}

async function dataFiles(now: Date): Promise<{ csv: string; xlsx: string }> {
  mkdirSync(DATA, { recursive: true });
  const csv = join(DATA, `orders-${CSV_ROWS}.csv`);
  const xlsx = join(DATA, `orders-${XLSX_ROWS}.xlsx`);
  if (!existsSync(csv)) {
    line(`generating ${csv} ...`);
    await writeLargeCsv(csv, CSV_ROWS, now);
  }
  if (!existsSync(xlsx)) {
    line(`generating ${xlsx} ...`);
    await writeLargeXlsx(xlsx, XLSX_ROWS, now);
  }
  return { csv, xlsx };
}

async function benchValidate(): Promise<void> {
  // The generated orders are a few days old as of the moment the files were written; check them as of then.
  const now = new Date();
  const { csv, xlsx } = await dataFiles(now);
  const asOf = new Date(statSync(csv).mtimeMs);
  line(`\n== validate: ${fmt(CSV_ROWS)}-row CSV (${fmt(statSync(csv).size / 1e6, 0)} MB), result CSV written`);
  const papa = await best(3, () => runPapaparseChild(csv));
  const run = await best(3, () => runValidateChild(csv, join(DATA, 'result-csv.csv'), asOf));
  line(`papaparse alone (streaming): ${fmt(papa.ms)} ms (${fmt((papa.rows * 1000) / papa.ms)} rows/s); CPU ${fmt(papa.cpuMs)} ms`);
  line(`validate:                    ${fmt(run.ms)} ms (${fmt((CSV_ROWS * 1000) / run.ms)} rows/s, ${fmt(run.orders)} orders); CPU ${fmt(run.cpuMs)} ms (both threads), peak RSS ${fmt(run.maxRssMb)} MB`);
  line(`ratio validate / papaparse:  ${fmt(run.ms / papa.ms, 2)}x   (target <= 2.0x, peak <= 500 MB); CPU ${fmt(run.cpuMs / papa.cpuMs, 2)}x (papaparse alone uses one core, validate two)`);
  line(floorLine(run.cpuMs, papa.ms));

  const xlsxAsOf = new Date(statSync(xlsx).mtimeMs);
  line(`\n== validate: ${fmt(XLSX_ROWS)}-row XLSX (${fmt(statSync(xlsx).size / 1e6, 1)} MB)`);
  const excel = await best(2, () => measureExcelJsBaseline(xlsx));
  const runX = await best(2, () => runValidateChild(xlsx, join(DATA, 'result-xlsx.csv'), xlsxAsOf));
  const runXx = runValidateChild(xlsx, join(DATA, 'result-xlsx.xlsx'), xlsxAsOf);
  line(`exceljs streaming reader alone: ${fmt(excel.ms)} ms (${fmt((excel.rows * 1000) / excel.ms)} rows/s)`);
  line(`validate, result CSV:           ${fmt(runX.ms)} ms, peak RSS ${fmt(runX.maxRssMb)} MB`);
  line(`ratio validate / exceljs:       ${fmt(runX.ms / excel.ms, 2)}x   (target <= 1.5x)`);
  line(`validate, result XLSX (for information): ${fmt(runXx.ms)} ms (${fmt(runXx.ms / excel.ms, 2)}x), peak RSS ${fmt(runXx.maxRssMb)} MB`);
}

async function benchWriters(): Promise<void> {
  line('\n== result writers (synthetic rows with issues)');
  const w = await measureWriters(1_000_000, 100_000);
  line(JSON.stringify(w));
}

async function benchSandboxFigures(): Promise<void> {
  line('\n== sandbox: concurrency 16 on loopback');
  const s = await benchSandbox();
  line(`create order:   ${fmt(s.createRps)} req/s; bare node:http ceiling ${fmt(s.ceilingRps)} req/s; ratio ${fmt(s.createRps / s.ceilingRps, 2)} (target >= 0.5)`);
  line(`tracking pages (20 per page):  ${fmt(s.trackingRps)} req/s; bare node:http ceiling ${fmt(s.trackingCeilingRps)} req/s; ratio ${fmt(s.trackingRps / s.trackingCeilingRps, 2)} (target >= 0.5)`);
  line(`tracking pages (100 per page): ${fmt(s.fullPageRps)} req/s; bare node:http ceiling ${fmt(s.fullPageCeilingRps)} req/s; ratio ${fmt(s.fullPageRps / s.fullPageCeilingRps, 2)} (reconcile's page size)`);
  line(`                               a bare server sending the same page's bytes: ${fmt(s.fullPageSameBytesRps)} req/s; ratio ${fmt(s.fullPageRps / s.fullPageSameBytesRps, 2)} (against this, the gap to the ceiling above is moving the page's bytes)`);
}

async function benchImportFigures(): Promise<void> {
  line('\n== import against the sandbox, concurrency 16 (whole command: check, online checks, ledger, POSTs, result)');
  const slow = await benchImport({ rows: 24_000, latencyMs: 20 });
  line(`20 ms latency: sending ${fmt(slow.orders)} orders took ${fmt(slow.submitMs)} ms = ${fmt(slow.submitOrdersPerSecond)} orders/s; ceiling ${fmt(slow.ceilingOrdersPerSecond!)}; ratio ${fmt(slow.ratioToCeiling!, 2)} (target >= 0.9)`);
  line(`               whole command ${fmt(slow.ms)} ms = ${fmt(slow.ordersPerSecond)} orders/s`);
  line(`               bare setTimeout(20) x16 on this machine just before: ${fmt(slow.timerOrdersPerSecond ?? 0)}/s (${fmt((slow.timerOrdersPerSecond ?? 0) / slow.ceilingOrdersPerSecond!, 2)} of the ceiling: a busy machine fires timers late)`);
  line(`               raw undici POSTs x16 to a bare node:http server with the same 20 ms, just before: ${fmt(slow.httpFloorOrdersPerSecond ?? 0)}/s (${fmt((slow.httpFloorOrdersPerSecond ?? 0) / slow.ceilingOrdersPerSecond!, 2)} of the ceiling: what HTTP allows here)`);
  const fast = await benchImport({ rows: 24_000, latencyMs: 0 });
  line(`no latency:    sending ${fmt(fast.submitOrdersPerSecond)} orders/s; whole command ${fmt(fast.ms)} ms = ${fmt(fast.ordersPerSecond)} orders/s`);
  const ledger = await benchLedger(10_000);
  line(`ledger cost per order (intent + sending + accepted): ${fmt(ledger.perOrderMs, 3)} ms grouped as import commits (${fmt(ledger.ordersPerSecond)} orders/s); ${fmt(ledger.perOrderMsOneByOne, 3)} ms with a commit per transition`);
}

async function benchTeamFigures(): Promise<void> {
  line('\n== a team on one PostgreSQL ledger: 2 import processes at concurrency 8 each, 20 ms latency, against raw HTTP at 16');
  const t = await benchTeam({ ordersEach: 4000 });
  if (t.clusterStartMs !== undefined) line(`throwaway PostgreSQL cluster: ready in ${fmt(t.clusterStartMs)} ms (initdb to accepting connections)`);
  line(`raw undici POSTs x16 to the same sandbox: ${fmt(t.rawOrdersPerSecond)} orders/s (the better of before and after)`);
  line(`two imports, one PostgreSQL ledger:       ${fmt(t.teamOrdersPerSecond)} orders/s while sending; ratio ${fmt(t.ratio, 2)} (target >= 0.9)`);
  line(`the same two, each its own SQLite ledger: ${fmt(t.sqliteOrdersPerSecond)} orders/s (the import's own cost, whatever the ledger)`);
  const share = (ms: number) => `${fmt((ms / t.latencyMs) * 100, 1)}% of a ${t.latencyMs} ms request`;
  line(`ledger cost per order, import commits alone: PostgreSQL ${fmt(t.ledgerMsPerOrder.postgres, 3)} ms (${share(t.ledgerMsPerOrder.postgres)}; target < 5%); SQLite ${fmt(t.ledgerMsPerOrder.sqlite, 3)} ms`);
}

async function benchReconcileFigures(): Promise<void> {
  line('\n== reconcile: 100,000 packages from the sandbox, 20 ms latency, concurrency 8');
  const r = runReconcileChild(100_000);
  line(`${fmt(r.packagesPerSecond)} packages/s in ${fmt(r.ms)} ms; peak RSS ${fmt(r.peakRssMb)} MB; then the workbook in ${fmt(r.writeMs)} ms`);
  line(`tracking pages alone through the same API client just after: ${fmt(r.pagesAlonePackagesPerSecond)} packages/s`);
  line(`ratio reconcile / paging alone: ${fmt(r.packagesPerSecond / r.pagesAlonePackagesPerSecond, 2)} (target >= 0.85)`);
  line(`phases (ms): ${r.requests}`);
  line(`ratio to the ceiling of ${fmt(CEILING_PACKAGES_PER_SECOND)} packages/s: reconcile ${fmt(r.ratioToCeiling, 2)}, paging alone ${fmt(r.pagesAlonePackagesPerSecond / CEILING_PACKAGES_PER_SECOND, 2)}`);
  line(`bare setTimeout(20) x8 x 100 packages on this machine just before: ${fmt(r.timerPackagesPerSecond)} packages/s`);
  line(`the same client from a bare node:http server sending one page after 20 ms: ${fmt(r.barePagesPackagesPerSecond)} packages/s; ratio ${fmt(r.barePagesPackagesPerSecond / CEILING_PACKAGES_PER_SECOND, 2)}`);
}

async function benchConfirmationFigures(): Promise<void> {
  line('\n== confirmations: 100,000 packages, a third each from Amazon, eBay and Shopify: a folder against the generic CSV alone');
  const c = await benchConfirmations(100_000);
  line(`generic CSV alone: ${fmt(c.csvMs)} ms; folder (confirmations.csv and three marketplace files, the ledger asked and told): ${fmt(c.folderMs)} ms; peak RSS growth while writing it ${fmt(c.peakRssGrowthMb)} MB`);
  const r = runReconcileChild(100_000, { isComparing: false });
  const run = r.ms + r.writeMs;
  line(`a reconcile of ${fmt(r.packages)} packages with its workbook: ${fmt(run)} ms (peak RSS ${fmt(r.peakRssMb)} MB)`);
  line(`ratio with a folder / with the generic CSV alone: ${fmt((run + c.folderMs) / (run + c.csvMs), 3)} (target <= 1.1)`);
}

async function benchScaleFigures(): Promise<void> {
  const { csv } = await dataFiles(new Date());
  await benchScale(DATA, line, csv);
}

async function benchScaleReconcile(): Promise<void> {
  line('\n== scale: reconcile 1,000,000 packages from the sandbox, 20 ms latency, concurrency 8 (seeding takes a while)');
  const r = runReconcileChild(1_000_000, { isComparing: false });
  line(`${fmt(r.packages)} packages of ${fmt(r.orders)} orders: ${fmt(r.packagesPerSecond)} packages/s in ${fmt(r.ms)} ms; peak RSS ${fmt(r.peakRssMb)} MB (target <= 1,536 MB: ${r.peakRssMb <= 1536 ? 'met' : 'NOT met'})`);
  line(`then the workbook (and the package store for the next run) in ${fmt(r.writeMs)} ms; phases (ms): ${r.requests}`);
}

async function benchRemoteFigures(): Promise<void> {
  line('\n== remote: fetching an SFTP inbox on loopback (a throwaway sshd), best of 3, beside `sftp -b` fetching the same files');
  for (const f of await benchRemote()) {
    const mbps = (ms: number) => fmt(f.bytes / 1e6 / (ms / 1000), 1);
    line(`${f.label}: order-batch ${fmt(f.orderBatchMs)} ms (${mbps(f.orderBatchMs)} MB/s); sftp -b ${fmt(f.sftpMs)} ms (${mbps(f.sftpMs)} MB/s); ratio ${fmt(f.sftpMs / f.orderBatchMs, 2)} of the raw transfer (target >= 0.8)`);
  }
}

const sections: Record<string, () => Promise<void>> = {
  remote: benchRemoteFigures,
  scale: benchScaleFigures,
  api: () => benchApi(DATA, line),
  'scale-huge': () => benchScaleHuge(DATA, line),
  'scale-reconcile': benchScaleReconcile,
  metrics: () => benchMetrics(DATA, line),
  'wide-xlsx': async () => {
    mkdirSync(DATA, { recursive: true });
    await benchWideXlsx(DATA, line);
  },
  validate: benchValidate,
  writers: benchWriters,
  sandbox: benchSandboxFigures,
  import: benchImportFigures,
  reconcile: benchReconcileFigures,
  confirmations: benchConfirmationFigures,
  team: benchTeamFigures,
};

const wanted = process.argv.slice(2);
for (const name of wanted.length > 0 ? wanted : ['validate', 'scale', 'sandbox', 'import', 'reconcile', 'team', 'api', 'remote']) {
  const section = sections[name];
  if (!section) {
    process.stderr.write(`unknown section ${name}; choose from ${Object.keys(sections).join(', ')}\n`);
    process.exit(2);
  }
  await section();
}
