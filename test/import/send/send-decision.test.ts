/**
 * The sending path's decisions, one row per case: what the ledger records, what the order comes to,
 * and what happens next, for each answer (or failure) of a POST and of a lookup.
 */
import { describe, expect, it } from 'vitest';
import { AuthError, ForbiddenError, HttpError, TransportError, UnusableAnswerError } from '../../../src/api/errors.js';
import { LedgerStateError, LedgerUnusableError } from '../../../src/ledger/errors.js';
import {
  decideAfterLedgerError,
  decideAfterLookup,
  decideAfterLookupError,
  decideAfterPost,
  finishSending,
  startSending,
  type PostResult,
  type SendState,
} from '../../../src/import/send/send-decision.js';
import type { SubmissionJob } from '../../../src/import/send/types.js';
import type { OrderState } from '../../../src/ledger/types.js';
import { buildOrderPayload } from '../../support/order-payload.js';

const URL = 'https://api.example.com/api/v0/orders';
const job: SubmissionJob = {
  order: { rows: [2, 3] } as unknown as SubmissionJob['order'],
  payload: buildOrderPayload('O-1'),
  sheet: { headers: ['customerOrderId', 'productId'], columns: ['customerOrderId', 'productId'] },
  file: 'orders.csv',
  sha256: 'abc',
};
const context = { job, attempt: 1, maxAttempts: 3, backoff: { baseMs: 1000, maxMs: 30_000 }, random: () => 0.5 };

const http = (status: number, message: string, extra: { retryAfterMs?: number; requestId?: string; body?: unknown } = {}) =>
  new HttpError(message, { method: 'POST', url: URL, status, body: extra.body ?? { message }, requestId: extra.requestId, retryAfterMs: extra.retryAfterMs });
const transport = (code: string, isSent: boolean) => new TransportError(`${code} on POST ${URL}`, { method: 'POST', url: URL, code, isSent });
const failed = (error: unknown): PostResult => ({ ok: false, error });

/** An order this run is sending: fresh (previous null), or taken over from a run that left it `previous`. */
function sending(previous: OrderState | null = null, changes: Partial<SendState> = {}): SendState {
  const decided = previous !== null && ['sending', 'unknown', 'failed'].includes(previous) ? 'lookup' : 'send';
  return { ...startSending({ action: decided, previous: previous === null ? null : ({ state: previous } as never) }), mustLookUp: false, posts: 1, ...changes };
}

