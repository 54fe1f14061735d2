/**
 * Submissions as durable jobs in the ledger (ledger/team-types.ts JobQueue), not promises in memory.
 * Every instance of the web app that shares the ledger runs a worker: it takes the oldest queued job
 * (or one whose instance died: its lease lapsed), one at a time, and renews its lease while the
 * import runs, saving its progress for every instance's page. A job survives its instance: stopped,
 * it goes back to the queue; killed, another instance (or the next start) takes it over once its
 * lease lapses, and the import run again looks up whatever may have been sent before it sends
 * anything (the ledger's rule), so no order goes out twice. A cancelled job sends nothing more: the
 * orders in flight get their answers, the rest are marked not sent.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { ImportResult } from '../import/run-import.js';
import type { JobOutcome, JobQueue, JobRecord, NewJob } from '../ledger/index.js';
import type { Logger } from '../log.js';
import { jobOutcomeOf } from './job-outcome.js';
import { runOtherKind, type OtherKindRun } from './other-job-kinds.js';
import { countOutcome, estimateSecondsLeft, type ProgressCounts } from './progress.js';
import type { SharedFiles } from './shared-files.js';
import { isUserError, userMessage } from './user-message.js';
import { newId, type WorkDir } from './work-dir.js';

export type { JobRecord } from '../ledger/index.js';

/** A job as its page shows it. */
export interface JobView extends JobRecord {
  progress: ProgressCounts;
  etaSeconds: number | null;
}

/** What runs one job: the import of its sheet into `outDir`, until `signal` says to send nothing more. */
export interface ImportRun {
  (
    job: { uploadId: string; file: string; sheet?: string },
    outDir: string,
    onOrderDone: (done: number, total: number, status: string) => void,
    signal: AbortSignal,
    onRunStarted: (runId: string) => void,
  ): Promise<ImportResult>;
}

/** What stopping the server did to its jobs. */
export interface JobsStopped {
  /** The job this instance was running: given back to the queue, to be resumed. */
  paused?: { id: string; fileName: string; progress: ProgressCounts };
  /** Jobs waiting in the ledger's queue. */
  queued: number;
}

/** What serve prints (one line each) once a stop has wound the jobs down. */
export function describeStopped(stopped: JobsStopped): string[] {
  const lines: string[] = [];
  if (stopped.paused) {
    const { fileName, progress } = stopped.paused;
    lines.push(
      `the submission of ${fileName} was paused with ${progress.done} of ${progress.total} ${progress.total === 1 ? 'order' : 'orders'} done: it resumes when the web app starts again, or on another instance sharing the ledger; nothing is sent twice.`,
    );
  }
  if (stopped.queued > 0) lines.push(`${stopped.queued} queued submission${stopped.queued === 1 ? ' waits' : 's wait'} in the ledger for the next start.`);
  return [...lines, 'stopped.'];
}

export interface JobRunner {
  /** Queues a job of another kind than a submission (a reconciliation), and wakes the worker. */
  queue(job: NewJob): Promise<JobRecord>;
  /** Queues a job for the upload (or returns the one already queued or running for it), and wakes the worker. */
  submit(upload: { uploadId: string; fileName: string; fileSha256: string | null; sheet?: string; expected: number; by: string }): Promise<JobRecord>;
  get(id: string): Promise<JobView | undefined>;
  /** The id of the upload's queued or running job, if any. */
  activeFor(uploadId: string): Promise<string | undefined>;
  /** Asks the job to stop sending (a queued one is cancelled at once). */
  cancel(id: string, by: string): Promise<JobRecord | undefined>;
  /** Jobs by ledger run id, for the history page. */
  jobIdsByRun(): Promise<Map<string, string>>;
  /** Resolves once this instance is running no job and found none queued (tests). */
  idle(): Promise<void>;
  /** Stops taking jobs; the running one sends nothing more and goes back to the queue. Safe to call twice. */
  stop(): Promise<JobsStopped>;
  /**
   * The stop's grace is over and the process is about to exit: the running job goes back to the queue
   * now, for another instance (or the next start) to take at once rather than after its lease.
   */
  abandon(): Promise<void>;
}

