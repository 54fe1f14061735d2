/**
 * Submitting valid orders (PRODUCT.md section 5): every order recorded in the ledger before it is
 * sent and after it is answered; an order whose outcome is unknown is looked up with GET before it
 * is ever sent again; retries only for what is transient, with backoff and full jitter; the run
 * slows down and stops early when the API fails wholesale; 401 is the client's (one refresh),
 * a refused token or a 403 stops the run.
 */
import pLimit from 'p-limit';
import { setTimeout as sleepFor } from 'node:timers/promises';
import { createFailureGuard, type FailureGuard } from '../api/breaker.js';
import { describeApiTrouble } from '../api/error-message.js';
import { AuthError, ForbiddenError, HttpError, isOutcomeUnknown, isRetryable, isUnusableAnswer } from '../api/errors.js';
import { backoffDelayMs, DEFAULT_BACKOFF } from '../api/retry.js';
import type { ApiClient } from '../api/types.js';
import type { CreateOrderPayload } from '../contract/schemas.js';
import type { Issue } from '../issues/index.js';
import { hashPayload } from '../ledger/hash.js';
import { LOOKUP_STATES } from '../ledger/intent.js';
import type { IntentResult } from '../ledger/types.js';
import type { SyncLedger as Ledger } from '../ledger/sync-types.js';
import type { Logger } from '../log.js';
import type { CheckedOrder } from '../orders/types.js';
import { contentsChangedIssue, DUPLICATE_MESSAGE, duplicateOutcome, isMissingEndpoint, missingEndpointMessage, rejectionIssues, unusableAnswerMessage } from './outcomes.js';
import { createAcceptedBatch } from './accepted-batch.js';
import { createSendAhead } from './send-ahead.js';
import { createSendLog } from './send-log.js';
import { issueAt, type SheetColumns } from './sheet-cells.js';

/** `invalid`: never sent, a copy of an order this run sent from another file with other contents. */
export type SubmitStatus = 'accepted' | 'rejected' | 'already_submitted' | 'failed' | 'invalid';

export interface SubmitOutcome {
  status: SubmitStatus;
  httpStatus?: number;
  requestId?: string;
  submittedAt?: string;
  issues: Issue[];
  /** POSTs sent for the order in this run. */
  posts: number;
  /**
   * already_submitted, but the sheet's contents differ from the version the fulfillment network
   * holds (sent by an earlier run, or by this run from another copy): the change was not applied.
   */
  contentsDiffer?: boolean;
}

export interface SubmissionJob {
  order: CheckedOrder;
  /** The order's payload, built once (the checker builds it afresh on every read of order.payload). */
  payload: CreateOrderPayload;
  sheet: SheetColumns;
  file: string;
  sha256: string;
}

/**
 * Why a run stopped sending: the API refused (credentials, 403), has no order endpoint where it was
 * looked for (404/405: a wrong base URL or path), failed wholesale, or the user interrupted it (Ctrl-C, SIGTERM).
 */
export type StopReason = { kind: 'auth' | 'forbidden' | 'no_endpoint' | 'unavailable' | 'interrupted'; message: string };

export interface SubmitOptions {
  client: ApiClient;
  ledger: Ledger;
  runId: string;
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
  const { client, ledger, logger } = options;
  const log = createSendLog(logger, guard, { orders: jobs.length, concurrency: options.concurrency, maxAttempts: options.maxAttempts, now });
  log.started();
  /** The first reason to stop sending wins, and is logged once. */
  const stop = (reason: StopReason): void => {
    if (stopped) return;
    stopped = reason;
    log.stopped(reason);
  };
  const stoppedReason = (): StopReason | undefined => stopped;
  const checkInterrupted = (): void => {
    if (signal?.aborted) stop({ kind: 'interrupted', message: 'the run was interrupted' });
  };

  let crashed: { error: unknown } | undefined;
  const accepted = createAcceptedBatch(ledger, logger);

  // The ledger's work for each order, done just ahead of its POST.
  const ahead = createSendAhead(jobs, { ledger, runId: options.runId, logger, isStopped: () => Boolean(stopped || crashed || signal?.aborted) });

