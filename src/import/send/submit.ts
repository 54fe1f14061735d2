/**
 * Submitting valid orders (PRODUCT.md section 5): every order recorded in the ledger before it is
 * sent and after it is answered; an order whose outcome is unknown is looked up with GET before it
 * is ever sent again; retries only for what is transient, with backoff and full jitter; the run
 * slows down and stops early when the API fails wholesale; 401 is the client's (one refresh),
 * a refused token or a 403 stops the run.
 *
 * This is the loop that applies send-decision.ts's decisions: it makes the requests, commits what
 * the ledger is told to record, and sleeps when told to.
 */
import pLimit from 'p-limit';
import { setTimeout as sleepFor } from 'node:timers/promises';
import { createFailureGuard, type FailureGuard } from '../../api/breaker.js';
import { DEFAULT_BACKOFF } from '../../api/retry.js';
import { failingWholesale } from '../../api/unusable.js';
import type { ApiClient } from '../../api/types.js';
import { hashPayload, type Ledger, type LedgerRun, type SendGate } from '../../ledger/index.js';
import type { Logger } from '../../log.js';
import { createAcceptedBatch } from './accepted-batch.js';
import { createJobOutcomes, type JobOutcomes } from './job-outcomes.js';
import { createHolderNames, type HolderNames } from './holder-names.js';
import { alreadySubmittedOutcome, duplicateOutcome, inProgressElsewhereOutcome, notSentOutcome } from './outcomes.js';
import { createSendAhead, type SendAhead } from './send-ahead.js';
import {
  decideAfterLedgerError,
  decideAfterLookup,
  decideAfterLookupError,
  decideAfterPost,
  decideAfterTakeover,
  finishSending,
  ledgerStopOf,
  startSending,
  strongerStop,
  takeoverOf,
  type LedgerMark,
  type LookupResult,
  type PostResult,
  type SendStep,
  type SendState,
} from './send-decision.js';
import { createSendLog, type SendLog } from './send-log.js';
import type { StopReason, SubmissionJob, SubmitOutcome } from './types.js';

export type { StopReason, SubmissionJob, SubmitOutcome, SubmitStatus } from './types.js';

export interface SubmitOptions {
  client: ApiClient;
  /** Read from (what an order looked up now holds, what is left unknown at the end). */
  ledger: Ledger;
  /** The run every transition is recorded by. */
  run: LedgerRun;
  concurrency: number;
  maxAttempts: number;
  logger: Logger;
  /** Milliseconds since the epoch; default Date.now. */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  guard?: FailureGuard;
  backoff?: { baseMs: number; maxMs: number };
  onOutcome?: (job: SubmissionJob, outcome: SubmitOutcome) => void;
  /** Bounds the POSTs in flight: the run's share within the ledger's team cap (SendGate); none: only `concurrency`. */
  gate?: SendGate;
  /**
   * Aborted: send nothing more. Orders in flight get their answer (or their lookup) and are
   * recorded; orders waiting, or pausing between attempts, are reported not sent.
   */
  signal?: AbortSignal;
}

export interface SubmitResult {
  outcomes: SubmitOutcome[];
  stopped?: StopReason;
}

/**
 * Everything the loop holds for one run, in one place: what it was handed, the guard and the log,
 * the helpers that keep each order's ledger work, and `status`, the only part that changes: why the
 * run stopped sending, and the bug that ended it.
 */
interface SendRun {
  jobs: readonly SubmissionJob[];
  options: SubmitOptions;
  now: () => number;
  random: () => number;
  backoff: { baseMs: number; maxMs: number };
  sleep: (ms: number) => Promise<void>;
  guard: FailureGuard;
  log: SendLog;
  accepted: ReturnType<typeof createAcceptedBatch>;
  settled: JobOutcomes;
  holders: HolderNames;
  ahead: SendAhead;
  status: { stopped?: StopReason; crashed?: { error: unknown } };
}

/** One order under way: where its sending stands (read after a takeover for the POSTs it made). */
interface OrderInFlight {
  state: SendState;
}

