/**
 * Submissions as durable jobs in the ledger: progress every instance sees, one job per upload, a job
 * that outlives its instance (stopped: back in the queue; lease lapsed: taken over), cancellation.
 * Each runner stands for an instance of the web app; runImport is scripted.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pLimit from 'p-limit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ImportResult } from '../../src/import/run-import.js';
import { openDatabase } from '../../src/sqlite/open-database.js';
import { openLedger } from '../../src/ledger/index.js';
import type { Ledger } from '../../src/ledger/types.js';
import { silentLogger } from '../../src/log.js';
import { createJobRunner, type ImportRun, type JobRunner } from '../../src/web/jobs.js';
import { createSharedFiles } from '../../src/web/shared-files.js';
import { openWorkDir, type WorkDir } from '../../src/web/work-dir.js';
import { makeTempFolder } from '../support/temp-dir.js';

function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

function importResult(outDir: string, orders: { id: string; status: string; submittedAt?: string; message?: string }[], interrupted = false): ImportResult {
  writeFileSync(join(outDir, 'orders.import-result.xlsx'), 'workbook');
  const summary: Record<string, number> = {};
  for (const o of orders) summary[o.status] = (summary[o.status] ?? 0) + 1;
  return {
    report: {
      command: 'import',
      input: [{ file: 'orders.csv', sha256: 'abc', rows: orders.length, orders: orders.length }],
      summary,
      orders: orders.map((o, i) => ({
        customerOrderId: o.id,
        rows: [i + 2],
        status: o.status,
        ...(o.submittedAt ? { submittedAt: o.submittedAt } : {}),
        issues: o.message ? [{ row: i + 2, column: null, code: 'failed', severity: 'error', message: o.message }] : [],
      })),
      output: join(outDir, 'orders.import-result.xlsx'),
    },
    hasUnusableInput: false,
    hasProblems: false,
    ...(interrupted ? { interrupted } : {}),
    runId: '11111111-2222-3333-4444-555555555555',
  };
}

/** The import's own way: it looks at the signal before it sends anything, and listens to it after. */
function untilAborted(signal: AbortSignal): Promise<void> {
  return signal.aborted ? Promise.resolve() : new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

const NOT_SENT = 'Not sent: the run stopped early (the run was interrupted). Run the import again to send it.';

describe('submissions as durable jobs', () => {
  let dir: string;
  let workDir: WorkDir;
  let ledger: Ledger;
  let runners: JobRunner[];

  beforeEach(async () => {
    dir = makeTempFolder('jobs');
    workDir = openWorkDir(join(dir, 'web'));
    ledger = await openLedger(join(dir, 'ledger.db'));
    runners = [];
  });
  afterEach(async () => {
    for (const runner of runners) await runner.stop();
    await ledger.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** An instance: its own runner over the shared ledger (each with its own work folder copy). */
  const instance = (runImport: ImportRun, leaseMs = 60_000) => {
    const files = createSharedFiles(ledger.files, workDir, silentLogger);
    const runner = createJobRunner({ jobs: ledger.jobs, files, workDir, runImport, serialize: pLimit(1), leaseMs, pollMs: 20, wallClock: () => new Date(), logger: silentLogger });
    runners.push(runner);
    return runner;
  };
  /** An upload as the check leaves it: its file in the ledger. */
  const upload = async (uploadId: string) => {
    await ledger.files.put({ area: 'uploads', owner: uploadId, name: 'orders.csv', data: Buffer.from('customerOrderId\nA-1\n') });
    return { uploadId, fileName: 'orders.csv', fileSha256: 'abc', expected: 3, by: 'otto' };
  };
  const stateOf = async (id: string) => (await ledger.jobs.get(id))!.state;
  const until = async (check: () => Promise<boolean>) => {
    while (!(await check())) await new Promise((r) => setTimeout(r, 10));
  };

  it('runs a job to its end, keeps its outcome and result in the ledger, and shows its progress meanwhile', async () => {
    const gate = deferred();
    const runner = instance(async (job, outDir, onOrderDone, _signal, onRunStarted) => {
      onRunStarted('run-1');
      onOrderDone(1, 3, 'accepted');
      await gate.promise;
      onOrderDone(2, 3, 'accepted');
      onOrderDone(3, 3, 'rejected');
      return importResult(outDir, [{ id: 'A-1', status: 'accepted' }, { id: 'A-2', status: 'accepted' }, { id: 'A-3', status: 'rejected' }]);
    });
    const job = await runner.submit(await upload('UUUUUUUUUUUUUUU1'));
    await until(async () => (await runner.get(job.id))?.progress.done === 1);
    expect(await runner.get(job.id)).toMatchObject({ state: 'running', createdBy: 'otto', progress: { done: 1, total: 3, byStatus: { accepted: 1 } } });
    gate.resolve();
    await runner.idle();
    const done = await runner.get(job.id);
    expect(done).toMatchObject({ state: 'done', runId: 'run-1', outcome: { summary: { accepted: 2, rejected: 1 }, resultFile: 'orders.import-result.xlsx' } });
    expect(await ledger.files.info('jobs', job.id, 'orders.import-result.xlsx')).toMatchObject({ size: 8 });
  });

  it('keeps one job per upload while it runs, and runs another upload after it', async () => {
    const gate = deferred();
    const order: string[] = [];
    const runner = instance(async (job, outDir) => {
      order.push(job.file);
      await gate.promise;
      return importResult(outDir, [{ id: 'A-1', status: 'accepted' }]);
    });
    const first = await runner.submit(await upload('UUUUUUUUUUUUUUU1'));
    expect((await runner.submit(await upload('UUUUUUUUUUUUUUU1'))).id).toBe(first.id);
    const second = await runner.submit(await upload('UUUUUUUUUUUUUUU2'));
    await until(async () => (await stateOf(first.id)) === 'running');
    expect(await stateOf(second.id)).toBe('queued');
    gate.resolve();
    await runner.idle();
    expect([await stateOf(first.id), await stateOf(second.id)]).toEqual(['done', 'done']);
    expect(order.map((f) => f.includes('UUUUUUUUUUUUUUU1'))).toEqual([true, false]);
  });

  it('gives a running job back to the queue when its instance stops, and the next instance resumes it', async () => {
    const first = instance(async (_job, outDir, onOrderDone, signal) => {
      onOrderDone(1, 3, 'accepted');
      await untilAborted(signal);
      return importResult(outDir, [{ id: 'A-1', status: 'accepted' }, { id: 'A-2', status: 'failed', message: NOT_SENT }, { id: 'A-3', status: 'failed', message: NOT_SENT }], true);
    });
    const job = await first.submit(await upload('UUUUUUUUUUUUUUU1'));
    await until(async () => (await first.get(job.id))?.state === 'running');
    const stopped = await first.stop();
    expect(stopped.paused).toMatchObject({ id: job.id, fileName: 'orders.csv' });
    expect(await ledger.jobs.get(job.id)).toMatchObject({ state: 'queued', starts: 1 });

    const startedAt = (await ledger.jobs.get(job.id))!.startedAt!;
    const next = instance(async (_job, outDir) =>
      importResult(outDir, [{ id: 'A-1', status: 'already_submitted', submittedAt: startedAt }, { id: 'A-2', status: 'accepted' }, { id: 'A-3', status: 'accepted' }]),
    );
    await next.idle();
    // What its first start got accepted counts as this submission's, not as "already submitted".
    expect(await next.get(job.id)).toMatchObject({ state: 'done', starts: 2, outcome: { summary: { accepted: 3 } } });
  });

  it("is taken over by another instance once the first one's lease lapses, and the first stops sending", async () => {
    const firstSignal = deferred<AbortSignal>();
    const first = instance(async (_job, outDir, _done, signal) => {
      firstSignal.resolve(signal);
      await untilAborted(signal);
      return importResult(outDir, [{ id: 'A-1', status: 'failed', message: NOT_SENT }], true);
    });
    const job = await first.submit(await upload('UUUUUUUUUUUUUUU1'));
    const signal = await firstSignal.promise;
    // The first instance stalls past its lease (as if frozen): the job is free for another.
    const db = openDatabase(join(dir, 'ledger.db'));
    db.prepare(`UPDATE jobs SET lease_expires_at = '1970-01-01T00:00:00.000Z' WHERE id = ?`).run(job.id);
    db.close();
    const second = instance(async (_job, outDir) => importResult(outDir, [{ id: 'A-1', status: 'accepted' }]));
    await second.idle();
    expect(await ledger.jobs.get(job.id)).toMatchObject({ state: 'done', starts: 2 });
    // Its next beat tells the first instance the job is no longer its own: it sends nothing more.
    await until(async () => signal.aborted);
    await first.idle();
    expect(await ledger.jobs.get(job.id)).toMatchObject({ state: 'done', outcome: { summary: { accepted: 1 } } });
  });

  it('cancels a queued job at once, and a running one after the answers in flight, the rest not sent', async () => {
    const running = deferred<AbortSignal>();
    const runner = instance(async (_job, outDir, onOrderDone, signal) => {
      onOrderDone(1, 3, 'accepted');
      running.resolve(signal);
      await untilAborted(signal);
      return importResult(outDir, [{ id: 'A-1', status: 'accepted' }, { id: 'A-2', status: 'failed', message: NOT_SENT }, { id: 'A-3', status: 'failed', message: NOT_SENT }], true);
    });
    const first = await runner.submit(await upload('UUUUUUUUUUUUUUU1'));
    const queued = await runner.submit(await upload('UUUUUUUUUUUUUUU2'));
    await running.promise;
    expect(await runner.cancel(queued.id, 'li')).toMatchObject({ state: 'cancelled', cancelRequestedBy: 'li' });
    await runner.cancel(first.id, 'li');
    await runner.idle();
    const cancelled = await runner.get(first.id);
    expect(cancelled).toMatchObject({ state: 'cancelled', cancelRequestedBy: 'li', outcome: { summary: { accepted: 1, not_sent: 2 } } });
    expect(cancelled!.outcome!.notice).toMatch(/^Cancelled by li: nothing more was sent/);
    expect(cancelled!.outcome!.orders![1]).toMatchObject({ status: 'not_sent', messages: ['Not sent: the submission was cancelled first.'] });
  });

  it('fails a job whose sheet is no longer kept, saying so', async () => {
    const runner = instance(async () => {
      throw new Error('never run');
    });
    const job = await runner.submit({ uploadId: 'UUUUUUUUUUUUUUU9', fileName: 'orders.csv', fileSha256: null, expected: 1, by: 'otto' });
    await runner.idle();
    expect(await runner.get(job.id)).toMatchObject({ state: 'failed', outcome: { error: expect.stringMatching(/^The sheet orders\.csv is no longer kept/) } });
  });
});
