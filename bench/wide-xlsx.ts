/**
 * The `wide-xlsx` part of `npm run bench`: validate of a workbook of 16,384 columns x 2,000 rows (about 230 MB,
 * every cell a short number or text, the worksheet stored before the shared strings as exceljs's streaming
 * writer does), beside exceljs's streaming reader alone on the same file (before and after it), each in a fresh
 * process. Generated once into the data folder and kept (it takes minutes to write).
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

type ExcelJsRun = Measurement & { maxRssMb: number };

/** exceljs's streaming reader alone over the file, in a fresh process (read-baseline.js --exceljs). */
function runExcelJsChild(file: string): ExcelJsRun {
  return JSON.parse(execFileSync(process.execPath, [join(HERE, 'read-baseline.js'), '--exceljs', file], { encoding: 'utf8' }).trim().split('\n').pop()!) as ExcelJsRun;
}

const loadText = () => loadavg().map((n) => fmt(n, 1)).join(' ');

export async function benchWideXlsx(dataDir: string, line: (text: string) => void): Promise<void> {
  line(`\n== wide-xlsx: validate, ${fmt(COLUMNS)} columns x ${fmt(ROWS)} rows, beside exceljs's streaming reader alone (target <= 2x)`);
  const file = join(dataDir, `wide-${COLUMNS}x${ROWS}.xlsx`);
  if (!existsSync(file)) {
    line(`generating ${file} ...`);
    await writeWideXlsx(file, COLUMNS, ROWS);
  }
  // exceljs alone before and after validate, the ratio taken to their mean: the machine's load drifts over the
  // minutes each side takes, and a baseline measured on one side of the run only would carry that drift whole.
  const before = runExcelJsChild(file);
  const loadBefore = loadText();
  const run = runValidateChild(file, `${file}.result.csv`, new Date());
  rmSync(`${file}.result.csv`, { force: true });
  const loadAfter = loadText();
  const after = runExcelJsChild(file);
  const alone = { ms: (before.ms + after.ms) / 2, cpuMs: (before.cpuMs + after.cpuMs) / 2 };
  const side = (m: ExcelJsRun) => `${fmt(m.ms)} ms (CPU ${fmt(m.cpuMs)} ms, peak RSS ${fmt(m.maxRssMb)} MB)`;
  line(`${fmt(statSync(file).size / 1e6)} MB: exceljs alone before ${side(before)}, after ${side(after)}`);
  line(
    `  validate ${fmt(run.ms)} ms (CPU ${fmt(run.cpuMs)} ms, main thread ${run.mainCpuMs === null ? '?' : fmt(run.mainCpuMs)} ms, peak RSS ${fmt(run.maxRssMb)} MB)` +
      `${run.error ? ` (refused: ${run.error.slice(0, 140)})` : `, ${fmt(run.rows)} rows`}; load average ${loadBefore} as it started, ${loadAfter} as it ended`,
  );
  const ratio = run.cpuMs / alone.cpuMs;
  line(`  CPU ratio ${fmt(ratio, 2)}x (target <= 2x: ${ratio <= 2 ? 'met' : 'NOT met'}); time ratio ${fmt(run.ms / alone.ms, 2)}x; exceljs alone ${fmt(alone.cpuMs / ROWS)} ms of CPU per row`);
}
