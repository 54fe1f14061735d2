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
import { reportRetry } from '../api/exchange-observers.js';
import pLimit from 'p-limit';
import { setTimeout as sleepFor } from 'node:timers/promises';
import { createFailureGuard, type FailureGuard } from '../api/breaker.js';
import { DEFAULT_BACKOFF } from '../api/retry.js';
import { failingWholesale } from '../api/unusable.js';
import type { ApiClient } from '../api/types.js';
import { hashPayload, type Ledger, LedgerClaimLostError, type LedgerRun, LedgerStateError, type SendGate } from '../ledger/index.js';
import type { Logger } from '../log.js';
import { createAcceptedBatch } from './accepted-batch.js';
import { createJobOutcomes } from './job-outcomes.js';
import { createHolderNames } from './holder-names.js';
import { alreadySubmittedOutcome, claimLostOutcome, duplicateOutcome, inProgressElsewhereOutcome, notSentOutcome } from './outcomes.js';
import { createSendAhead } from './send-ahead.js';
import { decideAfterLedgerError, decideAfterLookup, decideAfterLookupError, decideAfterPost, finishSending, ledgerStopOf, startSending, type LedgerMark, type LookupResult, type PostResult, type SendStep, type SendState } from './send-decision.js';
import { createSendLog } from './send-log.js';
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