export interface JobRunnerOptions {
  jobs: JobQueue;
  files: SharedFiles;
  workDir: WorkDir;
  runImport: ImportRun;
  /** Runs one task at a time with the reconciliations of this instance. */
  serialize: <T>(task: () => Promise<T>) => Promise<T>;
  /** How long a job outlives its instance's last sign of life (the run's claim lease alike). */
  leaseMs: number;
  /** How often an idle worker looks for a queued job; default 1 s. */
  pollMs?: number;
  /** Runs a job of another kind than a submission (reconcile-jobs.ts): how it ended. */
  runOther?: OtherKindRun;
  /** Ends the ledger runs of the running job at once (their claims let go), when the stop's grace is over. */
  abandonRuns?: () => Promise<void>;
  /** Records the job's end in the audit trail. */
  onFinished?: (job: JobRecord, state: 'done' | 'failed' | 'cancelled', outcome: JobOutcome) => Promise<void>;
  wallClock: () => Date;
  monotonicNow?: () => number;
  logger: Logger;
}

interface Current {
  job: JobRecord;
  progress: ProgressCounts;
  startedMs: number;
  runId?: string;
  controller: AbortController;
  /** Why the import was told to stop, if it was. */
  stopReason?: 'cancelled' | 'lost' | 'stopping' | 'abandoned';
  done: Promise<void>;
}

/** What the worker's parts share: the options, who this instance is, and the job it runs. */
interface Worker {
  options: JobRunnerOptions;
  monotonicNow: () => number;
  /** Which instance holds a job: this host and process, and a random part (two runners in one process are two instances). */
  holder: string;
  beatMs: number;
  current?: Current;
  isStopping: boolean;
  looking?: Promise<void>;
  poll?: ReturnType<typeof setInterval>;
  stopped?: Promise<JobsStopped>;
}

export function createJobRunner(options: JobRunnerOptions): JobRunner {
  const { jobs } = options;
  const worker: Worker = {
    options,
    monotonicNow: options.monotonicNow ?? (() => performance.now()),
    holder: `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`,
    beatMs: Math.max(50, Math.min(1_000, Math.floor(options.leaseMs / 3))),
    isStopping: false,
  };
  worker.poll = setInterval(() => void lookForWork(worker), options.pollMs ?? 1_000);
  worker.poll.unref();

  return {
    async queue(job) {
      const created = await jobs.create(job);
      void lookForWork(worker);
      return created;
    },
    async submit(upload) {
      const active = await jobs.findActive(upload.uploadId);
      if (active) return active;
      const job = await jobs.create({
        id: newId(),
        uploadId: upload.uploadId,
        fileName: upload.fileName,
        fileSha256: upload.fileSha256,
        sheet: upload.sheet ?? null,
        createdBy: upload.by,
        expected: upload.expected,
      });
      void lookForWork(worker);
      return job;
    },
    get: (id) => viewJob(worker, id),
    async activeFor(uploadId) {
      return (await jobs.findActive(uploadId))?.id;
    },
    async cancel(id, by) {
      const job = await jobs.requestCancel(id, by);
      if (job && worker.current?.job.id === id) stopWith(worker.current, 'cancelled');
      return job ?? undefined;
    },
    async jobIdsByRun() {
      const map = new Map<string, string>();
      for (const job of await jobs.list(500)) if (job.runId) map.set(job.runId, job.id);
      return map;
    },
    idle: () => waitIdle(worker),
    async abandon() {
      const running = worker.current;
      if (!running) return;
      const { logger } = options;
      // From here this instance ends nothing: whatever its import still does, the next holder settles the job.
      running.stopReason = 'abandoned';
      running.controller.abort();
      // The run's claims first, then the job: the instance that takes the job finds its orders free.
      await options.abandonRuns?.().catch((error: unknown) => logger.warn({ job: running.job.id, err: (error as Error).message }, "could not let go of the submission's orders"));
      await jobs.release(running.job.id, worker.holder).catch((error: unknown) => logger.warn({ job: running.job.id, err: (error as Error).message }, 'could not hand the submission back'));
    },
    stop() {
      worker.stopped ??= stopWorker(worker);
      return worker.stopped;
    },
  };
}

/** One look at a time; the next call after it ends looks again. */
function lookForWork(worker: Worker): Promise<void> {
  return (worker.looking ??= claimNext(worker).finally(() => (worker.looking = undefined)));
}

