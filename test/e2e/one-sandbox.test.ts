/**
 * One embedded sandbox for the CLI and the web app in one folder: orders `import --sandbox` sends
 * while `serve --sandbox` runs are the web app's too, and `sandbox clock` moves the clock they share.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startServeProcess, type ServeProcess } from '../support/serve-process.js';
import { runCli, SAMPLE_NOW, SAMPLES, tempDir } from './run-cli.js';

describe('one sandbox for the CLI and the web app', () => {
  let serve: ServeProcess | undefined;
  afterEach(async () => {
    await serve?.kill();
  });

  it('reconciles from the CLI the orders sent while the web app hosts the sandbox, after moving its clock from the CLI', async () => {
    const cwd = tempDir();
    serve = await startServeProcess(['--sandbox', '--now', SAMPLE_NOW], { cwd });
    const imported = await runCli(['import', join(SAMPLES, 'orders-valid.csv'), '--sandbox', '--out', join(cwd, 'result.csv'), '--now', SAMPLE_NOW, '--json'], { cwd });
    expect(imported.code, imported.stderr).toBe(0);
    const accepted = JSON.parse(imported.stdout).summary.accepted as number;
    expect(accepted).toBeGreaterThan(0);

    const moved = await runCli(['sandbox', 'clock', '--advance', '96h', '--json'], { cwd });
    expect(moved.code, moved.stderr).toBe(0);
    expect(Date.parse(JSON.parse(moved.stdout).now)).toBeGreaterThanOrEqual(Date.parse(SAMPLE_NOW) + 96 * 3_600_000);

    const reconciled = await runCli(['reconcile', '--sandbox', '--out', join(cwd, 'reconcile.xlsx'), '--json'], { cwd });
    expect(reconciled.code, reconciled.stderr).not.toBe(2);
    const report = JSON.parse(reconciled.stdout);
    expect(report.orders).toHaveLength(accepted);
    expect(report.summary.not_found ?? 0).toBe(0);
    expect(report.summary.waiting ?? 0).toBeLessThan(accepted);

    // The web app is still the host: killed, the next command hosts the sandbox from its state and still knows every order.
    await serve.kill();
    serve = undefined;
    const after = await runCli(['reconcile', '--sandbox', '--out', join(cwd, 'reconcile-2.xlsx'), '--json'], { cwd });
    expect(JSON.parse(after.stdout).summary.not_found ?? 0).toBe(0);
  });
});