export async function submitOrders(jobs: readonly SubmissionJob[], options: SubmitOptions): Promise<SubmitResult> {
  const now = options.now ?? Date.now;
  let stopped: StopReason | undefined;
  const { signal } = options;
  const interrupted = new Promise<void>((resolve) => signal?.addEventListener('abort', () => resolve(), { once: true }));
  // A pause between attempts ends early when the run is interrupted; the loop then sees `stopped`.
  const sleep = (ms: number): Promise<void> => {
    if (options.sleep) return signal ? Promise.race([options.sleep(ms), interrupted]) : options.sleep(ms);
    return sleepFor(ms, undefined, signal ? { signal } : {}).catch(() => undefined);
  };
  const random = options.random ?? Math.random;
  const guard = options.guard ?? createFailureGuard({ now });
  const backoff = options.backoff ?? DEFAULT_BACKOFF;
  const { client, ledger, run, logger, maxAttempts } = options;
  const log = createSendLog(logger, guard, { orders: jobs.length, concurrency: options.concurrency, maxAttempts, now });
  log.started();
  /** The first reason to stop sending wins, and is logged once; a failed ledger wins over any other (nothing is recorded any more). */
  const stop = (reason: StopReason): void => {
    if (stopped && (stopped.kind === 'ledger' || reason.kind !== 'ledger')) return;
    stopped = reason;
    log.stopped(reason);
  };
  const stoppedReason = (): StopReason | undefined => stopped;
  const checkInterrupted = (): void => {
    if (signal?.aborted) stop({ kind: 'interrupted', message: 'the run was interrupted' });
  };

  let crashed: { error: unknown } | undefined;
  const accepted = createAcceptedBatch(run, logger);
  const settled = createJobOutcomes(jobs);
  const holders = createHolderNames(ledger);

  // The ledger's work for each order, done just ahead of its POST.
  const ahead = createSendAhead(jobs, { run, logger, isStopped: () => Boolean(stopped || crashed || signal?.aborted) });

  /** Commits what a decision says the ledger records. */
  async function record(id: string, mark: LedgerMark | undefined): Promise<void> {
    if (mark === undefined) return;
    if (mark.to === 'accepted') {
      if (mark.isGathered) accepted.add(id, mark.info);
      else await run.markAccepted(id, mark.info);
    } else if (mark.to === 'rejected') await run.markRejected(id, mark.info);
    else if (mark.to === 'unknown') await run.markUnknown(id, mark.info);
    else await run.markFailed(id, mark.info);
  }

  /** Applies a step: the guard's count of the attempt, the run's stop (at once: nothing more goes out), the ledger's mark. */
  async function applyStep(id: string, step: SendStep, error?: unknown): Promise<SendState> {
    if (step.guard) {
      guard.record(step.guard);
      log.recorded(step.guard === 'failure' ? error : undefined);
    }
    if (step.stop) stop(step.stop);
    await record(id, step.mark);
    return step.state;
  }

  /** A settled order; one found by a lookup takes its times from the ledger's record. */
  async function complete(id: string, next: Extract<SendStep['next'], { kind: 'done' }>): Promise<SubmitOutcome> {
    if (!next.isFromLedger) return next.outcome;
    const stored = await ledger.get(id);
    return { ...next.outcome, submittedAt: stored?.submittedAt ?? undefined, httpStatus: stored?.httpStatus ?? undefined };
  }

  /**
   * A place among the POSTs in flight across every run on the ledger (options.gate), taken before
   * the order is marked sending; undefined without a gate, null when the run was interrupted while
   * it waited.
   */
  async function enterGate(): Promise<(() => Promise<void>) | undefined | null> {
    if (!options.gate) return undefined;
    try {
      return await options.gate.enter(signal);
    } catch (error) {
      if (!signal?.aborted) throw error;
      checkInterrupted();
      return null;
    }
  }

  async function lookup(id: string): Promise<LookupResult> {
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      try {
        const found = await client.getOrder(id);
        guard.record('success');
        log.recorded();
        return found ? { found: true, requestId: found.requestId } : { found: false };
      } catch (err) {
        const step = decideAfterLookupError(err, { attempt, maxAttempts, backoff, random });
        if (step.guard) {
          guard.record(step.guard);
          log.recorded(err);
        }
        if (step.stop) stop(step.stop);
        if (step.next.kind === 'raise') throw err;
        if (step.next.kind === 'give_up' || guard.shouldStop()) break;
        await sleep(step.next.delayMs);
      }
    }
    return { failed: true, lastTrouble: log.lastTrouble() };
  }

  /**
   * Another copy of the order, in another file or sheet of this run, went out first: this copy is not
   * sent, and takes its fate from that copy's (waited for: jobs start in order, so it is under way).
   */
  async function duplicateInRun(job: SubmissionJob, index: number): Promise<SubmitOutcome> {
    const first = settled.firstIndexOf(job.payload.orderDetails.customerOrderId);
    if (first === undefined || first >= index) return notSentOutcome(job, 'another copy of this order is in this run.');
    const firstJob = jobs[first]!;
    const firstOutcome = await settled.outcomeOf(first);
    if (firstOutcome === null) return notSentOutcome(job, 'the run stopped after an unexpected error.');
    return duplicateOutcome(job, firstJob, firstOutcome, hashPayload(job.payload) === hashPayload(firstJob.payload));
  }

  async function submitOne(job: SubmissionJob, index: number): Promise<SubmitOutcome> {
    const id = job.payload.orderDetails.customerOrderId;
    checkInterrupted();
    if (stopped) return notSentOutcome(job, `the run stopped early (${stopped.message}).`);
    if (crashed) return notSentOutcome(job, 'the run stopped after an unexpected error.');
    const decision = await ahead.decisionFor(index);
    if (decision.action === 'duplicate_in_run') return duplicateInRun(job, index);
    if (decision.action === 'already_submitted') return alreadySubmittedOutcome(job, decision, (await ledger.get(id)) ?? decision.record);
    if (decision.action === 'in_progress_elsewhere') return inProgressElsewhereOutcome(job, await holders.describe(decision.record.runId));

    let state = startSending(decision);
    try {
      return await sendOne(job, index, state, (next) => (state = next));
    } catch (error) {
      // This run stalled past its lease and another run took the order over: it is that run's now.
      if (error instanceof LedgerClaimLostError) return claimLostOutcome(job, await holders.describe((await ledger.get(id))?.runId ?? null), state.posts);
      // Another run learnt that the order was accepted (the API's answer to a POST of its own) while this one was taking it over.
      if (error instanceof LedgerStateError && error.state === 'accepted') {
        const record = await ledger.get(id);
        if (record) return alreadySubmittedOutcome(job, { payloadChanged: record.payloadHash !== hashPayload(job.payload) }, record);
      }
      throw error;
    }
  }

  /** The attempts at one order, from its ledger decision to its outcome; `track` follows the state for the caller. */
  async function sendOne(job: SubmissionJob, index: number, initial: SendState, track: (state: SendState) => void): Promise<SubmitOutcome> {
    const id = job.payload.orderDetails.customerOrderId;
    let state = initial;
    const apply = async (orderId: string, step: SendStep, error?: unknown): Promise<SendState> => {
      const next = await applyStep(orderId, step, error);
      track(next);
      return next;
    };
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      const pause = guard.delayBeforeNextMs();
      if (pause > 0) await sleep(pause);
      checkInterrupted();
      if (guard.shouldStop()) stop(failingWholesale(log.lastTrouble()));
      if (stopped) break;

      if (state.mustLookUp) {
        const step = decideAfterLookup(state, await lookup(id), job);
        state = await apply(id, step);
        if (step.next.kind === 'done') return complete(id, step.next);
        if (step.next.kind === 'give_up') break;
      }

      const leave = await enterGate();
      if (leave === null) break;
      let result: PostResult;
      try {
        // A send not marked ahead (after a lookup found nothing, or a retry) records what goes out now:
        // this sheet's payload, which may differ from one an earlier run recorded but never delivered.
        // Marked ahead: the run may have stalled since, past its lease, and lost the order to another run.
        if (ahead.takeMark(index)) await run.confirmHold(id);
        else await run.markSending(id, ahead.intentOf(index));
        state = { ...state, posts: state.posts + 1 };
        track(state);
        try {
          // The very text the ledger recorded.
          const created = await client.createOrder(job.payload, { json: ahead.jsonOf(index) });
          result = { ok: true, httpStatus: created.status, requestId: created.requestId, submittedAt: new Date(now()).toISOString() };
        } catch (error) {
          result = { ok: false, error };
        }
      } finally {
        await leave?.();
      }
      const error = result.ok ? undefined : result.error;
      let step = decideAfterPost(state, result, { job, attempt, maxAttempts, backoff, random });
      state = await apply(id, step, error);
      if (step.next.kind === 'verify_duplicate') {
        step = decideAfterLookup(state, await lookup(id), job);
        state = await apply(id, step);
      }
      if (step.next.kind === 'done') return complete(id, step.next);
      if (step.next.kind === 'raise') throw error;
      logger.debug({ customerOrderId: id, attempt, status: state.lastStatus, unknown: state.mustLookUp }, 'create order failed; will retry');
      if (step.next.kind === 'retry') {
        reportRetry({ attempt });
        await sleep(step.next.delayMs);
      }
    }

    // Read afresh: stop() may have run in the awaits above, which the compiler's narrowing does not see.
    const end = finishSending(state, job, stoppedReason());
    await record(id, end.mark);
    return end.outcome;
  }

  const limit = pLimit(options.concurrency);
  const results = await Promise.allSettled(
    jobs.map((job, index) =>
      limit(async () => {
        try {
          const outcome = await submitOne(job, index);
          settled.settle(index, outcome);
          options.onOutcome?.(job, outcome);
          return outcome;
        } catch (error) {
          // The ledger's storage failed (a full disk, a damaged file): this order is not settled, and none goes out after it.
          const ledgerFailed = decideAfterLedgerError(error, job);
          if (ledgerFailed) {
            stop(ledgerFailed.stop);
            settled.settle(index, ledgerFailed.outcome);
            options.onOutcome?.(job, ledgerFailed.outcome);
            return ledgerFailed.outcome;
          }
          // A bug: the orders not yet started are not sent; those in flight finish.
          crashed ??= { error };
          settled.settle(index, null);
          throw error;
        } finally {
          ahead.settle(index);
        }
      }),
    ),
  );
  // A ledger that failed leaves these marks unwritten: the orders stay 'sending', and the next run looks each one up.
  const whenLedgerWorks = async <T>(write: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await write();
    } catch (error) {
      const ledgerStop = ledgerStopOf(error);
      if (!ledgerStop) throw error;
      stop(ledgerStop);
      return undefined;
    }
  };
  const unsent = await ahead.finish();
  await whenLedgerWorks(() => accepted.flush());
  if (unsent.length > 0) await whenLedgerWorks(() => run.releaseUnsent(unsent));
  if (crashed) throw crashed.error;
  const outcomes = results.map((s) => (s.status === 'fulfilled' ? s.value : unreachable()));
  const unknown = (await whenLedgerWorks(() => countUnknown(jobs, outcomes, ledger))) ?? 0;
  log.finished({ ...countOutcomes(outcomes), unknown, ...(stopped ? { stopped } : {}) });
  return stopped ? { outcomes, stopped } : { outcomes };
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
