/**
 * One CLI import opens its ledger once: the saved mappings, the run, its audit entry and a failed
 * notification's record all go through the one ledger the command opened (the log says each open).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLedger } from '../../src/ledger/index.js';
import { createDatabase, hasPostgres, type TestDatabase } from '../support/postgres/database.js';
import { runCli, SAMPLE_NOW, SAMPLES, tempDir } from './run-cli.js';

let db: TestDatabase | undefined;
beforeAll(async () => {
  if (hasPostgres) db = await createDatabase();
});
afterAll(async () => {
  await db?.drop();
});

const ledgers: [string, (dir: string) => string][] = [['SQLite', (dir) => join(dir, 'ledger.db')]];
if (hasPostgres) ledgers.push(['PostgreSQL', () => db!.url]);

/** The log lines (JSON on stderr) that say a ledger was opened. */
function opensIn(stderr: string): number {
  return stderr.split('\n').filter((line) => line.startsWith('{') && (JSON.parse(line) as { msg?: string }).msg === 'ledger opened').length;
}

describe.each(ledgers)('one CLI import on a %s ledger', (_name, ledgerAt) => {
  it('opens the ledger once for its saved mappings, the run, its audit entry and a failed notification', async () => {
    const dir = tempDir();
    const ledger = ledgerAt(dir);
    const held = await openLedger(ledger);
    await held.mappings.save({ name: 'acme', profile: JSON.stringify({ name: 'acme', label: 'Acme export', fields: { customerOrderId: { column: 'Ref' } } }), savedBy: 'local user' });
    await held.close();

    const res = await runCli(
      ['import', join(SAMPLES, 'orders-with-mistakes.csv'), '--sandbox', '--now', SAMPLE_NOW, '--ledger', ledger, '--out', join(dir, 'r.csv'), '--json',
        '--notify', 'mailto:ops@example.com', '--log-level', 'debug'],
      { env: {} },
    );
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('ORDER_BATCH_SMTP_URL is not set');
    expect(opensIn(res.stderr)).toBe(1);

    const audit = await runCli(['audit', '--ledger', ledger, '--json']);
    const actions = (JSON.parse(audit.stdout) as { entries: { action: string }[] }).entries.map((e) => e.action);
    expect(actions).toContain('import');
    expect(actions).toContain('notify_failed');
  });
});
