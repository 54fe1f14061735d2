/**
 * A reconciliation asked for on the page or through the API is a durable job of the ledger (kind
 * reconcile, its id the reconciliation's), as a submission is: whichever instance is free runs it
 * under a lease, every instance answers its state from the ledger while it is queued or running, and
 * one killed mid-run has it run again by another once the lease lapses (reconcile is read-only
 * against the API and idempotent in the ledger, so running it again is safe).
 */
import type { AuditEvent, JobOutcome, JobRecord, Ledger } from '../ledger/index.js';
import type { Logger } from '../log.js';
import type { JobRunner } from './jobs.js';
import type { OtherKindRun } from './other-job-kinds.js';
import type { Reconciler, ReconcileSnapshot } from './reconcile-runs.js';
import { isUserError, userMessage } from './user-message.js';
import { newId, type WorkDir } from './work-dir.js';

/** The job's name where a submission's holds its sheet's. */
const JOB_FILE_NAME = 'reconciliation';
/** How often a page waiting for its reconciliation asks the ledger. */
const WAIT_POLL_MS = 250;

export type ReconciliationState =
  | { state: 'queued' | 'running'; job: JobRecord }
  | { state: 'failed'; job: JobRecord; error: string }
  | { state: 'finished'; snapshot: ReconcileSnapshot };

/** Queues a reconciliation for `by`; `requestedVia` names the API token it came with (for the audit entry of its end). */
export function queueReconciliation(jobs: JobRunner, by: string, requestedVia: string | null): Promise<JobRecord> {
  const id = newId();
  return jobs.queue({ id, kind: 'reconcile', requestedVia, uploadId: id, fileName: JOB_FILE_NAME, fileSha256: null, sheet: null, createdBy: by, expected: 0 });
}

/** What every instance knows of a reconciliation: its job's state, then its snapshot once finished. */
export async function readReconciliation(services: { jobs: JobRunner; reconciler: Reconciler }, id: string): Promise<ReconciliationState | undefined> {
  const job = await services.jobs.get(id);
  if (job && job.kind !== 'reconcile') return undefined;
  if (job && (job.state === 'queued' || job.state === 'running')) return { state: job.state, job };
  if (job && job.state !== 'done') return { state: 'failed', job, error: job.outcome?.error ?? 'The reconciliation was stopped before it finished.' };
  const snapshot = await services.reconciler.get(id);
  return snapshot ? { state: 'finished', snapshot } : undefined;
}

/** The reconciliation queued or running now, if any (the page says so on every instance). */
export async function activeReconciliation(ledger: Pick<Ledger, 'jobs'>): Promise<JobRecord | undefined> {
  return (await ledger.jobs.list(50)).find((job) => job.kind === 'reconcile' && (job.state === 'queued' || job.state === 'running'));
}

/** The job runner's part for reconcile jobs: the reconciler run under the job's id. */
export function reconcileJobRun(reconciler: Reconciler, workDir: WorkDir, logger: Logger): OtherKindRun {
  return async (job) => {
    try {
      const snapshot = await reconciler.run(job.id);
      return { state: 'done', outcome: { summary: snapshot.summary, resultFile: snapshot.workbook, notice: `as of ${snapshot.asOf}` } };
    } catch (error) {
      if (!isUserError(error)) logger.error({ err: error, job: job.id }, 'reconciliation failed');
      return { state: 'failed', outcome: { error: workDir.nameFilesIn(userMessage(error)) } };
    }
  };
}

/**
 * Waits until the job has ended (as the ledger says, whichever instance runs it), or until `isGone`
 * says nobody waits any more (the browser left); the job's record then, or undefined if it vanished.
 */
export async function waitForJobEnd(jobs: JobRunner, id: string, isGone: () => boolean): Promise<JobRecord | undefined> {
  for (;;) {
    const job = await jobs.get(id);
    if (!job || (job.state !== 'queued' && job.state !== 'running') || isGone()) return job;
    await new Promise((resolve) => setTimeout(resolve, WAIT_POLL_MS));
  }
}

/** The audit entry of a reconciliation's end, under who asked for it (the instance that ran it may be another), with the token it came with. */
export function reconcileAuditOf(job: JobRecord, state: 'done' | 'failed' | 'cancelled', outcome: JobOutcome): AuditEvent {
  const what = state === 'done' ? (outcome.notice ?? null) : `${state}: ${outcome.error ?? 'stopped'}`;
  return {
    actor: job.createdBy,
    via: 'web',
    address: null,
    action: 'reconcile',
    fileName: state === 'done' ? (outcome.resultFile ?? null) : null,
    counts: outcome.summary ?? null,
    ref: job.id,
    detail: [what, job.starts > 1 ? `after ${job.starts} starts` : null, job.requestedVia].filter(Boolean).join('; '),
  };
}
