/**
 * One measured validate run in a fresh process, so its peak memory is its own:
 * `node dist-bench/bench/validate-child.js <sheet> <out>` prints `{ ms, cpuMs, maxRssMb, orders }` as JSON
 * (maxRssMb from VmHWM: its own peak, not its parent's);
 * cpuMs is the process's CPU time (user + system), the parse worker's thread included; mainCpuMs the main
 * thread's alone (from /proc on Linux; null elsewhere), where the checks run.
 *
 * With `--rows-only` the sheet's rows are only read (opened and taken batch by batch, neither checked, kept nor
 * written): the main thread's share of the hand-over from the parse worker, the floor under validate's.
 */
import { readFileSync } from 'node:fs';
import { openSheet } from '../src/sheet/read-sheet.js';
import { runValidate } from '../src/validate/run-validate.js';
import { silentLogger } from '../src/log.js';
import { peakRssMb } from './peak-rss.js';

const isRowsOnly = process.argv.includes('--rows-only');
const [file, out, nowIso] = process.argv.slice(2).filter((arg) => arg !== '--rows-only');
if (!file || !out) {
  process.stderr.write('usage: validate-child <sheet> <out> [nowIso]\n');
  process.exit(2);
}
/** The main thread's CPU time so far in ms: its task's utime + stime in /proc, in clock ticks of 10 ms. */
function mainThreadCpuMs(): number | null {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

const started = performance.now();
const cpu = process.cpuUsage();
const mainCpu = mainThreadCpuMs();
if (isRowsOnly) {
  const sheet = await openSheet(file);
  let rows = 0;
  for await (const batch of sheet.rows) rows += batch.length;
  const mainCpuAfter = mainThreadCpuMs();
  const used = process.cpuUsage(cpu);
  process.stdout.write(`${JSON.stringify({ ms: performance.now() - started, cpuMs: (used.user + used.system) / 1000, mainCpuMs: mainCpu === null || mainCpuAfter === null ? null : mainCpuAfter - mainCpu, rows, maxRssMb: peakRssMb(), orders: 0 })}\n`);
  process.exit(0);
}
const result = await runValidate({
  files: [file],
  out,
  context: { now: nowIso ? new Date(nowIso) : new Date(), timezone: 'UTC', sourcesOfSale: ['OtherMarketplace'] },
  logger: silentLogger,
});
const ms = performance.now() - started;
const used = process.cpuUsage(cpu);
const mainCpuAfter = mainThreadCpuMs();
process.stdout.write(
  `${JSON.stringify({ ms, cpuMs: (used.user + used.system) / 1000, mainCpuMs: mainCpu === null || mainCpuAfter === null ? null : mainCpuAfter - mainCpu, rows: result.report.input[0]?.rows ?? 0, maxRssMb: peakRssMb(), orders: result.report.orders.length, summary: result.report.summary, error: result.report.input[0]?.error?.message })}\n`,
);
