import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { describe, expect, it } from 'vitest';
import { writeOrdersCsv } from '../e2e/make-sheet.js';
import { runCli, SAMPLE_NOW, SAMPLES, tempDir } from '../e2e/run-cli.js';

/** Every metric the issue names, as a run's file carries it (jobs and failed logins are the service's: there, with no sample). */
const NAMED = [
  'order_batch_runs_total',
  'order_batch_orders_total',
  'order_batch_api_requests_total',
  'order_batch_api_request_duration_seconds',
  'order_batch_api_retries_total',
  'order_batch_jobs',
  'order_batch_ledger_errors_total',
  'order_batch_failed_logins_total',
  'order_batch_notification_failures_total',
  'order_batch_last_run_timestamp_seconds',
  'order_batch_last_run_exit_code',
];

/** The file's families, with what every kind of run must show: each named metric, the run, and the API's requests and their latency. */
function expectRunMetrics(file: string, command: 'import' | 'reconcile'): void {
  const families = parsePrometheusTextFormat(readFileSync(file, 'utf8'));
  expect(families.map((f) => f.name).sort()).toEqual(expect.arrayContaining(NAMED));
  const family = (name: string) => families.find((f) => f.name === name)!;
  expect(family('order_batch_runs_total').metrics.filter((m) => m.labels?.command === command).map((m) => m.value)).toEqual(['1']);
  const requests = family('order_batch_api_requests_total').metrics.reduce((sum, m) => sum + Number(m.value), 0);
  expect(requests, `${command}: API requests in ${file}`).toBeGreaterThan(0);
  const timed = family('order_batch_api_request_duration_seconds').metrics.reduce((sum, m) => sum + Number(m.buckets?.['+Inf'] ?? 0), 0);
  expect(timed).toBe(requests);
  expect(family('order_batch_api_retries_total').metrics.map((m) => m.value)).toEqual(['0']);
  expect(family('order_batch_ledger_errors_total').metrics.map((m) => m.value)).toEqual(['0']);
}

describe('the metrics file of each kind of run', () => {
  it('carries every metric of the issue, with the API requests and their latency, for an import, a reconcile and the scheduled runs of both', async () => {
    const dir = tempDir();
    const ledger = join(dir, 'ledger.db');
    const common = ['--sandbox', '--now', SAMPLE_NOW, '--ledger', ledger];
    const imported = await runCli(['import', join(SAMPLES, 'orders-valid.csv'), ...common, '--out', join(dir, 'r.csv'), '--metrics-file', join(dir, 'import.prom')]);
    expect(imported.code, imported.stderr).toBe(0);
    expectRunMetrics(join(dir, 'import.prom'), 'import');
    const reconciled = await runCli(['reconcile', ...common, '--out', join(dir, 'reconcile.xlsx'), '--metrics-file', join(dir, 'reconcile.prom')]);
    expect(reconciled.code, reconciled.stderr).toBeLessThanOrEqual(1);
    expectRunMetrics(join(dir, 'reconcile.prom'), 'reconcile');

    // Orders of its own: the sample's are settled in the ledger already, and would need no request.
    writeOrdersCsv(join(dir, 'scheduled.csv'), { orders: 3, prefix: 'SCHED', orderDate: new Date(Date.parse(SAMPLE_NOW) - 3_600_000) });
    const config = join(dir, 'config.json');
    writeFileSync(
      config,
      JSON.stringify({
        ledger,
        schedules: [
          { name: 'nightly-import', cron: '0 2 * * *', command: 'import', args: [join(dir, 'scheduled.csv'), '--sandbox', '--now', SAMPLE_NOW, '--out', join(dir, 's.csv'), '--metrics-file', join(dir, 'scheduled-import.prom')] },
          { name: 'morning-reconcile', cron: '0 6 * * *', command: 'reconcile', args: ['--sandbox', '--now', SAMPLE_NOW, '--out', join(dir, 's.xlsx'), '--metrics-file', join(dir, 'scheduled-reconcile.prom')] },
        ],
      }),
    );
    for (const name of ['nightly-import', 'morning-reconcile']) {
      const ran = await runCli(['schedules', 'run', name, '--config', config], { timeoutMs: 60_000 });
      // The sandbox's packages have exceptions: the reconcile has problems to show (exit 1).
      expect(ran.code, ran.stderr).toBeLessThanOrEqual(1);
    }
    expectRunMetrics(join(dir, 'scheduled-import.prom'), 'import');
    expectRunMetrics(join(dir, 'scheduled-reconcile.prom'), 'reconcile');
  }, 180_000);
});

describe('import --metrics-file', () => {
  it("writes the run's metrics for node_exporter's textfile collector, and nothing half-written beside it", async () => {
    const dir = tempDir();
    const file = join(dir, 'order_batch.prom');
    const res = await runCli(['import', join(SAMPLES, 'orders-with-mistakes.csv'), '--sandbox', '--now', SAMPLE_NOW, '--ledger', join(dir, 'ledger.db'), '--out', join(dir, 'r.csv'), '--json', '--metrics-file', file]);
    expect(res.code).toBe(1);
    const summary = JSON.parse(res.stdout).summary as Record<string, number>;
    const families = parsePrometheusTextFormat(readFileSync(file, 'utf8'));
    const sample = (name: string, labels: Record<string, string>) => families.find((f) => f.name === name)?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
    expect(sample('order_batch_runs_total', { command: 'import', outcome: 'problems' })?.value).toBe('1');
    for (const [status, count] of Object.entries(summary)) expect(sample('order_batch_orders_total', { status })?.value).toBe(String(count));
    expect(sample('order_batch_last_run_exit_code', { command: 'import' })?.value).toBe('1');
    expect(Number(sample('order_batch_api_requests_total', { class: '2xx' })?.value)).toBeGreaterThan(0);
    expect(readdirSync(dir).filter((name) => name.includes('.partial'))).toEqual([]);
  });

  it('says so when the metrics file cannot be written, and keeps the exit code of the run', async () => {
    const dir = tempDir();
    const res = await runCli(['import', join(SAMPLES, 'orders-valid.csv'), '--sandbox', '--now', SAMPLE_NOW, '--ledger', join(dir, 'ledger.db'), '--out', join(dir, 'r.csv'), '--metrics-file', join(dir, 'missing', 'm.prom')]);
    expect(res.code).toBe(0);
    expect(res.stderr).toContain('the metrics file');
    expect(existsSync(join(dir, 'missing'))).toBe(false);
  });
});
