/**
 * One measured validate run in a fresh process, so its peak memory is its own:
 * `node dist-bench/bench/validate-child.js <sheet> <out>` prints `{ ms, cpuMs, maxRssMb, orders }` as JSON;
 * cpuMs is the process's CPU time (user + system), the parse worker's thread included.
 */
import { runValidate } from '../src/validate/run-validate.js';
import { silentLogger } from '../src/log.js';

const [file, out, nowIso] = process.argv.slice(2);
if (!file || !out) {
  process.stderr.write('usage: validate-child <sheet> <out> [nowIso]\n');
  process.exit(2);
}
const started = performance.now();
const cpu = process.cpuUsage();
const result = await runValidate({
  files: [file],
  out,
  context: { now: nowIso ? new Date(nowIso) : new Date(), timezone: 'UTC', sourcesOfSale: ['OtherMarketplace'] },
  logger: silentLogger,
});
const ms = performance.now() - started;
const used = process.cpuUsage(cpu);
process.stdout.write(
  `${JSON.stringify({ ms, cpuMs: (used.user + used.system) / 1000, maxRssMb: process.resourceUsage().maxRSS / 1024, orders: result.report.orders.length, summary: result.report.summary, error: result.report.input[0]?.error?.message })}\n`,
);
