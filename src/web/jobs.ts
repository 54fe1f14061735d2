/**
 * Submissions ("jobs"): one import run of an uploaded sheet, queued behind any other run of this
 * server, its progress kept in memory and its record on disk. A job whose server stopped before it
 * finished is recovered from the ledger on the next look: the run the ledger holds for its file.
 * Stopping the server stops its jobs as Ctrl-C stops the CLI's import: nothing more is sent, the
 * orders in flight get their answers, the result is written, and queued jobs never start.
 */
import { existsSync, readdirSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { apiUnusableOf } from '../api/unusable.js';
import { ApiUnusableError, InputError, UsageError } from '../errors.js';
import { ledgerExists, openLedger } from '../ledger/index.js';
import type { OrderRecord, RunRecord } from '../ledger/types.js';
import type { Ledger } from '../ledger/types.js';
import type { Logger } from '../log.js';
import type { ImportResult } from '../commands/import.js';
import type { JsonOrder } from '../run-report/json.js';
import { countOutcome, estimateSecondsLeft, type ProgressCounts } from './progress.js';
import { VERDICT_FILE } from './uploads.js';
import { validOrderIds, type Verdict } from './verdict.js';
import { newId, type WorkDir } from './work-dir.js';

export type JobState = 'queued' | 'running' | 'done' | 'failed' | 'interrupted';

export interface JobOrder {
  customerOrderId: string | null;
  rows: number[];
  status: string;
  /** The order's errors, each once (an order-level error is reported on each of its rows). */
  messages: string[];
}

/** What is kept on disk (job.json in the job's folder). */
export interface JobRecord {
  id: string;
  uploadId: string;
  fileName: string;
  /** The stored upload (inside the work folder). */
  file: string;
  sheet?: string;
  createdAt: string;
  state: JobState;
  /** Valid orders when the job was created (the total until the run knows its own). */
  expected: number;
  runId?: string;
  finishedAt?: string;
  summary?: Record<string, number>;
  /** The result workbook's name inside the job's folder. */
  resultFile?: string;
  orders?: JobOrder[];
  /** Why the job could not run, or stopped early. */
  error?: string;
  notice?: string;
  /**
   * An interrupted job: what the ledger held of its orders when the job was recovered (accepted,
   * rejected, failed, already_submitted, and `sending`: sent or about to be, outcome unknown).
   */
  ledgerCounts?: Record<string, number>;
}

export interface JobView extends JobRecord {
  progress: ProgressCounts;
  etaSeconds: number | null;
}

export interface ImportRun {
  /** `signal` is aborted when the server stops: send nothing more, let the orders in flight finish, write the result. */
  (job: JobRecord, outDir: string, onOrderDone: (done: number, total: number, status: string) => void, signal: AbortSignal): Promise<ImportResult>;
}

/** What stopping the server did to its jobs. */
export interface JobsStopped {
  /** The job that was running, as it ended (its summary counts the orders not sent as failed). */
  running?: Pick<JobRecord, 'id' | 'fileName' | 'state' | 'summary' | 'error'> & {
    /** It had orders left to send when it was stopped (the summary counts them failed). */
    isCutShort: boolean;
  };
  /** Jobs that were queued: none of their orders was sent. */
  notStarted: { id: string; fileName: string }[];
}

/** What serve prints (one line each) once a stop has wound the jobs down. */
export function describeStopped(stopped: JobsStopped): string[] {
  const lines: string[] = [];
  if (stopped.running) {
    const { fileName, summary, error, isCutShort } = stopped.running;
    const counts = Object.entries(summary ?? {}).filter(([, n]) => n > 0).map(([status, n]) => `${n} ${status.replace(/_/g, ' ')}`).join(', ') || 'no orders';
    lines.push(
      error
        ? `the submission of ${fileName} could not run: ${error}`
        : isCutShort
          ? `the submission of ${fileName} was stopped (${counts}; the orders not sent are among the failed): submit the sheet again to send them, nothing is sent twice.`
          : `the submission of ${fileName} finished: ${counts}.`,
    );
  }
  for (const job of stopped.notStarted) lines.push(`the queued submission of ${job.fileName} was not started; submit it again.`);
  return [...lines, 'stopped.'];
}

export interface JobRunner {
  /** Starts a job for the upload, or returns the one already queued or running for it. */
  submit(upload: { uploadId: string; fileName: string; file: string; sheet?: string; expected: number }): JobRecord;
  get(id: string): Promise<JobView | undefined>;
  /** The id of the upload's queued or running job, if any. */
  activeFor(uploadId: string): string | undefined;
  /** Jobs by ledger run id, for the history page. */
  jobIdsByRun(): Map<string, string>;
  /** Resolves when every queued job has finished. */
  idle(): Promise<void>;
  /**
   * Stops as Ctrl-C stops the CLI's import: the running job sends nothing more (its orders in
   * flight get their answers and its result is written), queued jobs and any submitted later never
   * start and say so. Resolves once the running job has finished. Safe to call twice.
   */
  stop(): Promise<JobsStopped>;
}

const JOB_FILE = 'job.json';
const NOT_STARTED = 'The server was stopped before this submission started: none of its orders were sent. Upload the sheet and submit again.';
const MAX_ORDERS_KEPT = 5_000;

export function createJobRunner(options: {
  workDir: WorkDir;
  ledgerPath: string;
  runImport: ImportRun;
  /** Runs one task at a time: imports and reconciliations share the ledger's run lock. */
  serialize: <T>(task: () => Promise<T>) => Promise<T>;
  wallClock: () => Date;
  /** For the ETA; default performance.now. */
  monotonicNow?: () => number;
  logger: Logger;
}): JobRunner {
  const { workDir, logger } = options;
  const monotonicNow = options.monotonicNow ?? (() => performance.now());
  const live = new Map<string, { record: JobRecord; progress: ProgressCounts; startedMs?: number; finished: Promise<void> }>();
  const save = (record: JobRecord) => workDir.writeJson('jobs', record.id, JOB_FILE, record);
  const stopping = new AbortController();
  let stopped: Promise<JobsStopped> | undefined;
  const cutShort = new Set<string>();

  const markNotStarted = (record: JobRecord) => {
    record.state = 'interrupted';
    record.finishedAt = options.wallClock().toISOString();
    record.error = NOT_STARTED;
    save(record);
  };

  const execute = async (entry: { record: JobRecord; progress: ProgressCounts; startedMs?: number }) => {
    const { record } = entry;
    if (stopping.signal.aborted) {
      if (record.state === 'queued') markNotStarted(record);
      return;
    }
    record.state = 'running';
    entry.startedMs = monotonicNow();
    save(record);
    try {
      const result = await options.runImport(record, `${workDir.dirOf('jobs', record.id)}/`, (done, total, status) => {
        entry.progress = countOutcome(entry.progress, done, total, status);
      }, stopping.signal);
      Object.assign(record, finishedRecord(result, options.wallClock(), workDir.nameFilesIn));
      if (result.interrupted) cutShort.add(record.id);
    } catch (error) {
      record.state = 'failed';
      record.finishedAt = options.wallClock().toISOString();
      record.error = workDir.nameFilesIn(userMessage(error));
      if (!isUserError(error)) logger.error({ err: error, job: record.id }, 'submission failed');
    }
    save(record);
    logger.info({ job: record.id, state: record.state, summary: record.summary }, 'submission finished');
  };

  const view = (record: JobRecord, progress: ProgressCounts, startedMs?: number): JobView => {
    const elapsed = startedMs === undefined ? 0 : monotonicNow() - startedMs;
    const etaSeconds = record.state === 'running' ? estimateSecondsLeft(progress.done, progress.total, elapsed) : null;
    return { ...record, progress, etaSeconds };
  };

  const activeFor = (uploadId: string) => {
    for (const entry of live.values()) {
      if (entry.record.uploadId === uploadId && (entry.record.state === 'queued' || entry.record.state === 'running')) return entry.record;
    }
    return undefined;
  };

  return {
    activeFor: (uploadId) => activeFor(uploadId)?.id,
    submit(upload) {
      const active = activeFor(upload.uploadId);
      if (active) return active;
      const record: JobRecord = {
        id: newId(),
        uploadId: upload.uploadId,
        fileName: upload.fileName,
        file: upload.file,
        ...(upload.sheet ? { sheet: upload.sheet } : {}),
        createdAt: options.wallClock().toISOString(),
        state: 'queued',
        expected: upload.expected,
      };
      save(record);
      const entry = { record, progress: { done: 0, total: upload.expected, byStatus: {} } as ProgressCounts, finished: Promise.resolve() };
      entry.finished = options.serialize(() => execute(entry));
      live.set(record.id, entry);
      return record;
    },
    async get(id) {
      const entry = live.get(id);
      if (entry) return view(entry.record, entry.progress, entry.startedMs);
      const stored = workDir.readJson<JobRecord>('jobs', id, JOB_FILE);
      if (!stored) return undefined;
      const record = stored.state === 'queued' || stored.state === 'running' ? await recoverFromLedger(stored, options.ledgerPath, () => uploadOrderIds(workDir, stored.uploadId)) : stored;
      if (record !== stored) save(record);
      return view(record, storedProgress(record));
    },
    jobIdsByRun() {
      const map = new Map<string, string>();
      for (const entry of live.values()) if (entry.record.runId) map.set(entry.record.runId, entry.record.id);
      const dir = join(workDir.root, 'jobs');
      if (!existsSync(dir)) return map;
      for (const id of readdirSync(dir)) {
        const record = live.get(id)?.record ?? workDir.readJson<JobRecord>('jobs', id, JOB_FILE);
        if (record?.runId) map.set(record.runId, record.id);
      }
      return map;
    },
    async idle() {
      await Promise.all([...live.values()].map((e) => e.finished));
    },
    stop() {
      stopped ??= (async () => {
        stopping.abort();
        const entries = [...live.values()];
        const running = entries.find((e) => e.record.state === 'running');
        // Marked at once, not when their turn comes: a second Ctrl-C may end the process before then.
        const notStarted = entries.filter((e) => e.record.state === 'queued');
        for (const entry of notStarted) markNotStarted(entry.record);
        await Promise.all(entries.map((e) => e.finished));
        const ended = running?.record;
        return {
          ...(ended
            ? {
                running: {
                  id: ended.id,
                  fileName: ended.fileName,
                  state: ended.state,
                  isCutShort: cutShort.has(ended.id),
                  ...(ended.summary ? { summary: ended.summary } : {}),
                  ...(ended.error ? { error: ended.error } : {}),
                },
              }
            : {}),
          notStarted: notStarted.map((e) => ({ id: e.record.id, fileName: e.record.fileName })),
        };
      })();
      return stopped;
    },
  };
}

/** A job no longer in memory: a finished one's summary, or what an interrupted one's ledger records say of its total. */
function storedProgress(record: JobRecord): ProgressCounts {
  if (record.summary) {
    const done = Object.values(record.summary).reduce((a, b) => a + b, 0);
    return { done, total: done, byStatus: record.summary };
  }
  const byStatus = record.ledgerCounts ?? {};
  const done = ANSWERED.reduce((sum, status) => sum + (byStatus[status] ?? 0), 0);
  return { done, total: Math.max(record.expected, done), byStatus };
}

/** Outcomes that end an order's part in a run (`sending` does not: its answer never came). */
const ANSWERED = ['accepted', 'rejected', 'failed', 'already_submitted'] as const;

/** `nameFiles` turns the server's paths in the import's messages into the files' names (WorkDir.nameFilesIn). */
function finishedRecord(result: ImportResult, now: Date, nameFiles: (text: string) => string): Partial<JobRecord> {
  const output = Array.isArray(result.report.output) ? result.report.output[0] : result.report.output;
  const orders = (result.report.orders as JsonOrder[]).slice(0, MAX_ORDERS_KEPT).map((o) => ({
    customerOrderId: o.customerOrderId,
    rows: o.rows,
    status: o.status,
    messages: [...new Set(o.issues.filter((i) => i.severity === 'error').map((i) => nameFiles(i.message)))],
  }));
  const input = result.report.input[0];
  const notices = [
    ...(result.interrupted
      ? ['The server was stopped during this submission: it sent nothing more, and the orders it had not sent are marked failed ("Not sent"). Upload the sheet and submit again to send them; nothing is sent twice.']
      : []),
    ...(result.ledgerFailure ? [`The run stopped early: ${nameFiles(result.ledgerFailure.message)}`] : []),
    ...(result.apiUnusable ? [`The run stopped early: ${nameFiles(result.apiUnusable.message)}. Submit again once the API answers again; nothing is sent twice.`] : []),
    // The outcomes stand (the ledger has them), but the result file is missing: the page must say why.
    ...(result.report.outputErrors ?? []).map((e) => `The outcomes below stand, but ${nameFiles(e.message)}`),
  ];
  return {
    state: input?.error ? 'failed' : 'done',
    finishedAt: now.toISOString(),
    summary: result.report.summary,
    orders,
    ...(result.runId ? { runId: result.runId } : {}),
    ...(output ? { resultFile: basename(output) } : {}),
    ...(input?.error ? { error: nameFiles(input.error.message) } : {}),
    ...(notices.length > 0 ? { notice: notices.join(' ') } : {}),
  };
}

/**
 * The server stopped while the job was queued or running: what the ledger knows of its run, and
 * for a run cut short, where each of the upload's valid orders stands (`orderIds`, read from the
 * upload's verdict: a lookup by key, never a scan of the ledger).
 */
async function recoverFromLedger(record: JobRecord, ledgerPath: string, orderIds: () => string[] | undefined): Promise<JobRecord> {
  let run: RunRecord | undefined;
  let ledgerCounts: Record<string, number> | undefined;
  if (ledgerExists(ledgerPath)) {
    const ledger = await openLedger(ledgerPath);
    try {
      run = findRunOf(await ledger.listRuns(500), record);
      const ids = run && !run.finishedAt ? orderIds() : undefined;
      if (run && ids) ledgerCounts = await countRunOrders(ledger, run, ids);
    } finally {
      await ledger.close();
    }
  }
  const interrupted = 'The server stopped before this submission finished. Upload the sheet and submit again: the ledger makes sure no order is sent twice.';
  if (!run) return { ...record, state: 'interrupted', error: interrupted };
  if (!run.finishedAt) return { ...record, state: 'interrupted', runId: run.runId, error: interrupted, ...(ledgerCounts ? { ledgerCounts } : {}) };
  const summary = isCounts(run.summary) ? run.summary : undefined;
  const resultFile = run.resultFiles[0];
  return {
    ...record,
    state: 'done',
    runId: run.runId,
    finishedAt: run.finishedAt,
    ...(summary ? { summary } : {}),
    ...(resultFile ? { resultFile: basename(resultFile) } : {}),
  };
}

/** Where the orders of a run cut short stand in the ledger; orders it never reached are left out. */
async function countRunOrders(ledger: Pick<Ledger, 'getMany'>, run: Pick<RunRecord, 'runId' | 'startedAt'>, orderIds: readonly string[]): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  const add = (status: string) => (counts[status] = (counts[status] ?? 0) + 1);
  for (const order of (await ledger.getMany(orderIds)).values()) {
    const status = runStatusOf(order, run);
    if (status) add(status);
  }
  return counts;
}

