/**
 * The sending path's decisions, as pure functions (PRODUCT.md section 5): given where an order
 * stands and what the API answered (or how the request failed), what the ledger records, what the
 * order's outcome is, and what comes next: another attempt after a delay, a lookup, or the run
 * stopping. submit.ts applies them through the ledger; nothing here does I/O.
 */
import type { AttemptOutcome } from '../../api/breaker.js';
import { describeApiTrouble } from '../../api/error-message.js';
import { AuthError, ForbiddenError, HttpError, isOutcomeUnknown, isRetryable, isUnusableAnswer } from '../../api/errors.js';
import { backoffDelayMs, type BackoffPolicy } from '../../api/retry.js';
import { apiUnusableOf, isMissingEndpoint } from '../../api/unusable.js';
import { type AcceptedInfo, type AnswerInfo, hashPayload, type IntentResult, LedgerClaimLostError, LedgerStateError, LedgerUnusableError, LOOKUP_STATES, type OrderRecord, type OrderState } from '../../ledger/index.js';
import { alreadySubmittedOutcome, claimLostOutcome, DUPLICATE_MESSAGE, notSentOutcome, notSettledOutcome, rejectionIssues } from './outcomes.js';
import { issueAt } from '../../orders/sheet-cells.js';
import type { AcceptedOutcome, FailedOutcome, LedgerStop, StopReason, SubmissionJob, SubmitOutcome } from './types.js';

/** Where one order's sending stands between attempts. */
export interface SendState {
  /** The ledger's decision: 'lookup' when an earlier run's POST may have reached the API. */
  decided: 'send' | 'lookup';
  /** The record's state before this run took it (null: new to the ledger). */
  previousState: OrderState | null;
  /** POSTs sent for the order in this run. */
  posts: number;
  /** Some POST of this run may have reached the API without its answer reaching us. */
  sawUnknown: boolean;
  /** The next attempt starts with a GET: the order may be stored already. */
  mustLookUp: boolean;
  /** The last retryable trouble, for the order's issue when the attempts run out. */
  lastProblem: string;
  lastStatus: number | undefined;
  /** A 409 "already exists" that may be our own earlier send: looked up before it is called a refusal. */
  duplicate?: HttpError;
}

/** What the ledger records for the order now. An accepted POST is gathered with others into one commit. */
export type LedgerMark =
  | { to: 'accepted'; info: AcceptedInfo; isGathered: boolean }
  | { to: 'rejected' | 'unknown' | 'failed'; info: AnswerInfo };

export type NextStep =
  /** Settled. */
  | { kind: 'done'; outcome: SubmitOutcome; isFromLedger?: undefined }
  /** Found by a lookup: submittedAt and httpStatus are the ledger's once the accepted mark is committed. */
  | { kind: 'done'; outcome: AcceptedOutcome; isFromLedger: true }
  /** Another attempt after delayMs (starting with a lookup when state.mustLookUp). */
  | { kind: 'retry'; delayMs: number }
  /** A lookup found nothing: POST now. */
  | { kind: 'send' }
  /** GET the order before calling the 409 in state.duplicate a refusal. */
  | { kind: 'verify_duplicate' }
  /** No attempt left (or no way to look the order up): finishSending says what the order comes to. */
  | { kind: 'give_up' }
  /** Not a failure the sending path knows: a bug, thrown as it is. */
  | { kind: 'raise' };

export interface SendStep {
  state: SendState;
  mark?: LedgerMark;
  /** How the wholesale-failure guard counts the attempt (a 400 is the API working: success). */
  guard?: AttemptOutcome;
  /** The run stops sending. */
  stop?: StopReason;
  next: NextStep;
}

export interface SendContext {
  job: SubmissionJob;
  /** The attempt just made, from 1. */
  attempt: number;
  maxAttempts: number;
  backoff: Pick<BackoffPolicy, 'baseMs' | 'maxMs'>;
  random: () => number;
}

export function startSending(decision: Pick<IntentResult, 'action' | 'previous'>): SendState {
  const isLookup = decision.action === 'lookup';
  return {
    decided: isLookup ? 'lookup' : 'send',
    previousState: decision.previous?.state ?? null,
    posts: 0,
    sawUnknown: false,
    mustLookUp: isLookup,
    lastProblem: 'no answer',
    lastStatus: undefined,
  };
}

