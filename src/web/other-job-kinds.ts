/**
 * Jobs of the ledger's queue that are not submissions (a reconciliation): the job runner leases,
 * renews and hands them over as it does submissions, and calls the kind's own run for the work.
 */
import type { JobOutcome, JobRecord } from '../ledger/index.js';
import type { Logger } from '../log.js';

/** What ran the job: how it ended, and what it tells. A run that throws is a failed job. */
export type OtherKindRun = (job: JobRecord) => Promise<{ state: 'done' | 'failed'; outcome: JobOutcome }>;

export async function runOtherKind(job: JobRecord, run: OtherKindRun | undefined, logger: Logger): Promise<{ state: 'done' | 'failed'; outcome: JobOutcome }> {
  if (!run) return { state: 'failed', outcome: { error: `This instance of order-batch cannot run jobs of the kind ${job.kind}.` } };
  logger.info({ job: job.id, kind: job.kind, starts: job.starts }, job.starts > 1 ? `resuming a ${job.kind} job` : `starting a ${job.kind} job`);
  try {
    return await run(job);
  } catch (error) {
    logger.error({ err: error, job: job.id, kind: job.kind }, 'job failed');
    return { state: 'failed', outcome: { error: 'Something went wrong inside order-batch (this is a bug; the server log has the details).' } };
  }
}
