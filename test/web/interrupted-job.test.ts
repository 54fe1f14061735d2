/** A submission cut short by a hard stop: after a restart its page says what the ledger knows, never "0 of 0". */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pLimit from 'p-limit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openLedger } from '../../src/ledger/index.js';
import { silentLogger } from '../../src/log.js';
import { createJobRunner, type JobRecord } from '../../src/web/jobs.js';
import { progressJson, renderJobPage } from '../../src/web/pages/job-page.js';
import { openWorkDir, type WorkDir } from '../../src/web/work-dir.js';
import { buildIntent } from '../ledger/builders.js';

describe('a submission the server lost mid-run', () => {
  let dir: string;
  let workDir: WorkDir;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'order-batch-interrupted-'));
    workDir = openWorkDir(join(dir, 'web'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const runner = () =>
    createJobRunner({
      workDir,
      ledgerPath: join(dir, 'ledger.db'),
      runImport: async () => {
        throw new Error('never called');
      },
      serialize: pLimit(1),
      wallClock: () => new Date('2026-11-20T12:30:00Z'),
      logger: silentLogger,
    });

  it("shows its total and where the ledger says its orders stand: accepted, already submitted, being sent, not sent", async () => {
    const uploadId = 'AAAAAAAAAAAAAAAA';
    const file = join(workDir.dirOf('uploads', uploadId), 'orders.csv');
    const ids = Array.from({ length: 10 }, (_, i) => `SO-${i + 1}`);
    workDir.writeJson('uploads', uploadId, 'verdict.json', {
      orders: [...ids.map((id, i) => ({ customerOrderId: id, rows: [i + 2], status: 'valid' })), { customerOrderId: 'SO-BAD', rows: [12], status: 'invalid' }],
    });
    let clock = new Date('2026-11-19T09:00:00Z');
    const ledger = await openLedger(join(dir, 'ledger.db'), { now: () => clock });
    // SO-1 was accepted by an earlier run; this run accepted SO-2..SO-4, had SO-5 in flight when killed.
    const earlier = await ledger.startRun({ command: 'import', files: [{ file: '/elsewhere/old.csv' }] });
    await earlier.prepareSends([buildIntent('SO-1')]);
    await earlier.markAccepted('SO-1');
    await earlier.finish({ summary: { accepted: 1 } });
    clock = new Date('2026-11-20T12:00:05Z');
    const run = await ledger.startRun({ command: 'import', files: [{ file }] });
    await run.prepareSends(['SO-1', 'SO-2', 'SO-3', 'SO-4', 'SO-5'].map((id) => buildIntent(id)));
    for (const id of ['SO-2', 'SO-3', 'SO-4']) await run.markAccepted(id);
    await ledger.close();
    const lost: JobRecord = { id: 'CCCCCCCCCCCCCCCC', uploadId, fileName: 'orders.csv', file, createdAt: '2026-11-20T12:00:00.000Z', state: 'running', expected: 10 };
    workDir.writeJson('jobs', lost.id, 'job.json', lost);

    const job = (await runner().get(lost.id))!;
    expect(job.state).toBe('interrupted');
    expect(job.progress).toEqual({ done: 4, total: 10, byStatus: { accepted: 3, already_submitted: 1, sending: 1 } });
    const json = progressJson(job);
    expect(json).toMatchObject({ state: 'interrupted', done: 4, total: 10, percent: 40, counts: { accepted: 3, already_submitted: 1, rejected: 0, failed: 0 } });
    expect(json.message).toBe(
      'Stopped with 4 of 10 orders done (3 accepted, 1 already submitted). 1 order was being sent when it stopped: the next submission looks it up before sending anything again. 5 orders were not sent.',
    );
    expect(renderJobPage({ csrf: 't', isSandbox: true, apiLabel: 'the embedded sandbox', visitor: { name: 'me', role: 'admin' as const, isLocal: true } }, job).value).toContain('<span data-job-done>4</span> of <span data-job-total>10</span> orders done');
    // Kept as recovered: a later look (or a later submission of the sheet) does not change the story.
    expect((await runner().get(lost.id))!.progress).toEqual(job.progress);
  });

  it('shows at least its total when the upload it came from is gone', async () => {
    const lost: JobRecord = { id: 'DDDDDDDDDDDDDDDD', uploadId: 'BBBBBBBBBBBBBBBB', fileName: 'orders.csv', file: join(dir, 'orders.csv'), createdAt: '2026-11-20T12:00:00.000Z', state: 'running', expected: 7 };
    const ledger = await openLedger(join(dir, 'ledger.db'), { now: () => new Date('2026-11-20T12:00:05Z') });
    await ledger.startRun({ command: 'import', files: [{ file: lost.file }] });
    await ledger.close();
    workDir.writeJson('jobs', lost.id, 'job.json', lost);
    const json = progressJson((await runner().get(lost.id))!);
    expect(json).toMatchObject({ state: 'interrupted', done: 0, total: 7 });
    expect(json.message).toBe('Stopped with 0 of 7 orders done.');
  });
});