export type PostResult = { ok: true; httpStatus: number; requestId?: string; submittedAt: string } | { ok: false; error: unknown };

/** After a POST (state.posts already counts it): its answer, or how it failed. */
export function decideAfterPost(state: SendState, result: PostResult, context: SendContext): SendStep {
  const { job } = context;
  if (result.ok) {
    const { httpStatus, requestId, submittedAt } = result;
    const outcome: AcceptedOutcome = { status: 'accepted', posts: state.posts, issues: [], httpStatus, requestId, submittedAt };
    return { state, guard: 'success', mark: { to: 'accepted', info: { httpStatus, requestId: requestId ?? null, submittedAt }, isGathered: true }, next: { kind: 'done', outcome } };
  }
  const err = result.error;
  if (err instanceof AuthError || err instanceof ForbiddenError) {
    const info = { httpStatus: err.status, message: err.message };
    return {
      state,
      mark: { to: isOutcomeUnknown(err) ? 'unknown' : 'failed', info },
      stop: apiUnusableOf(err)!,
      next: { kind: 'done', outcome: { status: 'failed', posts: state.posts, httpStatus: err.status, issues: [orderIssue(job, `Not accepted: ${err.message}`)] } },
    };
  }
  if (isUnusableAnswer(err)) {
    // A 2xx, but not the API's answer (a proxy's page, a body cut short): whatever answered may have
    // passed the order on, so it stays unknown, to be looked up before it is ever sent again.
    const mark: LedgerMark = { to: 'unknown', info: { httpStatus: err.status, message: err.message } };
    return unusableApi({ ...state, sawUnknown: true }, err, job, mark, 'Run the import again once the address is right: it checks whether the order arrived before sending it again.');
  }
  if (err instanceof HttpError && isMissingEndpoint(err)) {
    // No order endpoint there: this POST stored nothing, so the record is left for the next run to
    // send again without a lookup ('rejected' is resendable), unless an earlier attempt, of this run
    // or of one before (the order needed a lookup), may have stored it: then it stays unknown, to be
    // looked up first. A lookup that found nothing proves little when the order paths answer 404.
    const mayBeStored = state.sawUnknown || state.decided === 'lookup';
    const mark: LedgerMark = mayBeStored ? { to: 'unknown', info: { httpStatus: err.status, message: err.message } } : { to: 'rejected', info: answerOf(err) };
    return unusableApi(state, err, job, mark, 'The order was not stored: run the import again once the address is right.');
  }
  if (err instanceof HttpError && !isRetryable(err)) {
    // Ours: an earlier POST of this very order may have been stored although its answer never came back.
    const mayBeOurs = state.sawUnknown || (state.previousState !== null && LOOKUP_STATES.has(state.previousState));
    if (err.status === 409 && DUPLICATE_MESSAGE.test(err.message) && mayBeOurs) {
      return { state: { ...state, duplicate: err }, guard: 'success', next: { kind: 'verify_duplicate' } };
    }
    return { state, guard: 'success', ...refusal(state, err, job) };
  }
  if (!isRetryable(err)) return { state, next: { kind: 'raise' } };
  const lastStatus = err instanceof HttpError ? err.status : undefined;
  // By cause: an API that answered 429 was reached; it refused for now.
  const lastProblem = describeApiTrouble(err);
  const isUnknown = isOutcomeUnknown(err);
  const next: SendState = isUnknown ? { ...state, lastStatus, lastProblem, sawUnknown: true, mustLookUp: true } : { ...state, lastStatus, lastProblem };
  return {
    state: next,
    guard: 'failure',
    ...(isUnknown ? { mark: { to: 'unknown', info: { httpStatus: lastStatus ?? null, message: lastProblem } } } : {}),
    next: context.attempt < context.maxAttempts
      ? { kind: 'retry', delayMs: backoffDelayMs(context.attempt, { ...context.backoff, retryAfterMs: err instanceof HttpError ? err.retryAfterMs : undefined }, context.random) }
      : { kind: 'give_up' },
  };
}

