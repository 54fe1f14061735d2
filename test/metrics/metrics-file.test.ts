import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { describe, expect, it } from 'vitest';
import { runCli, SAMPLE_NOW, SAMPLES, tempDir } from '../e2e/run-cli.js';

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
