/**
 * One measured validate run in a fresh process, so its peak memory is its own:
 * `node dist-bench/bench/validate-child.js <sheet> <out>` prints `{ ms, maxRssMb, orders }` as JSON.
 */
import { validateFiles } from '../src/commands/validate.js';
import { silentLogger } from '../src/log.js';

const [file, out, nowIso] = process.argv.slice(2);
if (!file || !out) {
  process.stderr.write('usage: validate-child <sheet> <out> [nowIso]\n');
  process.exit(2);
}
const started = performance.now();
const result = await validateFiles({
  files: [file],
  out,
  context: { now: nowIso ? new Date(nowIso) : new Date(), timezone: 'UTC', sourcesOfSale: ['OtherMarketplace'] },
  logger: silentLogger,
});
const ms = performance.now() - started;
process.stdout.write(
  `${JSON.stringify({ ms, maxRssMb: process.resourceUsage().maxRSS / 1024, orders: result.report.orders.length, summary: result.report.summary, error: result.report.input[0]?.error?.message })}\n`,
);
