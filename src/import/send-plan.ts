/**
 * The acting half of an import, once its run is registered: what the ledger knows and the API's facts
 * are read, the plan is made (plan-import.ts, pure) and set on the sheets, and its jobs are sent.
 */
import { apiUnusableOf } from '../api/unusable.js';
import { type Ledger, type LedgerRun } from '../ledger/index.js';
import type { Connection } from '../connection/connect.js';
import { fetchOnlineFacts, type OnlineFacts } from '../validate/online-checks.js';
import { applyPlan, candidatesToSend, idsToLookUp, ledgerJudge, outcomeView, planImport, type FileState, type Job } from './plan-import.js';
import type { ImportOptions } from './import-options.js';
import { runStopOf } from './send/send-decision.js';
import { submitOrders, type StopReason, type SubmitOutcome } from './send/submit.js';
import { createShareNotes } from './team-share.js';

type SendContext = ImportOptions & { client: Connection['client']; ledger: Ledger; run: LedgerRun };

/** Plans the import and sends what the plan says; returns why the run stopped, when that is the run's to report. */
export async function planAndSend(states: readonly FileState[], options: SendContext): Promise<StopReason | undefined> {
  const { ledger, logger } = options;
  // What the ledger knows comes before verdicts that depend on when the check runs: look up every
  // order that may go out, and every order invalid only because its date has aged since.
  const known = await ledger.getMany(idsToLookUp(states));
  const judge = ledgerJudge(known);
  const candidates = candidatesToSend(states, known);
  for (const { order, isAged } of candidates) {
    if (isAged) logger.debug({ customerOrderId: order.customerOrderId }, 'orderDate too old now, but the ledger holds this very order: not judged on its age');
  }

  let facts: OnlineFacts | undefined;
  let apiUnusable: StopReason | undefined;
  try {
    facts = await fetchOnlineFacts({
      client: options.client,
      // Orders this tool sent are not judged on today's facts: nothing to look up for them.
      payloads: candidates.flatMap((c) => (judge.isSentAsIs(c.payload) ? [] : [c.payload])),
      maxAttempts: options.maxAttempts,
      concurrency: options.concurrency,
      logger,
    });
  } catch (err) {
    apiUnusable = apiUnusableOf(err) ?? undefined;
    if (!apiUnusable) throw err;
    // The cron log's line for a run that stops before sending (submitOrders logs its own stops).
    logger.warn({ reason: apiUnusable.kind, orders: candidates.length }, `not sending: ${apiUnusable.message}; the orders are left for the next run`);
  }
  // Runs at once on a shared ledger: an order another run sent since `known` was read is in the
  // API now, and in the ledger too (recorded before its POST): read again, it is ours, not someone
  // else's; sending then finds it held by that run or already accepted.
  const sentMeanwhile = facts ? [...facts.existingOrderIds].filter((id) => !known.has(id)) : [];
  if (sentMeanwhile.length > 0) for (const [id, record] of await ledger.getMany(sentMeanwhile)) known.set(id, record);
  const plan = planImport(candidates, { facts: apiUnusable ? undefined : facts, apiUnusable, dryRun: options.dryRun, known, judge: sentMeanwhile.length > 0 ? ledgerJudge(known) : judge });
  applyPlan(plan);
  if (apiUnusable || plan.send.length === 0) return apiUnusable;
  return sendJobs(plan.send, options);
}

/**
 * Sends the jobs through the ledger and sets each one's outcome. Returns why sending stopped, when
 * that is the run's to report: interrupted, the ledger failed, or the API unusable (for "unavailable",
 * only when nothing at all was accepted: a run that sent some and left the rest says so per order).
 */
async function sendJobs(jobs: readonly Job[], options: SendContext): Promise<StopReason | undefined> {
  options.orderProgress?.start(jobs.length);
  let done = 0;
  // Every run passes the gate: a team cap stored in the ledger holds it whatever its own options, and may be set while it goes.
  const share = options.teamConcurrency;
  const onCap = createShareNotes({ share, isShared: options.ledger.backend === 'postgres', ledger: options.ledger.location, logger: options.logger });
  const gate = await options.ledger.openSendGate({ ...(share === undefined ? {} : { share }), onCap });
  const result = await submitOrders(jobs, {
    gate,
    client: options.client,
    ledger: options.ledger,
    run: options.run,
    concurrency: options.concurrency,
    maxAttempts: options.maxAttempts,
    logger: options.logger,
    backoff: options.backoff,
    ...(options.signal ? { signal: options.signal } : {}),
    onOutcome: (_job, outcome) => {
      done++;
      options.orderProgress?.tick(outcome.status);
      options.onOrderDone?.(done, jobs.length, outcome.status);
    },
  }).finally(() => gate.close());
  options.orderProgress?.stop();
  jobs.forEach((job, i) => {
    const outcome: SubmitOutcome = result.outcomes[i]!;
    job.state.outcomes[job.index] = outcomeView(
      outcome.status,
      [...job.issues, ...outcome.issues],
      { httpStatus: outcome.httpStatus, requestId: outcome.requestId, submittedAt: outcome.submittedAt },
      outcome.contentsDiffer === true,
    );
  });
  return runStopOf(result.stopped, result.outcomes);
}

