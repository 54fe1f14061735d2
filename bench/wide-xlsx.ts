/**
 * The `wide-xlsx` part of `npm run bench`: validate of a workbook of 16,384 columns x 2,000 rows (about 90 MB,
 * every cell a short number or text, the worksheet stored before the shared strings as exceljs's streaming
 * writer does), beside exceljs's streaming reader alone on the same file, each in a fresh process. Generated
 * once into the data folder and kept (it takes minutes to write).
 *
 *   npm run bench -- wide-xlsx
 */
import { execFileSync } from 'node:child_process';
import { existsSync, rmSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Measurement } from './read-baseline.js';
import { runValidateChild, writeWideXlsx } from './scale.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const COLUMNS = 16_384;
const ROWS = 2_000;
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

export async function benchWideXlsx(dataDir: string, line: (text: string) => void): Promise<void> {
  line(`\n== wide-xlsx: validate, ${fmt(COLUMNS)} columns x ${fmt(ROWS)} rows, beside exceljs's streaming reader alone (target <= 2x)`);
  const file = join(dataDir, `wide-${COLUMNS}x${ROWS}.xlsx`);
  if (!existsSync(file)) {
    line(`generating ${file} ...`);
    await writeWideXlsx(file, COLUMNS, ROWS);
  }
  const alone = JSON.parse(execFileSync(process.execPath, [join(HERE, 'read-baseline.js'), '--exceljs', file], { encoding: 'utf8' }).trim().split('\n').pop()!) as Measurement & { maxRssMb: number };
  const run = runValidateChild(file, `${file}.result.csv`, new Date());
  rmSync(`${file}.result.csv`, { force: true });
  line(
    `${fmt(statSync(file).size / 1e6)} MB: exceljs alone ${fmt(alone.ms)} ms (CPU ${fmt(alone.cpuMs)} ms, peak RSS ${fmt(alone.maxRssMb)} MB); ` +
      `validate ${fmt(run.ms)} ms (CPU ${fmt(run.cpuMs)} ms, peak RSS ${fmt(run.maxRssMb)} MB)${run.error ? ` (refused: ${run.error.slice(0, 140)})` : `, ${fmt(run.rows)} rows`}`,
  );
  const ratio = run.cpuMs / alone.cpuMs;
  line(`  CPU ratio ${fmt(ratio, 2)}x (target <= 2x: ${ratio <= 2 ? 'met' : 'NOT met'}); time ratio ${fmt(run.ms / alone.ms, 2)}x; exceljs alone ${fmt(alone.cpuMs / ROWS)} ms of CPU per row; load average ${loadavg().map((n) => fmt(n, 1)).join(' ')}`);
}