export async function submitOrders(jobs: readonly SubmissionJob[], options: SubmitOptions): Promise<SubmitResult> {
  const r = startSendRun(jobs, options);
  r.log.started();
  const limit = pLimit(options.concurrency);
  const results = await Promise.allSettled(jobs.map((job, index) => limit(() => runJob(r, job, index))));
  // A ledger that failed leaves these marks unwritten: the orders stay 'sending', and the next run looks each one up.
  const unsent = await r.ahead.finish();
  await whenLedgerWorks(r, () => r.accepted.flush());
  if (unsent.length > 0) await whenLedgerWorks(r, () => options.run.releaseUnsent(unsent));
  if (r.status.crashed) throw r.status.crashed.error;
  const outcomes = results.map((s) => (s.status === 'fulfilled' ? s.value : unreachable()));
  const unknown = (await whenLedgerWorks(r, () => countUnknown(jobs, outcomes, options.ledger))) ?? 0;
  const { stopped } = r.status;
  r.log.finished({ ...countOutcomes(outcomes), unknown, ...(stopped ? { stopped } : {}) });
  return stopped ? { outcomes, stopped } : { outcomes };
}

function startSendRun(jobs: readonly SubmissionJob[], options: SubmitOptions): SendRun {
  const now = options.now ?? Date.now;
  const { signal, logger, run } = options;
  const interrupted = new Promise<void>((resolve) => signal?.addEventListener('abort', () => resolve(), { once: true }));
  // A pause between attempts ends early when the run is interrupted; the loop then sees it stopped.
  const sleep = (ms: number): Promise<void> => {
    if (options.sleep) return signal ? Promise.race([options.sleep(ms), interrupted]) : options.sleep(ms);
    return sleepFor(ms, undefined, signal ? { signal } : {}).catch(() => undefined);
  };
  const guard = options.guard ?? createFailureGuard({ now });
  const status: SendRun['status'] = {};
  return {
    jobs,
    options,
    now,
    random: options.random ?? Math.random,
    backoff: options.backoff ?? DEFAULT_BACKOFF,
    sleep,
    guard,
    log: createSendLog(logger, guard, { orders: jobs.length, concurrency: options.concurrency, maxAttempts: options.maxAttempts, now }),
    accepted: createAcceptedBatch(run, logger),
    settled: createJobOutcomes(jobs),
    holders: createHolderNames(options.ledger),
    // The ledger's work for each order, done just ahead of its POST.
    ahead: createSendAhead(jobs, { run, logger, isStopped: () => Boolean(status.stopped || status.crashed || signal?.aborted) }),
    status,
  };
}

/** The run stops sending for `reason` unless a stronger one stopped it already (strongerStop); logged once. */
function stopRun(r: SendRun, reason: StopReason): void {
  const stopped = strongerStop(r.status.stopped, reason);
  if (stopped === r.status.stopped) return;
  r.status.stopped = stopped;
  r.log.stopped(stopped);
}

function checkInterrupted(r: SendRun): void {
  if (r.options.signal?.aborted) stopRun(r, { kind: 'interrupted', message: 'the run was interrupted' });
}

/** One job from start to outcome; a ledger failure settles it as not settled and stops the run, a bug ends the run. */
async function runJob(r: SendRun, job: SubmissionJob, index: number): Promise<SubmitOutcome> {
  try {
    const outcome = await submitOne(r, job, index);
    r.settled.settle(index, outcome);
    r.options.onOutcome?.(job, outcome);
    return outcome;
  } catch (error) {
    // The ledger's storage failed (a full disk, a damaged file): this order is not settled, and none goes out after it.
    const ledgerFailed = decideAfterLedgerError(error, job);
    if (ledgerFailed) {
      stopRun(r, ledgerFailed.stop);
      r.settled.settle(index, ledgerFailed.outcome);
      r.options.onOutcome?.(job, ledgerFailed.outcome);
      return ledgerFailed.outcome;
    }
    // A bug: the orders not yet started are not sent; those in flight finish.
    r.status.crashed ??= { error };
    r.settled.settle(index, null);
    throw error;
  } finally {
    r.ahead.settle(index);
  }
}

async function submitOne(r: SendRun, job: SubmissionJob, index: number): Promise<SubmitOutcome> {
  const id = job.payload.orderDetails.customerOrderId;
  const { ledger } = r.options;
  checkInterrupted(r);
  if (r.status.stopped) return notSentOutcome(job, `the run stopped early (${r.status.stopped.message}).`);
  if (r.status.crashed) return notSentOutcome(job, 'the run stopped after an unexpected error.');
  const decision = await r.ahead.decisionFor(index);
  if (decision.action === 'duplicate_in_run') return duplicateInRun(r, job, index);
  if (decision.action === 'already_submitted') return alreadySubmittedOutcome(job, decision, (await ledger.get(id)) ?? decision.record);
  if (decision.action === 'in_progress_elsewhere') return inProgressElsewhereOutcome(job, await r.holders.describe(decision.record.runId));

  const order: OrderInFlight = { state: startSending(decision) };
  try {
    return await sendOne(r, job, index, order);
  } catch (error) {
    const takeover = takeoverOf(error);
    if (!takeover) throw error;
    const record = (await ledger.get(id)) ?? null;
    const holder = takeover === 'claim_lost' ? await r.holders.describe(record?.runId ?? null) : '';
    const outcome = decideAfterTakeover(takeover, { job, record, holder, posts: order.state.posts });
    if (!outcome) throw error;
    return outcome;
  }
}