  const notSent = (job: SubmissionJob, why: string): SubmitOutcome => ({
    status: 'failed',
    posts: 0,
    issues: [issueAt(job.sheet, job.order.rows[0] ?? null, null, 'failed', `Not sent: ${why} Run the import again to send it.`)],
  });

  /** Each job's outcome once it is known (null: it threw), and who waits for one not yet known. */
  const outcomeOf: (SubmitOutcome | null | undefined)[] = new Array<SubmitOutcome | null | undefined>(jobs.length);
  const waiting = new Map<number, ((outcome: SubmitOutcome | null) => void)[]>();
  const settleOutcome = (index: number, outcome: SubmitOutcome | null): void => {
    outcomeOf[index] = outcome;
    for (const wake of waiting.get(index) ?? []) wake(outcome);
    waiting.delete(index);
  };
  const outcomeOfJob = (index: number): Promise<SubmitOutcome | null> => {
    const known = outcomeOf[index];
    if (known !== undefined) return Promise.resolve(known);
    return new Promise((resolve) => {
      const list = waiting.get(index);
      if (list) list.push(resolve);
      else waiting.set(index, [resolve]);
    });
  };
  /** The first job of each customerOrderId, indexed only once the run meets a duplicate (most runs have none). */
  let firstJobOf: Map<string, number> | undefined;
  const firstIndexOf = (id: string): number | undefined => {
    if (!firstJobOf) {
      firstJobOf = new Map();
      jobs.forEach((j, i) => {
        const key = j.payload.orderDetails.customerOrderId;
        if (!firstJobOf!.has(key)) firstJobOf!.set(key, i);
      });
    }
    return firstJobOf.get(id);
  };

  /**
   * Another copy of the order, in another file or sheet of this run, went out first: this copy is not
   * sent, and takes its fate from that copy's (waited for: jobs start in order, so it is under way).
   */
  async function duplicateInRun(job: SubmissionJob, index: number): Promise<SubmitOutcome> {
    const first = firstIndexOf(job.payload.orderDetails.customerOrderId);
    if (first === undefined || first >= index) return notSent(job, 'another copy of this order is in this run.');
    const firstJob = jobs[first]!;
    const firstOutcome = await outcomeOfJob(first);
    if (firstOutcome === null) return notSent(job, 'the run stopped after an unexpected error.');
    return duplicateOutcome(job, firstJob, firstOutcome, hashPayload(job.payload) === hashPayload(firstJob.payload));
  }

  /** Accepted by an earlier run: never sent again; a sheet whose contents changed since is told the change was not applied. */
  function alreadySubmitted(job: SubmissionJob, decision: IntentResult): SubmitOutcome {
    const id = job.payload.orderDetails.customerOrderId;
    const record = ledger.get(id) ?? decision.record;
    const issues: Issue[] = [];
    if (decision.payloadChanged) {
      issues.push(contentsChangedIssue(job.sheet, job.order, id));
    }
    return {
      status: 'already_submitted',
      posts: 0,
      issues,
      ...(decision.payloadChanged ? { contentsDiffer: true } : {}),
      submittedAt: record.submittedAt ?? undefined,
      requestId: record.requestId ?? undefined,
      httpStatus: record.httpStatus ?? undefined,
    };
  }

  async function lookup(id: string): Promise<{ found: boolean; requestId?: string } | 'failed'> {
    for (let attempt = 1; attempt <= options.maxAttempts; attempt++) {
      try {
        const found = await client.getOrder(id);
        guard.record('success');
        log.recorded();
        return found ? { found: true, requestId: found.requestId } : { found: false };
      } catch (err) {
        // A 2xx that is not the API's answer (an HTML page at that address): the order stays unknown, the run stops.
        if (isUnusableAnswer(err)) {
          stop({ kind: 'no_endpoint', message: unusableAnswerMessage(err) });
          return 'failed';
        }
        if (!isRetryable(err)) throw err;
        guard.record('failure');
        log.recorded(err);
        if (attempt === options.maxAttempts || guard.shouldStop()) return 'failed';
        await sleep(backoffDelayMs(attempt, { ...backoff, retryAfterMs: (err as HttpError).retryAfterMs }, random));
      }
    }
    return 'failed';
  }

