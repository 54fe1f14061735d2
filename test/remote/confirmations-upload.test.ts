/**
 * A remote --confirmations folder (a real sshd, started here) is recorded in the ledger only once its
 * files are uploaded: an upload that fails says so in the exit code and leaves the packages unrecorded,
 * so the next reconcile writes them again; once they are uploaded, the next one does not.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import type { ApiClient } from '../../src/api/types.js';
import { reconcileExitCode } from '../../src/run-report/exit-code.js';
import { openLedger } from '../../src/ledger/index.js';
import type { Ledger } from '../../src/ledger/types.js';
import { silentLogger } from '../../src/log.js';
import { reconcile } from '../../src/reconcile/reconcile-run.js';
import { prepareRemoteRun } from '../../src/remote/remote-run.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { sandboxImportOptions } from '../import/sandbox-import-options.js';
import { context, MARKETPLACE_FIXTURES, NOW } from '../mapping/exports-support.js';
import { runImportAt } from '../support/run-import-at.js';
import { sshdMissing, startSshd, type Sshd } from '../support/sshd.js';
import { useTempDir } from '../support/temp-dir.js';

const missing = sshdMissing();
const EXPORTS = ['amazon-order-report.txt', 'ebay-orders-report.csv'];
const lines = (file: string) => readFileSync(file, 'utf8').split('\r\n').filter((l) => l !== '');

describe.skipIf(missing !== null)('reconcile --confirmations to an SFTP folder, recorded after the upload (real sshd)', () => {
  const path = useTempDir('confirmations-upload');
  let sshd: Sshd;
  let sandbox: SandboxHandle;
  let client: ApiClient;
  let ledger: Ledger;
  beforeAll(async () => {
    sshd = await startSshd(path('sshd'));
    mkdirSync(path('host'));
    sandbox = await startSandbox({ port: 0, startTime: NOW, freezeClock: true, seed: 7, rates: { split: 0.5, replace: 0, cancel: 0 } });
    const imported = await runImportAt(sandboxImportOptions(sandbox, { context, ledgerPath: path('host/ledger.db') }, { files: EXPORTS.map((f) => join(MARKETPLACE_FIXTURES, f)), out: path('host') }));
    expect(imported.report.summary.accepted ?? 0).toBeGreaterThan(0);
    client = createApiClient({ baseUrl: sandbox.url, clientId: sandbox.clientId, clientSecret: sandbox.clientSecret, now: () => sandbox.now().getTime() });
    ledger = await openLedger(path('host/ledger.db'), { now: () => sandbox.now() });
    sandbox.advanceClock(24 * 5);
  });
  afterAll(async () => {
    await ledger?.close();
    await client?.close();
    await sandbox?.close();
    await sshd?.stop();
  });

  /** What `order-batch reconcile --confirmations <target>` does with the run's remote parts, and its exit code. */
  async function reconcileTo(target: string, name: string) {
    const remote = await prepareRemoteRun(
      { command: 'reconcile', confirmations: target },
      { settings: { sshKeyPath: sshd.userKey, knownHostsPath: sshd.knownHosts, settleSeconds: 0 }, ledgerPath: path('host/ledger.db'), claimLeaseMs: 60_000, currentFolder: path('host') },
    );
    const result = await reconcile({
      ledger,
      client,
      now: sandbox.now(),
      since: new Date(NOW.getTime() - 86_400_000),
      lateAfterDays: 3,
      out: path(`host/${name}.xlsx`),
      confirmationsPath: remote.confirmations,
      placeConfirmations: remote.placeConfirmations,
      logger: silentLogger,
      perOrderMax: 0,
    }).catch(remote.abandon);
    try {
      await remote.finish(result.report);
    } finally {
      await remote.close();
    }
    return { result, exitCode: reconcileExitCode(result) };
  }

  it('records nothing when the upload fails (exit 2), writes the same packages again on the next run, and none after they are uploaded', async () => {
    const outbox = path('outbox');
    const target = `${sshd.url}${outbox}/`;

    // The remote folder does not exist: every upload fails.
    const failed = await reconcileTo(target, 'first');
    expect(failed.exitCode).toBe(2);
    const errors = failed.result.report.outputErrors ?? [];
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toContain(outbox);
    expect(errors[0]!.message).not.toMatch(/\n\s+at /);
    // The files written are kept for the seller, where the message says.
    const kept = /kept in (.+)\.$/.exec(errors[0]!.message)?.[1];
    expect(kept && existsSync(join(kept, 'confirmations.csv'))).toBe(true);
    const live = [...failed.result.orders].flatMap((o) => o.packages.filter((p) => p.isLive && p.trackingNumber));
    expect(live.length).toBeGreaterThan(0);
    expect([...(await ledger.marketplace.writtenOf(live.map((p) => p.packageId)))]).toEqual([]);

    mkdirSync(outbox);
    const uploaded = await reconcileTo(target, 'second');
    expect(uploaded.result.report.outputErrors).toBeUndefined();
    expect(uploaded.exitCode).toBeLessThan(2);
    expect(readdirSync(outbox).sort()).toEqual(['amazon-shipping-confirmation.txt', 'confirmations.csv', 'ebay-tracking-upload.csv']);
    const generic = lines(join(outbox, 'confirmations.csv')).slice(1);
    expect(generic).toHaveLength(live.length);
    for (const p of live) expect(generic.some((row) => row.includes(p.trackingNumber!))).toBe(true);
    expect(uploaded.result.report.confirmations).toBe(`${target}confirmations.csv`);
    expect((await ledger.marketplace.writtenOf(live.map((p) => p.packageId))).size).toBeGreaterThanOrEqual(live.length);

    // Uploaded and recorded: the next run has nothing new for any marketplace.
    const again = await reconcileTo(target, 'third');
    expect(again.result.report.outputErrors).toBeUndefined();
    expect(lines(join(outbox, 'confirmations.csv'))).toHaveLength(1);
    expect(again.result.report.confirmationFiles?.filter((f) => f.marketplace !== 'generic')).toEqual([]);
  });
});
