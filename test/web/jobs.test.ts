/** Submissions: progress while they run, one at a time, kept on disk, and recovered from the ledger after a restart. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pLimit from 'p-limit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ImportResult } from '../../src/commands/import.js';
import { UsageError } from '../../src/errors.js';
import { openLedger } from '../../src/ledger/index.js';
import { silentLogger } from '../../src/log.js';
import { createJobRunner, findRunOf, type ImportRun, type JobRecord } from '../../src/web/jobs.js';
import { openWorkDir, type WorkDir } from '../../src/web/work-dir.js';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

function importResult(file: string, summary: Record<string, number>): ImportResult {
  return {
    report: {
      command: 'import',
      input: [{ file, sha256: 'abc', rows: 2, orders: 2 }],
      summary,
      orders: [
        { customerOrderId: 'SO-1', rows: [2], status: 'accepted', issues: [] },
        { customerOrderId: 'SO-2', rows: [3], status: 'rejected', issues: [{ row: 3, column: 'productId', code: 'unknown_product', severity: 'error', message: 'No such product.' }] },
      ],
      output: `${file}.import-result.xlsx`,
    },
    hasUnusableInput: false,
    hasProblems: true,
    runId: '11111111-2222-3333-4444-555555555555',
  };
}

describe('submissions', () => {
  let dir: string;
  let workDir: WorkDir;
  let clockMs: number;
  const wallClock = () => new Date('2026-11-20T12:00:00Z');

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'order-batch-jobs-'));
    workDir = openWorkDir(join(dir, 'web'));
    clockMs = 0;
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const runner = (runImport: ImportRun) =>
    createJobRunner({ workDir, ledgerPath: join(dir, 'ledger.db'), runImport, serialize: pLimit(1), wallClock, monotonicNow: () => clockMs, logger: silentLogger });
  const upload = (uploadId: string) => ({ uploadId, fileName: 'orders.csv', file: join(dir, `${uploadId}.csv`), expected: 4 });

  it('shows orders done, outcomes and the time left at the pace so far while a job runs', async () => {
    const gate = deferred();
    const jobs = runner(async (job, _out, onOrderDone) => {
      clockMs = 2_000;
      onOrderDone(1, 4, 'accepted');
      await gate.promise;
      return importResult(job.file, { accepted: 4 });
    });
    const job = jobs.submit(upload('AAAAAAAAAAAAAAAA'));
    await new Promise((r) => setImmediate(r));
    const running = (await jobs.get(job.id))!;
    expect(running.state).toBe('running');
    expect(running.progress).toEqual({ done: 1, total: 4, byStatus: { accepted: 1 } });
    expect(running.etaSeconds).toBe(6);
    gate.resolve();
    await jobs.idle();
    const done = (await jobs.get(job.id))!;
    expect(done.state).toBe('done');
    expect(done.summary).toEqual({ accepted: 4 });
    expect(done.resultFile).toBe('AAAAAAAAAAAAAAAA.csv.import-result.xlsx');
    expect(done.orders?.[1]).toEqual({ customerOrderId: 'SO-2', rows: [3], status: 'rejected', messages: ['No such product.'] });
  });

  it('says on the page that the ledger failed mid-run, which ledger (as the history page names it) and what to do', async () => {
    const jobs = runner(async (job) => {
      const ledger = join(dir, 'ledger.db');
      const message = `The ledger ${ledger} could not be written: the disk is full. Free some space on that disk, then run the same command again.`;
      return { ...importResult(job.file, { accepted: 1, failed: 1 }), ledgerFailure: { ledger, message } };
    });
    const job = jobs.submit(upload('CCCCCCCCCCCCCCCC'));
    await jobs.idle();
    const done = (await jobs.get(job.id))!;
    expect(done.state).toBe('done');
    expect(done.notice).toBe(`The run stopped early: The ledger ${join(dir, 'ledger.db')} could not be written: the disk is full. Free some space on that disk, then run the same command again.`);
  });

  it('keeps one job per upload while it runs, and queues another upload behind it', async () => {
    const gate = deferred();
    const jobs = runner(async (job) => {
      await gate.promise;
      return importResult(job.file, { accepted: 1 });
    });
    const first = jobs.submit(upload('AAAAAAAAAAAAAAAA'));
    expect(jobs.submit(upload('AAAAAAAAAAAAAAAA')).id).toBe(first.id);
    const second = jobs.submit(upload('BBBBBBBBBBBBBBBB'));
    await new Promise((r) => setImmediate(r));
    expect((await jobs.get(first.id))!.state).toBe('running');
    expect((await jobs.get(second.id))!.state).toBe('queued');
    expect(jobs.activeFor('BBBBBBBBBBBBBBBB')).toBe(second.id);
    gate.resolve();
    await jobs.idle();
    expect((await jobs.get(second.id))!.state).toBe('done');
    expect(jobs.activeFor('BBBBBBBBBBBBBBBB')).toBeUndefined();
  });

  it("keeps a finished job on disk, so a restarted server still shows it", async () => {
    const jobs = runner(async (job) => importResult(job.file, { accepted: 1, rejected: 1 }));
    const job = jobs.submit(upload('AAAAAAAAAAAAAAAA'));
    await jobs.idle();
    const again = (await runner(async () => {
      throw new Error('never called');
    }).get(job.id))!;
    expect(again.state).toBe('done');
    expect(again.summary).toEqual({ accepted: 1, rejected: 1 });
    expect(again.progress.done).toBe(2);
    expect(runner(async () => importResult('', {})).jobIdsByRun().get('11111111-2222-3333-4444-555555555555')).toBe(job.id);
  });

  it("says what the user can fix, and points a bug at the log", async () => {
    const jobs = runner(async () => {
      throw new UsageError('No fulfillment API is configured.');
    });
    const job = jobs.submit(upload('AAAAAAAAAAAAAAAA'));
    await jobs.idle();
    expect((await jobs.get(job.id))).toMatchObject({ state: 'failed', error: 'No fulfillment API is configured.' });
    const buggy = runner(async () => {
      throw new TypeError('x is undefined');
    });
    const other = buggy.submit(upload('BBBBBBBBBBBBBBBB'));
    await buggy.idle();
    expect((await buggy.get(other.id))!.error).toMatch(/bug; the server log has the details/);
  });

  it('recovers a job the server lost mid-run from the run the ledger holds for its file', async () => {
    const file = join(dir, 'AAAAAAAAAAAAAAAA.csv');
    const ledger = await openLedger(join(dir, 'ledger.db'), { now: () => new Date('2026-11-20T12:01:00Z') });
    const run = await ledger.startRun({ command: 'import', files: [{ file }] });
    const { runId } = run;
    await run.finish({ summary: { accepted: 3 }, resultFiles: [join(dir, 'orders.import-result.xlsx')] });
    await ledger.close();
    const lost: JobRecord = { id: 'CCCCCCCCCCCCCCCC', uploadId: 'AAAAAAAAAAAAAAAA', fileName: 'orders.csv', file, createdAt: '2026-11-20T12:00:00.000Z', state: 'running', expected: 3 };
    workDir.writeJson('jobs', lost.id, 'job.json', lost);
    const recovered = (await runner(async () => importResult(file, {})).get(lost.id))!;
    expect(recovered).toMatchObject({ state: 'done', runId, summary: { accepted: 3 }, resultFile: 'orders.import-result.xlsx' });

    const never: JobRecord = { ...lost, id: 'DDDDDDDDDDDDDDDD', file: join(dir, 'other.csv') };
    workDir.writeJson('jobs', never.id, 'job.json', never);
    expect((await runner(async () => importResult(file, {})).get(never.id))!.state).toBe('interrupted');
  });

  it("matches a job to the newest import run of its file started after it, never an older one", async () => {
    const run = (runId: string, startedAt: string, file: string, command = 'import') => ({ runId, command, files: [{ file }], startedAt, finishedAt: null, summary: null, resultFiles: [], pid: 1, host: 'h' });
    const runs = [run('c', '2026-11-20T12:05:00Z', '/w/b.csv'), run('b', '2026-11-20T12:01:00Z', '/w/a.csv'), run('r', '2026-11-20T12:02:00Z', '/w/a.csv', 'reconcile'), run('a', '2026-11-20T11:00:00Z', '/w/a.csv')];
    expect(findRunOf(runs, { file: '/w/a.csv', createdAt: '2026-11-20T12:00:00Z' })?.runId).toBe('b');
    expect(findRunOf(runs, { file: '/w/a.csv', createdAt: '2026-11-20T12:10:00Z' })).toBeUndefined();
  });
});