async function claimNext(worker: Worker): Promise<void> {
  const { options } = worker;
  try {
    if (worker.isStopping || worker.current) return;
    const job = await options.jobs.claim(worker.holder, options.leaseMs);
    if (job) startJob(worker, job);
  } catch (error) {
    options.logger.warn({ err: (error as Error).message }, 'could not look for queued submissions');
  }
}

function stopWith(entry: Current, reason: Current['stopReason']): void {
  entry.stopReason ??= reason;
  entry.controller.abort();
}

/** Saves the job's progress and run, renewing its lease. */
function saveProgress(worker: Worker, entry: Current) {
  const { jobs, leaseMs } = worker.options;
  return jobs.beat(entry.job.id, worker.holder, leaseMs, { progress: entry.progress, ...(entry.runId ? { runId: entry.runId } : {}) });
}

/** Runs the claimed job, renewing its lease meanwhile; the lease lost or a cancel asked for stops its import. */
function startJob(worker: Worker, job: JobRecord): void {
  const { options } = worker;
  const entry: Current = {
    job,
    progress: job.progress ?? { done: 0, total: job.expected, byStatus: {} },
    startedMs: worker.monotonicNow(),
    controller: new AbortController(),
    done: Promise.resolve(),
  };
  worker.current = entry;
  const beat = setInterval(() => {
    saveProgress(worker, entry).then(
      (state) => {
        if (!state.isHeld) stopWith(entry, 'lost');
        else if (state.isCancelRequested) stopWith(entry, 'cancelled');
      },
      (error: unknown) => options.logger.warn({ job: job.id, err: (error as Error).message }, 'could not renew the submission'),
    );
  }, worker.beatMs);
  beat.unref();
  if (job.cancelRequestedBy) stopWith(entry, 'cancelled');
  if (worker.isStopping) stopWith(entry, 'stopping');
  entry.done = options
    .serialize(() => executeJob(worker, entry))
    .catch((error: unknown) => options.logger.error({ err: error, job: job.id }, 'submission failed'))
    .finally(() => {
      clearInterval(beat);
      worker.current = undefined;
      if (!worker.isStopping) void lookForWork(worker);
    });
}

async function executeJob(worker: Worker, entry: Current): Promise<void> {
  const { options } = worker;
  const { job } = entry;
  const { jobs, logger, workDir } = options;
  if (job.kind !== 'submit') {
    const ended = await runOtherKind(job, options.runOther, logger);
    if (entry.stopReason !== 'lost' && entry.stopReason !== 'abandoned') await finishJob(worker, entry, ended.state, ended.outcome);
    return;
  }
  logger.info({ job: job.id, file: job.fileName, starts: job.starts }, job.starts > 1 ? 'resuming a submission' : 'starting a submission');
  const file = join(workDir.dirOf('uploads', job.uploadId), job.fileName);
  if (!(await options.files.fetch('uploads', job.uploadId)) || !existsSync(file)) {
    return finishJob(worker, entry, 'failed', { error: `The sheet ${job.fileName} is no longer kept (uploads are removed after the retention period): upload it again.` });
  }
  if (entry.stopReason === 'cancelled') return finishJob(worker, entry, 'cancelled', { summary: { not_sent: job.expected }, notice: cancelNotice(job) });
  if (entry.stopReason === 'stopping') return jobs.release(job.id, worker.holder);
  let result: ImportResult;
  try {
    result = await options.runImport(
      { uploadId: job.uploadId, file, ...(job.sheet ? { sheet: job.sheet } : {}) },
      `${workDir.dirOf('jobs', job.id)}/`,
      (done, total, status) => (entry.progress = countOutcome(entry.progress.done > done ? { done: 0, total, byStatus: {} } : entry.progress, done, total, status)),
      entry.controller.signal,
      (runId) => (entry.runId = runId),
    );
  } catch (error) {
    if (entry.stopReason === 'lost' || entry.stopReason === 'abandoned') return;
    if (!isUserError(error)) logger.error({ err: error, job: job.id }, 'submission failed');
    return finishJob(worker, entry, 'failed', { error: workDir.nameFilesIn(userMessage(error)) });
  }
  return settleJob(worker, entry, result);
}