/**
 * Another copy of the order, in another file or sheet of this run, went out first: this copy is not
 * sent, and takes its fate from that copy's (waited for: jobs start in order, so it is under way).
 */
async function duplicateInRun(r: SendRun, job: SubmissionJob, index: number): Promise<SubmitOutcome> {
  const first = r.settled.firstIndexOf(job.payload.orderDetails.customerOrderId);
  if (first === undefined || first >= index) return notSentOutcome(job, 'another copy of this order is in this run.');
  const firstJob = r.jobs[first]!;
  const firstOutcome = await r.settled.outcomeOf(first);
  if (firstOutcome === null) return notSentOutcome(job, 'the run stopped after an unexpected error.');
  return duplicateOutcome(job, firstJob, firstOutcome, hashPayload(job.payload) === hashPayload(firstJob.payload));
}

/** The attempts at one order, from its ledger decision to its outcome; `order.state` follows where it stands. */
async function sendOne(r: SendRun, job: SubmissionJob, index: number, order: OrderInFlight): Promise<SubmitOutcome> {
  const id = job.payload.orderDetails.customerOrderId;
  const { maxAttempts } = r.options;
  const apply = async (step: SendStep, error?: unknown): Promise<SendStep> => {
    await applyStep(r, id, step, error);
    order.state = step.state;
    return step;
  };
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    const pause = r.guard.delayBeforeNextMs();
    if (pause > 0) await r.sleep(pause);
    checkInterrupted(r);
    if (r.guard.shouldStop()) stopRun(r, failingWholesale(r.log.lastTrouble()));
    if (r.status.stopped) break;

    if (order.state.mustLookUp) {
      const step = await apply(decideAfterLookup(order.state, await lookup(r, id), job));
      if (step.next.kind === 'done') return complete(r, id, step.next);
      if (step.next.kind === 'give_up') break;
    }

    const result = await postOnce(r, job, index, order);
    if (result === null) break;
    const error = result.ok ? undefined : result.error;
    let step = await apply(decideAfterPost(order.state, result, { job, attempt, maxAttempts, backoff: r.backoff, random: r.random }), error);
    if (step.next.kind === 'verify_duplicate') step = await apply(decideAfterLookup(order.state, await lookup(r, id), job));
    if (step.next.kind === 'done') return complete(r, id, step.next);
    if (step.next.kind === 'raise') throw error;
    r.options.logger.debug({ customerOrderId: id, attempt, status: order.state.lastStatus, unknown: order.state.mustLookUp }, 'create order failed; will retry');
    if (step.next.kind === 'retry') await r.sleep(step.next.delayMs);
  }
  const end = finishSending(order.state, job, r.status.stopped);
  await record(r, id, end.mark);
  return end.outcome;
}

/** One POST through the gate, recorded as sending first; null when the run was interrupted while it waited at the gate. */
async function postOnce(r: SendRun, job: SubmissionJob, index: number, order: OrderInFlight): Promise<PostResult | null> {
  const id = job.payload.orderDetails.customerOrderId;
  const { run, client } = r.options;
  const leave = await enterGate(r);
  if (leave === null) return null;
  try {
    // A send not marked ahead (after a lookup found nothing, or a retry) records what goes out now:
    // this sheet's payload, which may differ from one an earlier run recorded but never delivered.
    // Marked ahead: the run may have stalled since, past its lease, and lost the order to another run.
    if (r.ahead.takeMark(index)) await run.confirmHold(id);
    else await run.markSending(id, r.ahead.intentOf(index));
    order.state = { ...order.state, posts: order.state.posts + 1 };
    try {
      // The very text the ledger recorded.
      const created = await client.createOrder(job.payload, { json: r.ahead.jsonOf(index) });
      return { ok: true, httpStatus: created.status, requestId: created.requestId, submittedAt: new Date(r.now()).toISOString() };
    } catch (error) {
      return { ok: false, error };
    }
  } finally {
    await leave?.();
  }
}

