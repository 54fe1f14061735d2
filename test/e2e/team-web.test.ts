/**
 * Two `serve` instances, in folders of their own as on two hosts, on one PostgreSQL ledger, in front of
 * one API: a submission made on the first is watched on the second; the first is killed with kill -9
 * mid-submission, and the second takes the job over and finishes it, no order sent twice.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { changeAccount } from '../../src/accounts/manage.js';
import { openLedger } from '../../src/ledger/index.js';
import { launchChromium, logInThroughPage, skipWithoutChromium, type Browser } from '../support/chromium.js';
import { createDatabase, describePostgres, type TestDatabase } from '../support/postgres/database.js';
import { startServeProcess, type ServeProcess } from '../support/serve-process.js';
import { writeOrdersCsv } from './make-sheet.js';
import { startSandboxProcess, type SandboxProcess } from './sandbox-process.js';
import { ROOT, tempDir } from './run-cli.js';

const ORDERS = 60;
const SHOTS = join(ROOT, 'test-output', 'screenshots');

(skipWithoutChromium ? describePostgres.skip : describePostgres)('two web app instances on one PostgreSQL ledger', () => {
  let db: TestDatabase;
  let sandbox: SandboxProcess;
  let browser: Browser;
  const instances: ServeProcess[] = [];

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    db = await createDatabase();
    const ledger = await openLedger(db.url);
    await changeAccount(ledger, { name: 'setup', via: 'cli', address: null }, { kind: 'add', name: 'otto', role: 'operator', password: 'operator password 1' });
    await ledger.close();
    // An API slow enough for the submission to be caught in the middle.
    sandbox = await startSandboxProcess(['--latency-ms', '300']);
    // Each in a folder of its own, as on another host: what they share is the ledger.
    for (let i = 0; i < 2; i++) instances.push(await startServeProcess(['--ledger', db.url, '--concurrency', '2', '--claim-lease', '5'], { cwd: tempDir(), env: sandbox.env }));
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    for (const instance of instances) await instance.kill();
    await sandbox?.stop();
    await db?.drop();
  });

  it('finishes on the second instance a submission whose instance was killed, sending no order twice', async () => {
    const [first, second] = instances as [ServeProcess, ServeProcess];
    const sheet = join(tempDir(), 'team-orders.csv');
    writeOrdersCsv(sheet, { orders: ORDERS, prefix: 'TEAM', orderDate: new Date(Date.now() - 3_600_000) });

    const onFirst = await (await browser.newContext()).newPage();
    await logInThroughPage(onFirst, first.url, 'otto', 'operator password 1');
    await onFirst.getByLabel(/Order sheet/).setInputFiles(sheet);
    await Promise.all([onFirst.waitForURL(/\/uploads\//), onFirst.getByRole('button', { name: 'Check the sheet' }).click()]);
    await Promise.all([onFirst.waitForURL(/\/jobs\/[\w-]{16}$/), onFirst.getByRole('button', { name: `Submit ${ORDERS} valid orders` }).click()]);
    const jobPath = new URL(onFirst.url()).pathname;

    // The same submission, watched on the other instance: its progress moves there too.
    const onSecond = await (await browser.newContext()).newPage();
    await logInThroughPage(onSecond, second.url, 'otto', 'operator password 1');
    await onSecond.goto(`${second.url}${jobPath}`);
    await onSecond.locator('[data-job][data-state="running"]').waitFor();
    await onSecond.locator('[data-job-done]', { hasText: /^([5-9]|\d\d)$/ }).waitFor({ timeout: 30_000 });
    await onSecond.screenshot({ path: join(SHOTS, 'team-01-watched-on-the-second.png'), fullPage: true });

    await first.kill();
    expect((await sandbox.stats()).orders).toBeLessThan(ORDERS);

    await onSecond.locator('[data-job][data-state="done"]').waitFor({ timeout: 60_000 });
    await onSecond.screenshot({ path: join(SHOTS, 'team-02-finished-on-the-second.png'), fullPage: true });
    expect(await onSecond.locator('[data-outcome]').innerText()).toBe(`${ORDERS} accepted.`);
    expect(await sandbox.stats()).toMatchObject({ orders: ORDERS, duplicatesRejected: 0, postsReceived: ORDERS });

    const ledger = await openLedger(db.url);
    try {
      const job = (await ledger.jobs.list(1))[0]!;
      expect(job).toMatchObject({ state: 'done', starts: 2, createdBy: 'otto' });
      expect((await ledger.countByState()).accepted).toBe(ORDERS);
    } finally {
      await ledger.close();
    }
  });
});