function runStatusOf(order: OrderRecord, run: Pick<RunRecord, 'runId' | 'startedAt'>): string | undefined {
  if (order.state === 'accepted' && order.submittedAt !== null && order.submittedAt < run.startedAt) return 'already_submitted';
  if (order.runId !== run.runId) return undefined;
  switch (order.state) {
    case 'accepted':
    case 'rejected':
    case 'failed':
      return order.state;
    case 'sending':
    case 'unknown':
      return 'sending';
    default:
      return undefined;
  }
}

/** The newest import run of this job's file that started after the job did (runs come newest first). */
export function findRunOf(runs: readonly RunRecord[], record: Pick<JobRecord, 'file' | 'createdAt'>): RunRecord | undefined {
  const file = resolve(record.file);
  const since = Date.parse(record.createdAt) - 1_000;
  return runs.find((run) => run.command.startsWith('import') && Date.parse(run.startedAt) >= since && run.files.some((f) => resolve(f.file) === file));
}

function isCounts(value: unknown): value is Record<string, number> {
  return typeof value === 'object' && value !== null && Object.values(value).every((v) => typeof v === 'number');
}

export function isUserError(error: unknown): boolean {
  return error instanceof UsageError || error instanceof InputError || apiUnusableOf(error) !== null;
}

/** A sentence for the page: the error's own for what the user can fix, a pointer to the log for a bug. */
export function userMessage(error: unknown): string {
  const unusable = apiUnusableOf(error);
  if (unusable) return error instanceof ApiUnusableError ? error.message : `The fulfillment API could not be used: ${unusable.message}.`;
  if (isUserError(error)) return (error as Error).message;
  return 'Something went wrong inside order-batch (this is a bug; the server log has the details).';
}

/** The valid orders of the upload a job submits, from its verdict (undefined when the verdict is gone). */
function uploadOrderIds(workDir: WorkDir, uploadId: string): string[] | undefined {
  const verdict = workDir.readJson<Pick<Verdict, 'orders'>>('uploads', uploadId, VERDICT_FILE);
  return verdict?.orders ? validOrderIds(verdict) : undefined;
}
