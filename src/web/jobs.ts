/**
 * Submissions ("jobs"): one import run of an uploaded sheet, queued behind any other run of this
 * server, its progress kept in memory and its record on disk. A job whose server stopped before it
 * finished is recovered from the ledger on the next look: the run the ledger holds for its file.
 */
import { existsSync, readdirSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { ApiUnusableError, InputError, UsageError } from '../errors.js';
import { openLedger } from '../ledger/index.js';
import type { RunRecord } from '../ledger/types.js';
import type { Logger } from '../log.js';
import type { ImportResult } from '../commands/import.js';
import type { JsonOrder } from '../commands/json-report.js';
import { countOutcome, estimateSecondsLeft, type ProgressCounts } from './progress.js';
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
}

export interface JobView extends JobRecord {
  progress: ProgressCounts;
  etaSeconds: number | null;
}

export interface ImportRun {
  (job: JobRecord, outDir: string, onOrderDone: (done: number, total: number, status: string) => void): Promise<ImportResult>;
}

export interface JobRunner {
  /** Starts a job for the upload, or returns the one already queued or running for it. */
  submit(upload: { uploadId: string; fileName: string; file: string; sheet?: string; expected: number }): JobRecord;
  get(id: string): JobView | undefined;
  /** The id of the upload's queued or running job, if any. */
  activeFor(uploadId: string): string | undefined;
  /** Jobs by ledger run id, for the history page. */
  jobIdsByRun(): Map<string, string>;
  /** Resolves when every queued job has finished. */
  idle(): Promise<void>;
}

const JOB_FILE = 'job.json';
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

  const execute = async (entry: { record: JobRecord; progress: ProgressCounts; startedMs?: number }) => {
    const { record } = entry;
    record.state = 'running';
    entry.startedMs = monotonicNow();
    save(record);
    try {
      const result = await options.runImport(record, `${workDir.dirOf('jobs', record.id)}/`, (done, total, status) => {
        entry.progress = countOutcome(entry.progress, done, total, status);
      });
      Object.assign(record, finishedRecord(result, options.wallClock(), workDir.nameFilesIn));
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
    get(id) {
      const entry = live.get(id);
      if (entry) return view(entry.record, entry.progress, entry.startedMs);
      const stored = workDir.readJson<JobRecord>('jobs', id, JOB_FILE);
      if (!stored) return undefined;
      const record = stored.state === 'queued' || stored.state === 'running' ? recoverFromLedger(stored, options.ledgerPath) : stored;
      if (record !== stored) save(record);
      const done = record.summary ? Object.values(record.summary).reduce((a, b) => a + b, 0) : 0;
      return view(record, { done, total: done, byStatus: record.summary ?? {} });
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
  };
}

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

/** The server stopped while the job was queued or running: what the ledger knows of its run. */
function recoverFromLedger(record: JobRecord, ledgerPath: string): JobRecord {
  let run: RunRecord | undefined;
  if (existsSync(ledgerPath)) {
    const ledger = openLedger(ledgerPath);
    try {
      run = findRunOf(ledger.listRuns(500), record);
    } finally {
      ledger.close();
    }
  }
  const interrupted = 'The server stopped before this submission finished. Upload the sheet and submit again: the ledger makes sure no order is sent twice.';
  if (!run) return { ...record, state: 'interrupted', error: interrupted };
  if (!run.finishedAt) return { ...record, state: 'interrupted', runId: run.runId, error: interrupted };
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
  return error instanceof UsageError || error instanceof InputError || error instanceof ApiUnusableError;
}

/** A sentence for the page: the error's own for what the user can fix, a pointer to the log for a bug. */
export function userMessage(error: unknown): string {
  if (isUserError(error)) return (error as Error).message;
  return 'Something went wrong inside order-batch (this is a bug; the server log has the details).';
}