/** What a lookup (GET) came to; 'failed': it could not be made (lastTrouble: why, when known). */
export type LookupResult = { found: true; requestId?: string } | { found: false } | { failed: true; lastTrouble: string | undefined };

/** After a lookup: before a POST (state.mustLookUp), or of a 409 that may be our own send (state.duplicate). */
export function decideAfterLookup(state: SendState, lookup: LookupResult, job: SubmissionJob): SendStep {
  const { duplicate } = state;
  if (duplicate) {
    const settled: SendState = { ...state, duplicate: undefined };
    if ('found' in lookup && lookup.found) {
      const requestId = lookup.requestId ?? duplicate.requestId;
      return {
        state: settled,
        mark: { to: 'accepted', info: { requestId: requestId ?? null, message: 'duplicate of our own earlier send' }, isGathered: false },
        next: { kind: 'done', outcome: { status: 'accepted', posts: state.posts, issues: [], requestId }, isFromLedger: true },
      };
    }
    return { state: settled, ...refusal(state, duplicate, job) };
  }
  if ('failed' in lookup) return { state: { ...state, lastProblem: `the order could not be looked up: ${lookup.lastTrouble ?? 'no answer'}` }, next: { kind: 'give_up' } };
  if (lookup.found) {
    return {
      state,
      mark: { to: 'accepted', info: { requestId: lookup.requestId ?? null, message: 'found by lookup after an unknown outcome' }, isGathered: false },
      next: { kind: 'done', outcome: { status: 'accepted', posts: state.posts, issues: [], requestId: lookup.requestId }, isFromLedger: true },
    };
  }
  return { state: { ...state, mustLookUp: false }, next: { kind: 'send' } };
}

/** A failed GET of the lookup: retried like a POST, except that nothing is recorded. */
export function decideAfterLookupError(error: unknown, context: Omit<SendContext, 'job'>): { guard?: AttemptOutcome; stop?: StopReason; next: { kind: 'retry'; delayMs: number } | { kind: 'give_up' } | { kind: 'raise' } } {
  // A 2xx that is not the API's answer (an HTML page at that address): the order stays unknown, the run stops.
  if (isUnusableAnswer(error)) return { stop: apiUnusableOf(error)!, next: { kind: 'give_up' } };
  if (!isRetryable(error)) return { next: { kind: 'raise' } };
  if (context.attempt >= context.maxAttempts) return { guard: 'failure', next: { kind: 'give_up' } };
  const retryAfterMs = error instanceof HttpError ? error.retryAfterMs : undefined;
  return { guard: 'failure', next: { kind: 'retry', delayMs: backoffDelayMs(context.attempt, { ...context.backoff, retryAfterMs }, context.random) } };
}

/**
 * The attempts are over (or the run stopped) without a definitive answer: the ledger keeps the order
 * unknown when some POST may have reached the API, failed when every one was answered; an order that
 * never went out because the run stopped is reported not sent.
 */
export function finishSending(state: SendState, job: SubmissionJob, runStopped: StopReason | undefined): { mark?: LedgerMark; outcome: SubmitOutcome } {
  const info = { httpStatus: state.lastStatus ?? null, message: state.lastProblem };
  const mark: LedgerMark | undefined = state.sawUnknown || state.mustLookUp ? { to: 'unknown', info } : state.posts > 0 ? { to: 'failed', info } : undefined;
  const outcome: SubmitOutcome = state.posts === 0 && runStopped
    ? notSentOutcome(job, `the run stopped early (${runStopped.message}).`)
    : {
        status: 'failed',
        posts: state.posts,
        httpStatus: state.lastStatus,
        issues: [orderIssue(job, `Not accepted after ${state.posts} attempt${state.posts === 1 ? '' : 's'}: ${state.lastProblem}. Run the import again: it checks whether the order arrived before sending it again.`)],
      };
  return mark ? { mark, outcome } : { outcome };
}

/**
 * Why the run stops when the ledger's storage failed under it (`error`, a LedgerUnusableError: a full
 * disk, a damaged file); null for any other error (a bug), which must not pass for the machine's state.
 */
