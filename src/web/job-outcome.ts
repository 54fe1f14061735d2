/**
 * What a finished submission tells, from its import's report (pure). A job resumed after its instance
 * stopped or died runs the import again: orders its first start got accepted then read
 * already_submitted now, and are counted as this submission's accepted orders. A cancelled job's
 * orders that were never sent read not_sent.
 */
import { basename } from 'node:path';
import type { ImportResult } from '../import/run-import.js';
import type { JobOutcome, JobRecord } from '../ledger/index.js';
import type { JsonOrder } from '../run-report/json.js';

const MAX_ORDERS_KEPT = 5_000;
const NOT_SENT = /^Not sent: the run stopped early/;

export function jobOutcomeOf(result: ImportResult, job: Pick<JobRecord, 'startedAt'>, options: { isCancelled: boolean; nameFiles: (text: string) => string }): JobOutcome {
  const { nameFiles } = options;
  const statuses: string[] = [];
  const orders = (result.report.orders as JsonOrder[]).map((o) => {
    const messages = [...new Set(o.issues.filter((i) => i.severity === 'error').map((i) => nameFiles(i.message)))];
    let status = o.status;
    if (status === 'already_submitted' && job.startedAt && o.submittedAt && o.submittedAt >= job.startedAt) status = 'accepted';
    if (options.isCancelled && status === 'failed' && o.httpStatus === undefined && messages.some((m) => NOT_SENT.test(m))) status = 'not_sent';
    statuses.push(status);
    return { customerOrderId: o.customerOrderId, rows: o.rows, status, messages: status === 'not_sent' ? ['Not sent: the submission was cancelled first.'] : messages };
  });
  const summary: Record<string, number> = {};
  for (const status of statuses) summary[status] = (summary[status] ?? 0) + 1;
  for (const status of Object.keys(result.report.summary)) summary[status] ??= 0;
  const output = Array.isArray(result.report.output) ? result.report.output[0] : result.report.output;
  const input = result.report.input[0];
  const notices = [
    ...(result.apiUnusable ? [`The run stopped early: ${nameFiles(result.apiUnusable.message)}. Submit again once the API answers again; nothing is sent twice.`] : []),
    ...(result.ledgerFailure ? [`The run stopped early: ${nameFiles(result.ledgerFailure.message)}`] : []),
    // The outcomes stand (the ledger has them), but the result file is missing: the page must say why.
    ...(result.report.outputErrors ?? []).map((e) => `The outcomes below stand, but ${nameFiles(e.message)}`),
  ];
  return {
    summary,
    orders: orders.slice(0, MAX_ORDERS_KEPT),
    ...(output ? { resultFile: basename(output) } : {}),
    ...(input?.error ? { error: nameFiles(input.error.message) } : {}),
    ...(notices.length > 0 ? { notice: notices.join(' ') } : {}),
  };
}