/** What becomes of a job whose import returned: settled by another instance, paused, or finished. */
async function settleJob(worker: Worker, entry: Current, result: ImportResult): Promise<void> {
  const { jobs, logger, workDir, files } = worker.options;
  const { job } = entry;
  if (entry.stopReason === 'abandoned') return;
  if (entry.stopReason === 'lost') {
    logger.warn({ job: job.id }, 'another instance took this submission over (its lease lapsed): it settles the orders');
    return;
  }
  if (entry.stopReason === 'stopping' && result.interrupted) {
    await jobs.release(job.id, worker.holder);
    logger.info({ job: job.id }, 'submission paused: back in the queue');
    return;
  }
  const isCancelled = entry.stopReason === 'cancelled';
  const outcome = jobOutcomeOf(result, job, { isCancelled, nameFiles: workDir.nameFilesIn });
  if (isCancelled) outcome.notice = [cancelNotice((await jobs.get(job.id)) ?? job), outcome.notice].filter(Boolean).join(' ');
  await files.publish('jobs', job.id);
  await finishJob(worker, entry, isCancelled ? 'cancelled' : outcome.error ? 'failed' : 'done', outcome);
}

async function finishJob(worker: Worker, entry: Current, state: 'done' | 'failed' | 'cancelled', outcome: JobOutcome): Promise<void> {
  const { jobs, logger, onFinished } = worker.options;
  // Let go of when the stop's grace was over: the instance that takes the job over ends it.
  if (entry.stopReason === 'abandoned') return;
  // The last progress and the run, then the end.
  await saveProgress(worker, entry);
  if (!(await jobs.finish(entry.job.id, worker.holder, state, outcome))) return;
  const finished = (await jobs.get(entry.job.id)) ?? entry.job;
  logger.info({ job: entry.job.id, state, summary: outcome.summary }, 'submission finished');
  await onFinished?.(finished, state, outcome).catch((error: unknown) => logger.error({ err: error }, 'could not record the submission'));
}

async function viewJob(worker: Worker, id: string): Promise<JobView | undefined> {
  const job = await worker.options.jobs.get(id);
  if (!job) return undefined;
  const here = worker.current?.job.id === id ? worker.current : undefined;
  const progress = here?.progress ?? storedProgress(job);
  const elapsed = here ? worker.monotonicNow() - here.startedMs : job.startedAt ? worker.options.wallClock().getTime() - Date.parse(job.startedAt) : 0;
  return { ...job, progress, etaSeconds: job.state === 'running' ? estimateSecondsLeft(progress.done, progress.total, elapsed) : null };
}

async function waitIdle(worker: Worker): Promise<void> {
  for (;;) {
    if (worker.current) {
      await worker.current.done;
      continue;
    }
    await lookForWork(worker);
    if (!worker.current) return;
  }
}

async function stopWorker(worker: Worker): Promise<JobsStopped> {
  worker.isStopping = true;
  clearInterval(worker.poll);
  await worker.looking;
  const running = worker.current;
  if (running) {
    stopWith(running, 'stopping');
    await running.done;
  }
  const queued = (await worker.options.jobs.list(500).catch(() => [])).filter((job) => job.state === 'queued' && job.kind === 'submit').length;
  return {
    ...(running && running.stopReason === 'stopping' && running.job.kind === 'submit' ? { paused: { id: running.job.id, fileName: running.job.fileName, progress: running.progress } } : {}),
    queued,
  };
}

function cancelNotice(job: JobRecord): string {
  return `Cancelled by ${job.cancelRequestedBy ?? 'someone'}: nothing more was sent; the orders already sent keep their answers, the others were not sent. Submit the sheet again to send them.`;
}

/** A job's progress as the ledger has it: the last the running instance saved, or a finished job's summary. */
function storedProgress(job: JobRecord): ProgressCounts {
  const summary = job.outcome?.summary;
  if (summary && job.state !== 'running' && job.state !== 'queued') {
    const total = Object.values(summary).reduce((a, b) => a + b, 0);
    // A cancelled job's orders that were never sent are not done.
    return { done: total - (summary.not_sent ?? 0), total, byStatus: summary };
  }
  return job.progress ?? { done: 0, total: job.expected, byStatus: {} };
}