describe('after a POST', () => {
  it.each([
    {
      case: '201: accepted, gathered into the next commit',
      state: sending(),
      result: { ok: true, httpStatus: 201, requestId: 'r-1', submittedAt: '2031-05-06T07:08:09.000Z' } as PostResult,
      mark: { to: 'accepted', info: { httpStatus: 201, requestId: 'r-1', submittedAt: '2031-05-06T07:08:09.000Z' }, isGathered: true },
      guard: 'success',
      next: { kind: 'done', outcome: { status: 'accepted', httpStatus: 201, requestId: 'r-1', posts: 1 } },
    },
    {
      case: '400: rejected, the refusal on the cells it names',
      state: sending(),
      result: failed(http(400, 'Validation failed', { requestId: 'q-1', body: { message: 'Validation failed', errors: [{ field: 'lineItems[1].productId', message: 'unknown' }] } })),
      mark: { to: 'rejected', info: { httpStatus: 400, requestId: 'q-1', message: 'Validation failed' } },
      guard: 'success',
      next: { kind: 'done', outcome: { status: 'rejected', httpStatus: 400, issues: [{ row: 3, column: 'productId', code: 'api_rejected' }] } },
    },
    {
      case: '409 duplicate of an order this tool never sent: rejected as already existing',
      state: sending(),
      result: failed(http(409, "Order 'O-1' already exists.")),
      mark: { to: 'rejected', info: { httpStatus: 409 } },
      guard: 'success',
      next: { kind: 'done', outcome: { status: 'rejected', issues: [{ row: 2, column: 'customerOrderId', code: 'already_exists' }] } },
    },
    {
      case: '409 duplicate after this run lost a reply: looked up before being called a refusal',
      state: sending(null, { sawUnknown: true, posts: 2 }),
      result: failed(http(409, "Order 'O-1' already exists.")),
      mark: undefined,
      guard: 'success',
      next: { kind: 'verify_duplicate' },
    },
    {
      case: '409 duplicate of an order an earlier run left unknown: looked up first',
      state: sending('unknown'),
      result: failed(http(409, "Order 'O-1' already exists.")),
      mark: undefined,
      guard: 'success',
      next: { kind: 'verify_duplicate' },
    },
    {
      case: '409 out of stock: rejected on the line of that product',
      state: sending(),
      result: failed(http(409, "Out of stock for ProductId 'P-1'.")),
      mark: { to: 'rejected', info: { httpStatus: 409 } },
      guard: 'success',
      next: { kind: 'done', outcome: { status: 'rejected', issues: [{ row: 2, column: 'productId', code: 'out_of_stock' }] } },
    },
    {
      case: '401 twice (a fresh token refused too): failed, the run stops',
      state: sending(),
      result: failed(new AuthError('The API refused a freshly issued token', { method: 'POST', url: URL, status: 401, body: '', reason: 'token' })),
      mark: { to: 'failed', info: { httpStatus: 401 } },
      guard: undefined,
      stop: { kind: 'auth' },
      next: { kind: 'done', outcome: { status: 'failed', httpStatus: 401 } },
    },
    {
      case: '401 from the token endpoint (credentials): the POST never left, failed, the run stops',
      state: sending(),
      result: failed(new AuthError('The token endpoint refused the client id and secret', { method: 'POST', url: URL, status: 401, body: '', stage: 'token', reason: 'credentials' })),
      mark: { to: 'failed', info: { httpStatus: 401 } },
      guard: undefined,
      stop: { kind: 'auth' },
      next: { kind: 'done', outcome: { status: 'failed' } },
    },
    {
      case: '403: failed, the run stops',
      state: sending(),
      result: failed(new ForbiddenError('Forbidden', { method: 'POST', url: URL, status: 403, body: '' })),
      mark: { to: 'failed', info: { httpStatus: 403 } },
      guard: undefined,
      stop: { kind: 'forbidden' },
      next: { kind: 'done', outcome: { status: 'failed', httpStatus: 403 } },
    },
    {
      case: '404 on a fresh order: nothing stored, resendable, the run stops',
      state: sending(),
      result: failed(http(404, 'Not Found')),
      mark: { to: 'rejected', info: { httpStatus: 404 } },
      guard: undefined,
      stop: { kind: 'no_endpoint' },
      next: { kind: 'done', outcome: { status: 'failed', httpStatus: 404 } },
    },
    {
      case: '404 after an unknown outcome: stays unknown, to be looked up first',
      state: sending(null, { sawUnknown: true }),
      result: failed(http(404, 'Not Found')),
      mark: { to: 'unknown', info: { httpStatus: 404 } },
      guard: undefined,
      stop: { kind: 'no_endpoint' },
      next: { kind: 'done', outcome: { status: 'failed' } },
    },
    {
      case: '429 with Retry-After 5 s: not stored, retried no sooner than asked',
      state: sending(),
      result: failed(http(429, 'Too Many Requests', { retryAfterMs: 5_000 })),
      mark: undefined,
      guard: 'failure',
      next: { kind: 'retry', delayMs: 5_000 },
      after: { sawUnknown: false, mustLookUp: false, lastStatus: 429 },
    },
    {
      case: '503 with Retry-After: shedding load before any work, retried without a lookup',
      state: sending(),
      result: failed(http(503, 'Service Unavailable', { retryAfterMs: 2_000 })),
      mark: undefined,
      guard: 'failure',
      next: { kind: 'retry', delayMs: 2_000 },
      after: { mustLookUp: false },
    },
    {
      case: '502: may be stored, unknown, looked up before the retry',
      state: sending(),
      result: failed(http(502, 'Bad Gateway')),
      mark: { to: 'unknown', info: { httpStatus: 502 } },
      guard: 'failure',
      next: { kind: 'retry', delayMs: 500 },
      after: { sawUnknown: true, mustLookUp: true, lastStatus: 502 },
    },
    {
      case: 'timeout: unknown, looked up before the retry',
      state: sending(),
      result: failed(transport('timeout', true)),
      mark: { to: 'unknown', info: { httpStatus: null } },
      guard: 'failure',
      next: { kind: 'retry', delayMs: 500 },
      after: { sawUnknown: true, mustLookUp: true, lastStatus: undefined },
    },
    {
      case: 'connection reset mid-request (a lost reply): unknown',
      state: sending(),
      result: failed(transport('ECONNRESET', true)),
      mark: { to: 'unknown' },
      guard: 'failure',
      next: { kind: 'retry' },
      after: { mustLookUp: true },
    },
    {
      case: 'connection refused: the request never left, retried without a lookup',
      state: sending(),
      result: failed(transport('ECONNREFUSED', false)),
      mark: undefined,
      guard: 'failure',
      next: { kind: 'retry' },
      after: { sawUnknown: false, mustLookUp: false },
    },
    {
      case: 'the last attempt fails: no retry left',
      state: sending(null, { posts: 3 }),
      result: failed(http(500, 'Internal Server Error')),
      attempt: 3,
      mark: { to: 'unknown' },
      guard: 'failure',
      next: { kind: 'give_up' },
    },
    {
      case: 'a 2xx that is not the API answer (a proxy page): may be stored, unknown, the run stops',
      state: sending(),
      result: failed(new UnusableAnswerError('The API answered 201 Created but the body is not JSON', { method: 'POST', url: URL, status: 201, body: '<html>' })),
      mark: { to: 'unknown', info: { httpStatus: 201 } },
      guard: undefined,
      stop: { kind: 'no_endpoint' },
      next: { kind: 'done', outcome: { status: 'failed', httpStatus: 201, issues: [{ code: 'failed' }] } },
    },
    {
      case: 'a bug (not an API failure): thrown as it is',
      state: sending(),
      result: failed(new TypeError('x is undefined')),
      mark: undefined,
      guard: undefined,
      next: { kind: 'raise' },
    },
    {
      case: 'the caller aborted the request: not an API failure either',
      state: sending(),
      result: failed(transport('aborted', true)),
      mark: undefined,
      guard: undefined,
      next: { kind: 'raise' },
    },
  ])('$case', ({ state, result, attempt, mark, guard, stop, next, after }) => {
    const step = decideAfterPost(state, result, { ...context, attempt: attempt ?? 1 });
    if (mark === undefined) expect(step.mark).toBeUndefined();
    else expect(step.mark).toMatchObject(mark);
    expect(step.guard).toBe(guard);
    if (stop === undefined) expect(step.stop).toBeUndefined();
    else expect(step.stop).toMatchObject(stop);
    expect(step.next).toMatchObject(next);
    if (after) expect(step.state).toMatchObject(after);
  });

  it('spreads retries with full jitter, doubling the ceiling per attempt', () => {
    const delays = [1, 2, 3].map((attempt) => decideAfterPost(sending(), failed(http(500, 'oops')), { ...context, attempt, maxAttempts: 5, random: () => 0.999 }).next);
    expect(delays).toEqual([
      { kind: 'retry', delayMs: 999 },
      { kind: 'retry', delayMs: 1998 },
      { kind: 'retry', delayMs: 3996 },
    ]);
  });
});

