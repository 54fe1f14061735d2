/**
 * Reading speed, measured: papaparse alone and exceljs alone (the baselines the reader is held to:
 * at most 2.5x for CSV including checking, 1.5x for XLSX) and the reader alone. `npm run bench`
 * uses these; after `npm run bench` has built them, run directly:
 *
 *   node dist-bench/bench/read-baseline.js <file.csv|file.xlsx> [rounds]   measure one file
 *   node dist-bench/bench/read-baseline.js --write <file> <rows>     generate one (.csv or .xlsx)
 *   node dist-bench/bench/read-baseline.js --papaparse <file.csv>   papaparse alone once, as JSON (a Measurement)
 */
import { createReadStream } from 'node:fs';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import ExcelJS from 'exceljs';
import Papa from 'papaparse';
import { openSheet } from '../src/sheet/read-sheet.js';
import { writeLargeCsv, writeLargeXlsx } from './order-sheets.js';
import { peakRssMb } from './peak-rss.js';

export interface Measurement {
  ms: number;
  /** CPU time of this process meanwhile (user + system, every thread): what the machine's load does not change. */
  cpuMs: number;
  rows: number;
}

/** CPU time of the process since `since` (a process.cpuUsage() reading), in milliseconds. */
export function cpuMsSince(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
}

/** papaparse streaming over the file, counting records, nothing else (1 MiB reads, like the reader). */
export function measurePapaparseBaseline(file: string): Promise<Measurement> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  let rows = 0;
  return new Promise((resolvePromise, reject) => {
    const input = createReadStream(file, { highWaterMark: 1024 * 1024 });
    input.on('error', reject);
    Papa.parse<string[]>(input, {
      chunk: (results) => {
        rows += results.data.length;
      },
      complete: () => resolvePromise({ ms: performance.now() - started, cpuMs: cpuMsSince(cpu), rows }),
      error: reject,
    });
  });
}

/** exceljs's streaming reader with the reader's options, touching row.values of every row. */
export async function measureExcelJsBaseline(file: string): Promise<Measurement> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  let rows = 0;
  let touched = 0;
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(file, {
    sharedStrings: 'cache',
    styles: 'cache',
    hyperlinks: 'ignore',
    worksheets: 'emit',
    entries: 'emit',
  });
  for await (const worksheet of reader) {
    for await (const row of worksheet) {
      touched += (row.values as unknown[]).length;
      rows++;
    }
  }
  if (touched < 0) throw new Error('unreachable'); // keeps row.values from being optimised away
  return { ms: performance.now() - started, cpuMs: cpuMsSince(cpu), rows };
}

/** openSheet over the whole file, counting data rows (the header is not counted). */
export async function measureReader(file: string): Promise<Measurement> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const sheet = await openSheet(file);
  let rows = 0;
  for await (const batch of sheet.rows) rows += batch.length;
  sheet.sha256();
  return { ms: performance.now() - started, cpuMs: cpuMsSince(cpu), rows };
}

type Measured = { result: Measurement; peakMiB: number };

/** Peak RSS while `run` runs, sampled every 20 ms (after a GC when --expose-gc is on). */
async function withPeakRss<T>(run: () => Promise<T>): Promise<{ result: T; peakMiB: number }> {
  (globalThis as { gc?: () => void }).gc?.();
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  try {
    const result = await run();
    return { result, peakMiB: Math.round(Math.max(peak, process.memoryUsage().rss) / 1048576) };
  } finally {
    clearInterval(timer);
  }
}

function line(label: string, m: Measurement, peakMiB: number): string {
  const perSecond = Math.round(m.rows / (m.ms / 1000)).toLocaleString('en-US');
  return `${label.padEnd(22)} ${m.rows.toLocaleString('en-US').padStart(10)} rows  ${Math.round(m.ms).toString().padStart(7)} ms (CPU ${Math.round(m.cpuMs).toString().padStart(7)} ms)  ${perSecond.padStart(11)} rows/s  peak RSS ${peakMiB} MiB`;
}

async function main(args: string[]): Promise<void> {
  if (args[0] === '--write' && args[1] && args[2]) {
    const rows = Number(args[2]);
    const started = performance.now();
    await (extname(args[1]).toLowerCase() === '.xlsx' ? writeLargeXlsx : writeLargeCsv)(args[1], rows, new Date());
    console.log(`wrote ${rows.toLocaleString('en-US')} rows to ${args[1]} in ${Math.round(performance.now() - started)} ms`);
    return;
  }
  if (args[0] === '--papaparse' && args[1]) {
    console.log(JSON.stringify(await measurePapaparseBaseline(args[1])));
    return;
  }
  if (args[0] === '--exceljs' && args[1]) {
    console.log(JSON.stringify({ ...(await measureExcelJsBaseline(args[1])), maxRssMb: peakRssMb() }));
    return;
  }
  const file = args[0];
  if (!file) {
    console.error('usage: read-baseline <file.csv|file.xlsx> | --write <file> <rows>');
    process.exitCode = 2;
    return;
  }
  const isXlsx = extname(file).toLowerCase() === '.xlsx';
  const baseline = isXlsx ? measureExcelJsBaseline : measurePapaparseBaseline;
  // Alternating rounds, best of each: a shared machine's noise only ever adds time.
  const rounds = Number(args[1] ?? 3);
  let best: { base: Measured; ours: Measured } | null = null;
  for (let round = 0; round < rounds; round++) {
    const base = await withPeakRss(() => baseline(file));
    const ours = await withPeakRss(() => measureReader(file));
    best = {
      base: best && best.base.result.ms <= base.result.ms ? best.base : base,
      ours: best && best.ours.result.ms <= ours.result.ms ? best.ours : ours,
    };
  }
  if (!best) return;
  console.log(line(isXlsx ? 'exceljs alone' : 'papaparse alone', best.base.result, best.base.peakMiB));
  console.log(line('reader (openSheet)', best.ours.result, best.ours.peakMiB));
  console.log(
    `reader / baseline: ${(best.ours.result.ms / best.base.result.ms).toFixed(2)}x, CPU ${(best.ours.result.cpuMs / best.base.result.cpuMs).toFixed(2)}x (best of ${rounds} alternating rounds)`,
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  await main(process.argv.slice(2));
}
