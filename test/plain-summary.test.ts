/**
 * The closing summary of a test run whose PostgreSQL setup fails (CI without the server binaries,
 * played by pointing the harness at a folder without them): it counts the failure, says what it was,
 * and the run exits non-zero, instead of "0 failed" over a run where nothing ran.
 */
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { makeTempFolder } from './support/temp-dir.js';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));

it('counts a failed PostgreSQL setup in CI as a failure, names it, and exits non-zero', () => {
  const empty = makeTempFolder('no-postgres');
  try {
    const run = spawnSync(process.execPath, [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', 'test/redact.test.ts'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, CI: 'true', ORDER_BATCH_TEST_PG_BIN: empty, NO_COLOR: '1', FORCE_COLOR: '0' },
    });
    expect(run.status).not.toBe(0);
    expect(run.stdout).toContain('tests: 0 passed, 1 failed');
    expect(run.stdout).toContain('setup: The PostgreSQL test setup failed: The PostgreSQL tests must run in CI, but PostgreSQL is not installed');
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
});