describe('after a lookup', () => {
  it('found after an unknown outcome: accepted at once, with the times the ledger records', () => {
    const step = decideAfterLookup(sending('unknown', { mustLookUp: true, posts: 0 }), { found: true, requestId: 'g-1' }, job);
    expect(step.mark).toEqual({ to: 'accepted', info: { requestId: 'g-1', message: 'found by lookup after an unknown outcome' }, isGathered: false });
    expect(step.next).toMatchObject({ kind: 'done', isFromLedger: true, outcome: { status: 'accepted', requestId: 'g-1', posts: 0 } });
  });

  it('not found: the order goes out now, without another lookup', () => {
    const step = decideAfterLookup(sending('sending', { mustLookUp: true }), { found: false }, job);
    expect(step.mark).toBeUndefined();
    expect(step.next).toEqual({ kind: 'send' });
    expect(step.state.mustLookUp).toBe(false);
  });

  it('could not be made: no POST, the order gives up with the reason', () => {
    const step = decideAfterLookup(sending('unknown', { mustLookUp: true }), { failed: true, lastTrouble: 'the API did not answer (timeout)' }, job);
    expect(step.next).toEqual({ kind: 'give_up' });
    expect(step.state.lastProblem).toBe('the order could not be looked up: the API did not answer (timeout)');
  });

  it('of a 409 duplicate, found: our own earlier send, accepted', () => {
    const duplicate = http(409, "Order 'O-1' already exists.", { requestId: 'q-9' });
    const step = decideAfterLookup(sending(null, { sawUnknown: true, duplicate }), { found: true }, job);
    expect(step.mark).toEqual({ to: 'accepted', info: { requestId: 'q-9', message: 'duplicate of our own earlier send' }, isGathered: false });
    expect(step.next).toMatchObject({ kind: 'done', isFromLedger: true, outcome: { status: 'accepted', requestId: 'q-9' } });
    expect(step.state.duplicate).toBeUndefined();
  });

  it.each([{ found: false as const }, { failed: true as const, lastTrouble: undefined }])('of a 409 duplicate, not found (%o): the refusal stands', (lookup) => {
    const step = decideAfterLookup(sending(null, { sawUnknown: true, duplicate: http(409, "Order 'O-1' already exists.") }), lookup, job);
    expect(step.mark).toMatchObject({ to: 'rejected', info: { httpStatus: 409 } });
    expect(step.next).toMatchObject({ kind: 'done', outcome: { status: 'rejected' } });
  });

  it.each([
    { case: 'an HTML page where the API should be: the run stops, nothing retried', error: new UnusableAnswerError('not JSON', { method: 'GET', url: URL, status: 200, body: '<html>' }), attempt: 1, expected: { stop: { kind: 'no_endpoint' }, next: { kind: 'give_up' } } },
    { case: 'a 503: retried after the backoff', error: http(503, 'Service Unavailable'), attempt: 1, expected: { guard: 'failure', next: { kind: 'retry', delayMs: 500 } } },
    { case: 'a 503 on the last attempt: given up', error: http(503, 'Service Unavailable'), attempt: 3, expected: { guard: 'failure', next: { kind: 'give_up' } } },
    { case: 'a bug: thrown', error: new RangeError('bad'), attempt: 1, expected: { next: { kind: 'raise' } } },
  ])('a lookup that failed with $case', ({ error, attempt, expected }) => {
    const { stop, ...rest } = expected as { stop?: object };
    expect(decideAfterLookupError(error, { ...context, attempt })).toEqual(stop ? { ...rest, stop: expect.objectContaining(stop) } : rest);
  });
});

