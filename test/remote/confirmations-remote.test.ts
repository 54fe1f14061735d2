/**
 * reconcile --confirmations to an SFTP location (a real sshd, started here): a folder gets every file
 * the run wrote there (confirmations.csv and each marketplace's upload file), and the report names them
 * by their remote locations, never the work folder's copies.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareRemoteRun } from '../../src/remote/remote-run.js';
import type { JsonReport } from '../../src/run-report/json.js';
import { sshdMissing, startSshd, type Sshd } from '../support/sshd.js';
import { useTempDir } from '../support/temp-dir.js';

const missing = sshdMissing();
const FILES = ['confirmations.csv', 'amazon-shipping-confirmation.txt', 'ebay-tracking-upload.csv'];

type ConfirmationsReport = JsonReport & { confirmations?: string; confirmationFiles?: { marketplace: string; path: string }[] };

describe.skipIf(missing !== null)('reconcile --confirmations to an SFTP folder (real sshd)', () => {
  const path = useTempDir('confirmations-remote');
  let sshd: Sshd;
  beforeAll(async () => {
    sshd = await startSshd(path('sshd'));
    mkdirSync(path('host'));
  });
  afterAll(async () => {
    await sshd?.stop();
  });

  /** What a reconcile run does with the local path it is handed: the generic file and one per marketplace. */
  async function runWith(target: string): Promise<ConfirmationsReport> {
    const remote = await prepareRemoteRun(
      { command: 'reconcile', confirmations: target },
      { settings: { sshKeyPath: sshd.userKey, knownHostsPath: sshd.knownHosts, settleSeconds: 0 }, ledgerPath: join(path('host'), 'ledger.db'), claimLeaseMs: 60_000, currentFolder: path('host') },
    );
    const local = remote.confirmations!;
    expect(local.startsWith(path('host'))).toBe(true);
    mkdirSync(local, { recursive: true });
    for (const name of FILES) writeFileSync(join(local, name), `${name}\r\n`);
    const report: ConfirmationsReport = {
      command: 'reconcile',
      input: [],
      summary: {},
      orders: [],
      output: null,
      confirmations: join(local, FILES[0]!),
      confirmationFiles: FILES.map((name) => ({ marketplace: name, path: join(local, name) })),
    } as unknown as ConfirmationsReport;
    try {
      await remote.finish(report);
    } finally {
      await remote.close();
    }
    return report;
  }

  it('uploads confirmations.csv and every marketplace file to a folder, and names them by their remote locations', async () => {
    const folder = path('outbox');
    mkdirSync(folder);
    const report = await runWith(`${sshd.url}${folder}/`);
    expect(readdirSync(folder).sort()).toEqual([...FILES].sort());
    expect(readFileSync(join(folder, 'amazon-shipping-confirmation.txt'), 'utf8')).toBe('amazon-shipping-confirmation.txt\r\n');
    expect(report.outputErrors).toBeUndefined();
    expect(report.confirmations).toBe(`${sshd.url}${folder}/confirmations.csv`);
    expect(report.confirmationFiles!.map((f) => f.path)).toEqual(FILES.map((name) => `${sshd.url}${folder}/${name}`));
  });

  it('treats a location not ending in .csv as a folder, as a local --confirmations is, even with another extension', async () => {
    const parent = path('reports');
    mkdirSync(join(parent, 'week.txt'), { recursive: true });
    const report = await runWith(`${sshd.url}${parent}/week.txt`);
    expect(readdirSync(join(parent, 'week.txt')).sort()).toEqual([...FILES].sort());
    expect(report.confirmationFiles!.map((f) => f.path)).toEqual(FILES.map((name) => `${sshd.url}${parent}/week.txt/${name}`));
    expect(readdirSync(join(path('host'), 'remote'))).toEqual([]);
  });
});
