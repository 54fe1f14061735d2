/**
 * How much work one system may pile up through the API, beyond the pages' own limits (the upload
 * size, the checks at once, one job at a time per instance): a script looping over a folder or
 * retrying in a tight loop is told to wait (429 with Retry-After) instead of growing a line of
 * checks in one instance, or of submissions in the ledger, without end.
 */
import type { Ledger } from '../../ledger/index.js';
import type { CheckQueue } from '../check-queue.js';

export const DEFAULT_WAITING_CHECKS = 100;
export const DEFAULT_JOBS_PER_ACCOUNT = 20;
/** Seconds to wait before uploading again once the line of checks is full: a check takes seconds. */
export const WAITING_CHECKS_RETRY_SECONDS = 10;
/** Seconds to wait before submitting again once the account's submissions are at their limit. */
export const JOBS_RETRY_SECONDS = 30;

/** Why an upload must wait, or null when there is room in the line of checks. */
export function checkLineFull(checks: CheckQueue, limit = DEFAULT_WAITING_CHECKS): string | null {
  if (checks.waitingCount < limit) return null;
  return `${checks.waitingCount} uploads already wait their turn to be checked here (at most ${limit}): upload this one again in a few seconds, or ask each sheet's state before sending the next.`;
}

/** Why the account may not queue another submission now, or null. */
export async function jobsAtLimit(jobs: Ledger['jobs'], account: string, limit = DEFAULT_JOBS_PER_ACCOUNT): Promise<string | null> {
  const active = (await jobs.list(500)).filter((job) => job.kind === 'submit' && job.createdBy === account && (job.state === 'queued' || job.state === 'running')).length;
  if (active < limit) return null;
  return `${account} has ${active} submissions queued or running (at most ${limit}): submit again once one has finished (follow them at /api/v1/jobs/{id}).`;
}