describe('when the attempts are over', () => {
  it.each([
    { case: 'every POST answered (503s): failed', state: sending(null, { posts: 3, lastStatus: 503, lastProblem: 'the API answered with server errors' }), stopped: undefined, mark: { to: 'failed', info: { httpStatus: 503 } }, status: 'failed', message: /^Not accepted after 3 attempts: the API answered with server errors\. Run the import again/ },
    { case: 'some POST may have arrived: unknown, looked up by the next run', state: sending(null, { posts: 3, sawUnknown: true, mustLookUp: true }), stopped: undefined, mark: { to: 'unknown' }, status: 'failed', message: /^Not accepted after 3 attempts/ },
    { case: 'interrupted before it went out: not sent, nothing recorded', state: sending(null, { posts: 0 }), stopped: { kind: 'interrupted' as const, message: 'the run was interrupted' }, mark: undefined, status: 'failed', message: /^Not sent: the run stopped early \(the run was interrupted\)\. Run the import again to send it\.$/ },
    { case: 'an unknown order the run stopped before looking up: stays unknown', state: sending('unknown', { posts: 0, mustLookUp: true }), stopped: { kind: 'unavailable' as const, message: 'the fulfillment API kept failing' }, mark: { to: 'unknown' }, status: 'failed', message: /^Not sent: the run stopped early/ },
  ])('$case', ({ state, stopped, mark, status, message }) => {
    const end = finishSending(state, job, stopped);
    if (mark === undefined) expect(end.mark).toBeUndefined();
    else expect(end.mark).toMatchObject(mark);
    expect(end.outcome.status).toBe(status);
    expect(end.outcome.issues[0]!.message).toMatch(message);
  });
});

describe('when the ledger fails under an order', () => {
  const full = new LedgerUnusableError('/x/ledger.db', 'SQLITE_FULL', 'The ledger /x/ledger.db could not be written: the disk is full. Free some space on that disk, then run the same command again.');

  it('a storage failure stops the run (kind ledger, the failure kept) and leaves the order not settled, for the next run to look up', () => {
    const decided = decideAfterLedgerError(full, job);
    expect(decided?.stop).toEqual({ kind: 'ledger', message: 'the ledger /x/ledger.db could not be written: the disk is full. Free some space on that disk, then run the same command again', failure: full });
    expect(decided?.outcome).toMatchObject({ status: 'failed', posts: 0, issues: [{ row: 2, code: 'failed', severity: 'error' }] });
    expect(decided?.outcome.issues[0]!.message).toMatch(/^Not settled: the ledger could not record this order\. The ledger \/x\/ledger\.db could not be written: the disk is full\..* an order that may have gone out is looked up before it is sent again\.$/);
  });

  it.each([
    { case: 'a bug', error: new TypeError('x is undefined') },
    { case: 'a transition the ledger forbids', error: new LedgerStateError('O-1', 'accepted', 'reject') },
    { case: 'an SQLite error nobody classified', error: Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' }) },
  ])('$case is no ledger failure: thrown as it is', ({ error }) => {
    expect(decideAfterLedgerError(error, job)).toBeNull();
  });

  it('an order the run stopped before sending says why, in the ledger\'s words', () => {
    const stopped = decideAfterLedgerError(full, job)!.stop;
    const end = finishSending(sending(null, { posts: 0 }), job, stopped);
    expect(end.mark).toBeUndefined();
    expect(end.outcome.issues[0]!.message).toMatch(/^Not sent: the run stopped early \(the ledger \/x\/ledger\.db could not be written: the disk is full\. .*\)\. Run the import again to send it\.$/);
  });
});
