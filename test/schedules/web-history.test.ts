/**
 * A scheduled run in the web app's History: beside the others, named by its schedule, its result
 * downloaded from the ledger (the run wrote it outside the web app's folder, maybe on another host).
 */
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { createScheduledRunner } from '../../src/cli/scheduled-run.js';
import { openLedger } from '../../src/ledger/index.js';
import type { OccurrenceRecord } from '../../src/ledger/team-types.js';
import { silentLogger } from '../../src/log.js';
import { toSchedules } from '../../src/schedules/schedule-config.js';
import { createScheduler } from '../../src/schedules/scheduler.js';
import { SAMPLES, SAMPLES_AS_OF, startAppWithSession, type Session, type TestApp } from '../web/support.js';
import { useTempFolder } from '../support/temp-dir.js';

describe("the web app's History", () => {
  const inbox = useTempFolder('inbox');
  let web: TestApp;
  let session: Session;
  let record: OccurrenceRecord;
  let reconciled: OccurrenceRecord;
  let resultPath: string;
  beforeAll(async () => {
    ({ web, session } = await startAppWithSession());
    copyFileSync(join(SAMPLES, 'orders-valid.csv'), join(inbox, 'orders.csv'));
    resultPath = join(inbox, 'results', 'orders.import-result.xlsx');
    const schedules = toSchedules([
      { name: 'nightly', cron: '0 2 * * *', timezone: 'UTC', command: 'import', args: [join(inbox, 'orders.csv'), '--sandbox', '--now', SAMPLES_AS_OF.toISOString(), '--out', resultPath], notify: [], catchUp: '6h' },
      { name: 'morning', cron: '0 6 * * *', timezone: 'UTC', command: 'reconcile', args: ['--sandbox', '--now', SAMPLES_AS_OF.toISOString(), '--out', join(inbox, 'results', 'reconciliation.xlsx')], notify: [], catchUp: '6h' },
    ]);
    const ledger = await openLedger(web.ledgerPath);
    try {
      const clock = () => new Date();
      const scheduler = createScheduler({
        schedules,
        store: ledger.schedules,
        runOccurrence: createScheduledRunner({ base: { ledger: web.ledgerPath }, env: {}, clock, logger: silentLogger }),
        clock,
        leaseMs: 60_000,
        host: 'batch-1 4711',
        logger: silentLogger,
      });
      record = (await scheduler.runNow('nightly'))!;
      reconciled = (await scheduler.runNow('morning'))!;
    } finally {
      await ledger.close();
    }
  }, 60_000);
  afterAll(async () => {
    await web?.close();
  });

  const get = async (path: string) => {
    const response = await request(`${web.app.url}${path}`, { headers: { cookie: session.cookie } });
    return { status: response.statusCode, headers: response.headers, body: Buffer.from(await response.body.arrayBuffer()) };
  };

  it('shows the scheduled run beside the others, named by its schedule, with its result to download', async () => {
    expect(record).toMatchObject({ schedule: 'nightly', kind: 'manual', outcome: 'ok', exitCode: 0, summary: { accepted: 8 } });
    const page = (await get('/history')).body.toString();
    expect(page).toContain('<td>import<br><span class="help">schedule nightly</span></td>');
    const link = new RegExp(`href="(/runs/${record.runId}/files/0)" download>orders.import-result.xlsx<`).exec(page)?.[1];
    expect(link).toBeDefined();
    const download = await get(link!);
    expect(download.status).toBe(200);
    expect(download.headers['content-disposition']).toContain('orders.import-result.xlsx');
    expect(download.body.equals(readFileSync(resultPath))).toBe(true);
  });

  it('names a scheduled reconciliation by its schedule too, its workbook to download', async () => {
    expect(reconciled).toMatchObject({ schedule: 'morning', kind: 'manual', runId: expect.any(String) });
    const page = (await get('/history')).body.toString();
    expect(page).toContain('<td>reconcile<br><span class="help">schedule morning</span></td>');
    expect(page).toMatch(new RegExp(`href="/runs/${reconciled.runId}/files/0" download>reconciliation.xlsx<`));
  });

  it('names the schedule in the audit trail', async () => {
    const ledger = await openLedger(web.ledgerPath);
    try {
      expect((await ledger.audit.list()).filter((e) => e.action === 'import').map((e) => [e.actor, e.address, e.ref])).toEqual([['schedule nightly', expect.any(String), record.runId]]);
    } finally {
      await ledger.close();
    }
  });
});