/**
 * A place among the POSTs in flight across every run on the ledger (options.gate), taken before
 * the order is marked sending; undefined without a gate, null when the run was interrupted while
 * it waited.
 */
async function enterGate(r: SendRun): Promise<(() => Promise<void>) | undefined | null> {
  const { gate, signal } = r.options;
  if (!gate) return undefined;
  try {
    return await gate.enter(signal);
  } catch (error) {
    if (!signal?.aborted) throw error;
    checkInterrupted(r);
    return null;
  }
}

/** GETs the order, retrying what is transient; each attempt goes through applyStep as a POST's does. */
async function lookup(r: SendRun, id: string): Promise<LookupResult> {
  const { maxAttempts, client } = r.options;
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    try {
      const found = await client.getOrder(id);
      await applyStep(r, id, { guard: 'success' });
      return found ? { found: true, requestId: found.requestId } : { found: false };
    } catch (err) {
      const step = decideAfterLookupError(err, { attempt, maxAttempts, backoff: r.backoff, random: r.random });
      await applyStep(r, id, step, err);
      if (step.next.kind === 'raise') throw err;
      if (step.next.kind === 'give_up' || r.guard.shouldStop()) break;
      await r.sleep(step.next.delayMs);
    }
  }
  return { failed: true, lastTrouble: r.log.lastTrouble() };
}

/** Applies a step: the guard's count of the attempt, the run's stop (at once: nothing more goes out), the ledger's mark. */
async function applyStep(r: SendRun, id: string, step: Pick<SendStep, 'guard' | 'stop' | 'mark'>, error?: unknown): Promise<void> {
  if (step.guard) {
    r.guard.record(step.guard);
    r.log.recorded(step.guard === 'failure' ? error : undefined);
  }
  if (step.stop) stopRun(r, step.stop);
  await record(r, id, step.mark);
}

/** Commits what a decision says the ledger records. */
async function record(r: SendRun, id: string, mark: LedgerMark | undefined): Promise<void> {
  if (mark === undefined) return;
  const { run } = r.options;
  if (mark.to === 'accepted') {
    if (mark.isGathered) r.accepted.add(id, mark.info);
    else await run.markAccepted(id, mark.info);
  } else if (mark.to === 'rejected') await run.markRejected(id, mark.info);
  else if (mark.to === 'unknown') await run.markUnknown(id, mark.info);
  else await run.markFailed(id, mark.info);
}

/** A settled order; one found by a lookup takes its times from the ledger's record. */
async function complete(r: SendRun, id: string, next: Extract<SendStep['next'], { kind: 'done' }>): Promise<SubmitOutcome> {
  if (!next.isFromLedger) return next.outcome;
  const stored = await r.options.ledger.get(id);
  return { ...next.outcome, submittedAt: stored?.submittedAt ?? undefined, httpStatus: stored?.httpStatus ?? undefined };
}

/** A write after the loop; a failed ledger stops the run (its marks stay unwritten) instead of throwing. */
async function whenLedgerWorks<T>(r: SendRun, write: () => Promise<T>): Promise<T | undefined> {
  try {
    return await write();
  } catch (error) {
    const ledgerStop = ledgerStopOf(error);
    if (!ledgerStop) throw error;
    stopRun(r, ledgerStop);
    return undefined;
  }
}

function countOutcomes(outcomes: readonly SubmitOutcome[]): { byStatus: Record<string, number>; posts: number } {
  const byStatus: Record<string, number> = {};
  let posts = 0;
  for (const o of outcomes) {
    byStatus[o.status] = (byStatus[o.status] ?? 0) + 1;
    posts += o.posts;
  }
  return { byStatus, posts };
}

/** Failed orders the ledger holds as unknown (maybe stored): the next run looks each one up first. */
async function countUnknown(jobs: readonly SubmissionJob[], outcomes: readonly SubmitOutcome[], ledger: Ledger): Promise<number> {
  const ids = new Set(jobs.flatMap((job, i) => (outcomes[i]!.status === 'failed' ? [job.payload.orderDetails.customerOrderId] : [])));
  let unknown = 0;
  for (const state of (await ledger.statesOf(ids)).values()) if (state === 'unknown') unknown++;
  return unknown;
}

function unreachable(): never {
  throw new Error('a submission failed without stopping the run');
}