  async function submitOne(job: SubmissionJob, index: number): Promise<SubmitOutcome> {
    const id = job.payload.orderDetails.customerOrderId;
    checkInterrupted();
    if (stopped) return notSent(job, `the run stopped early (${stopped.message}).`);
    if (crashed) return notSent(job, 'the run stopped after an unexpected error.');
    const decision = ahead.decisionFor(index);
    if (decision.action === 'duplicate_in_run') return duplicateInRun(job, index);
    if (decision.action === 'already_submitted') return alreadySubmitted(job, decision);

    let mustLookUp = decision.action === 'lookup';
    let sawUnknown = false;
    let posts = 0;
    let lastProblem = 'no answer';
    let lastStatus: number | undefined;

    for (let attempt = 1; attempt <= options.maxAttempts; attempt++) {
      const pause = guard.delayBeforeNextMs();
      if (pause > 0) await sleep(pause);
      checkInterrupted();
      if (guard.shouldStop()) stop({ kind: 'unavailable', message: `the fulfillment API kept failing: ${log.lastTrouble() ?? 'most requests failed'}` });
      if (stopped) break;

      if (mustLookUp) {
        const found = await lookup(id);
        if (found === 'failed') {
          lastProblem = `the order could not be looked up: ${log.lastTrouble() ?? 'no answer'}`;
          break;
        }
        if (found.found) {
          ledger.markAccepted(id, { requestId: found.requestId ?? null, message: 'found by lookup after an unknown outcome' });
          const record = ledger.get(id);
          return { status: 'accepted', posts, issues: [], requestId: found.requestId, submittedAt: record?.submittedAt ?? undefined, httpStatus: record?.httpStatus ?? undefined };
        }
        mustLookUp = false;
      }

      // A send not marked ahead (after a lookup found nothing, or a retry) records what goes out now:
      // this sheet's payload, which may differ from one an earlier run recorded but never delivered.
      if (!ahead.takeMark(index)) ledger.markSending(id, ahead.intentOf(index));
      posts++;
      try {
        // The very text the ledger recorded.
        const created = await client.createOrder(job.payload, { json: ahead.jsonOf(index) });
        guard.record('success');
        log.recorded();
        const submittedAt = new Date(now()).toISOString();
        accepted.add(id, { httpStatus: created.status, requestId: created.requestId ?? null, submittedAt });
        return { status: 'accepted', posts, issues: [], httpStatus: created.status, requestId: created.requestId, submittedAt };
      } catch (err) {
        if (err instanceof AuthError || err instanceof ForbiddenError) {
          const unknown = isOutcomeUnknown(err);
          if (unknown) ledger.markUnknown(id, { httpStatus: err.status, message: err.message });
          else ledger.markFailed(id, { httpStatus: err.status, message: err.message });
          stop({ kind: err instanceof AuthError ? 'auth' : 'forbidden', message: err.message });
          return { status: 'failed', posts, httpStatus: err.status, issues: [issueAt(job.sheet, job.order.rows[0] ?? null, null, 'failed', `Not accepted: ${err.message}`)] };
        }
        if (err instanceof HttpError && isMissingEndpoint(err)) {
          // No order endpoint there: this POST stored nothing, so the record is left for the next run to
          // send again without a lookup ('rejected' is resendable), unless an earlier attempt, of this run
          // or of one before (the order needed a lookup), may have stored it: then it stays unknown, to be
          // looked up first. A lookup that found nothing proves little when the order paths answer 404.
          if (sawUnknown || decision.action === 'lookup') ledger.markUnknown(id, { httpStatus: err.status, message: err.message });
          else ledger.markRejected(id, { httpStatus: err.status, requestId: err.requestId ?? null, message: err.message });
          stop({ kind: 'no_endpoint', message: missingEndpointMessage(err) });
          return {
            status: 'failed',
            posts,
            httpStatus: err.status,
            ...(err.requestId ? { requestId: err.requestId } : {}),
            issues: [issueAt(job.sheet, job.order.rows[0] ?? null, null, 'failed', `Not accepted: ${missingEndpointMessage(err)}. The order was not stored: run the import again once the address is right.`)],
          };
        }
        if (err instanceof HttpError && !isRetryable(err)) {
          guard.record('success');
          log.recorded();
          if (err.status === 409 && DUPLICATE_MESSAGE.test(err.message) && (sawUnknown || (decision.previous !== null && LOOKUP_STATES.has(decision.previous.state)))) {
            // Ours: an earlier POST of this very order was stored although its answer never came back.
            const found = await lookup(id);
            if (found !== 'failed' && found.found) {
              ledger.markAccepted(id, { requestId: found.requestId ?? err.requestId ?? null, message: 'duplicate of our own earlier send' });
              const record = ledger.get(id);
              return { status: 'accepted', posts, issues: [], requestId: found.requestId ?? err.requestId, submittedAt: record?.submittedAt ?? undefined, httpStatus: record?.httpStatus ?? undefined };
            }
          }
          ledger.markRejected(id, { httpStatus: err.status, requestId: err.requestId ?? null, message: err.message });
          return { status: 'rejected', posts, httpStatus: err.status, requestId: err.requestId, issues: rejectionIssues(job, err) };
        }
        if (!isRetryable(err)) throw err;
        guard.record('failure');
        log.recorded(err);
        lastStatus = err instanceof HttpError ? err.status : undefined;
        // By cause: an API that answered 429 was reached; it refused for now.
        lastProblem = describeApiTrouble(err);
        if (isOutcomeUnknown(err)) {
          sawUnknown = true;
          mustLookUp = true;
          ledger.markUnknown(id, { httpStatus: lastStatus ?? null, message: lastProblem });
        }
        logger.debug({ customerOrderId: id, attempt, status: lastStatus, unknown: mustLookUp }, 'create order failed; will retry');
        if (attempt < options.maxAttempts) {
          await sleep(backoffDelayMs(attempt, { ...backoff, retryAfterMs: err instanceof HttpError ? err.retryAfterMs : undefined }, random));
        }
      }
    }

    if (sawUnknown || mustLookUp) ledger.markUnknown(id, { httpStatus: lastStatus ?? null, message: lastProblem });
    else if (posts > 0) ledger.markFailed(id, { httpStatus: lastStatus ?? null, message: lastProblem });
    // Read afresh: stop() may have run in the awaits above, which the compiler's narrowing does not see.
    const reason = stoppedReason();
    if (posts === 0 && reason) return notSent(job, `the run stopped early (${reason.message}).`);
    return {
      status: 'failed',
      posts,
      httpStatus: lastStatus,
      issues: [issueAt(job.sheet, job.order.rows[0] ?? null, null, 'failed', `Not accepted after ${posts} attempt${posts === 1 ? '' : 's'}: ${lastProblem}. Run the import again: it checks whether the order arrived before sending it again.`)],
    };
  }