export function ledgerStopOf(error: unknown): LedgerStop | null {
  if (!(error instanceof LedgerUnusableError)) return null;
  const clause = error.message.replace(/\.$/, '');
  return { kind: 'ledger', message: clause.charAt(0).toLowerCase() + clause.slice(1), failure: error };
}

/**
 * The ledger failed while an order was on its way (before its POST, or before its answer was
 * recorded): the run stops sending, and the order is not settled, to be looked up by the next run.
 * Null when `error` is no ledger failure (ledgerStopOf).
 */
export function decideAfterLedgerError(error: unknown, job: SubmissionJob): { stop: LedgerStop; outcome: FailedOutcome } | null {
  const stop = ledgerStopOf(error);
  return stop ? { stop, outcome: notSettledOutcome(job, stop.failure.message) } : null;
}

/**
 * The one rule for which reason to stop wins, for the send loop and the run alike: the first one,
 * except that a failed ledger wins over any other (nothing can be recorded any more).
 */
export function strongerStop(current: StopReason | undefined, next: StopReason): StopReason {
  if (!current) return next;
  return current.kind !== 'ledger' && next.kind === 'ledger' ? next : current;
}

/**
 * Which of the send loop's stops is the run's to report: an interruption or a failure always; the API
 * "unavailable" only when nothing at all was accepted (a run that sent some and left the rest says
 * so per order).
 */
export function runStopOf(stopped: StopReason | undefined, outcomes: readonly SubmitOutcome[]): StopReason | undefined {
  if (!stopped || stopped.kind !== 'unavailable') return stopped;
  return outcomes.some((o) => o.status === 'accepted' || o.status === 'already_submitted') ? undefined : stopped;
}

/**
 * Another run took the order over while this one was sending it: this run stalled past its lease and
 * lost its claim ('claim_lost'), or the other run learnt that the order was accepted (the API's answer
 * to a POST of its own) while this one was taking it over ('accepted_elsewhere'). Null for any other error.
 */
export function takeoverOf(error: unknown): 'claim_lost' | 'accepted_elsewhere' | null {
  if (error instanceof LedgerClaimLostError) return 'claim_lost';
  if (error instanceof LedgerStateError && error.state === 'accepted') return 'accepted_elsewhere';
  return null;
}

/** The order's outcome after a takeover (takeoverOf), from the ledger's record of it now; null: not settled by it (the error stands). */
export function decideAfterTakeover(
  takeover: 'claim_lost' | 'accepted_elsewhere',
  context: { job: SubmissionJob; record: OrderRecord | null; holder: string; posts: number },
): SubmitOutcome | null {
  const { job, record } = context;
  if (takeover === 'claim_lost') return claimLostOutcome(job, context.holder, context.posts);
  return record ? alreadySubmittedOutcome(job, { payloadChanged: record.payloadHash !== hashPayload(job.payload) }, record) : null;
}

/** The API as configured cannot be used (apiUnusableOf): the order fails with `advice`, the ledger keeps `mark`, the run stops. */
function unusableApi(state: SendState, err: HttpError, job: SubmissionJob, mark: LedgerMark, advice: string): SendStep {
  const stop = apiUnusableOf(err)!;
  const outcome: SubmitOutcome = {
    status: 'failed',
    posts: state.posts,
    httpStatus: err.status,
    ...(err.requestId ? { requestId: err.requestId } : {}),
    issues: [orderIssue(job, `Not accepted: ${stop.message}. ${advice}`)],
  };
  return { state, mark, stop, next: { kind: 'done', outcome } };
}

/** The API refused the order: recorded as rejected, with issues on the cells the refusal names. */
function refusal(state: SendState, err: HttpError, job: SubmissionJob): Pick<SendStep, 'mark' | 'next'> {
  return {
    mark: { to: 'rejected', info: answerOf(err) },
    next: { kind: 'done', outcome: { status: 'rejected', posts: state.posts, httpStatus: err.status, requestId: err.requestId, issues: rejectionIssues(job, err) } },
  };
}

function answerOf(err: HttpError): AnswerInfo {
  return { httpStatus: err.status, requestId: err.requestId ?? null, message: err.message };
}

function orderIssue(job: SubmissionJob, message: string) {
  return issueAt(job.sheet, job.order.rows[0] ?? null, null, 'failed', message);
}