  const limit = pLimit(options.concurrency);
  const settled = await Promise.allSettled(
    jobs.map((job, index) =>
      limit(async () => {
        try {
          const outcome = await submitOne(job, index);
          settleOutcome(index, outcome);
          options.onOutcome?.(job, outcome);
          return outcome;
        } catch (error) {
          // A bug or a broken ledger: the orders not yet started are not sent; those in flight finish.
          crashed ??= { error };
          settleOutcome(index, null);
          throw error;
        } finally {
          ahead.settle(index);
        }
      }),
    ),
  );
  const unsent = ahead.finish();
  accepted.flush();
  if (unsent.length > 0) ledger.releaseUnsent(unsent);
  if (crashed) throw crashed.error;
  const outcomes = settled.map((s) => (s.status === 'fulfilled' ? s.value : unreachable()));
  log.finished({ ...countOutcomes(outcomes), unknown: countUnknown(jobs, outcomes, ledger), ...(stopped ? { stopped } : {}) });
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
function countUnknown(jobs: readonly SubmissionJob[], outcomes: readonly SubmitOutcome[], ledger: Ledger): number {
  const ids = new Set(jobs.flatMap((job, i) => (outcomes[i]!.status === 'failed' ? [job.payload.orderDetails.customerOrderId] : [])));
  let unknown = 0;
  for (const state of ledger.statesOf(ids).values()) if (state === 'unknown') unknown++;
  return unknown;
}

function unreachable(): never {
  throw new Error('a submission failed without stopping the run');
}
