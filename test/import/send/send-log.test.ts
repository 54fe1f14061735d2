/**
 * What a sending run says, to the person reading the result and to a cron log: failures worded by
 * their cause (rate-limited, server errors, unreachable), and at info level in the JSON log the start,
 * each change of pace the failure guard makes, an early stop and its reason, and one closing line.
 */
import { describe, expect, it } from 'vitest';
import { createFailureGuard } from '../../../src/api/breaker.js';
import { describeApiTrouble } from '../../../src/api/error-message.js';
import { HttpError, TransportError } from '../../../src/api/errors.js';
import type { ApiClient } from '../../../src/api/types.js';
import type { CreateOrderPayload } from '../../../src/contract/schemas.js';
import { submitOrders } from '../../../src/import/send/submit.js';
import { jobOf } from '../support.js';
import { openLedger } from '../../../src/ledger/index.js';
import type { LogLevel } from '../../../src/log.js';
import { buildOrderPayload } from '../../support/order-payload.js';
import { recordingLogger } from '../../support/recording-logger.js';

const URL = 'http://api.test/api/v0/orders';
const rateLimited = () => new HttpError('Too Many Requests', { method: 'POST', url: URL, status: 429, body: '' });
const serverError = (status: number) => new HttpError(status === 503 ? 'Service Unavailable' : 'Internal Server Error', { method: 'POST', url: URL, status, body: '' });
const refused = () => new TransportError(`POST ${URL} failed: connection refused`, { method: 'POST', url: URL, code: 'ECONNREFUSED', isSent: false });

/** An API whose createOrder answers with `fail(call)` (an error to throw, or undefined to accept). */
function scriptedApi(fail: (call: number) => Error | undefined) {
  let calls = 0;
  const client = {
    async createOrder(payload: CreateOrderPayload) {
      const error = fail(++calls);
      if (error) throw error;
      return { status: 201, requestId: `req-${payload.orderDetails.customerOrderId}` };
    },
    async getOrder() {
      return null;
    },
  } as unknown as ApiClient;
  return client;
}

/** A run on a fake clock that pauses move forward: a minute of failures passes at once. */
async function run(client: ApiClient, options: { orders: number; maxAttempts?: number; logLevel?: LogLevel }) {
  let clock = Date.UTC(2026, 10, 20, 2, 0, 0);
  const now = () => (clock += 50);
  const guard = createFailureGuard({ now, minSamples: 10, windowSize: 20, minDurationMs: 20_000, cooldownMs: 5_000 });
  const ledger = await openLedger(':memory:');
  const run = await ledger.startRun({ command: 'import', files: ['orders.csv'] });
  const { logger, lines } = recordingLogger(options.logLevel);
  const jobs = Array.from({ length: options.orders }, (_, i) => jobOf(buildOrderPayload(`N-${i}`, { lines: [{ unitPrice: 10 + i }] })));
  const result = await submitOrders(jobs, {
    client,
    ledger,
    run,
    concurrency: 4,
    maxAttempts: options.maxAttempts ?? 3,
    logger,
    now,
    guard,
    random: () => 0.5,
    sleep: async (ms) => {
      clock += ms;
    },
  });
  await ledger.close();
  return { result, lines, messages: result.outcomes.flatMap((o) => o.issues.map((i) => i.message)) };
}

describe('a failure worded by its cause', () => {
  it('says the API rate-limited the requests on a 429, not that it could not be reached', async () => {
    const { result, messages } = await run(scriptedApi(() => rateLimited()), { orders: 2 });
    expect(result.outcomes.map((o) => o.status)).toEqual(['failed', 'failed']);
    expect(messages[0]).toBe('Not accepted after 3 attempts: the API rate-limited the requests (HTTP 429: Too Many Requests). Run the import again: it checks whether the order arrived before sending it again.');
    for (const m of messages) expect(m).not.toMatch(/could not be reached/);
  });

  it('says the API answered with server errors on a 5xx, and could not be reached when no connection was made', async () => {
    expect((await run(scriptedApi(() => serverError(503)), { orders: 1 })).messages[0]).toContain(': the API answered with server errors (HTTP 503: Service Unavailable).');
    expect((await run(scriptedApi(() => refused()), { orders: 1 })).messages[0]).toContain(': the API could not be reached (POST http://api.test/api/v0/orders failed: connection refused).');
  });

  it('names the cause when the run stops because the API kept failing', async () => {
    const { result, messages } = await run(scriptedApi(() => rateLimited()), { orders: 40, maxAttempts: 6 });
    expect(result.stopped).toEqual({ kind: 'unavailable', message: 'the fulfillment API kept failing: the API rate-limited the requests (HTTP 429: Too Many Requests)' });
    expect(messages.some((m) => m.startsWith('Not sent: the run stopped early (the fulfillment API kept failing: the API rate-limited the requests'))).toBe(true);
  });

  it('words each kind of trouble by itself', () => {
    expect(describeApiTrouble(rateLimited())).toBe('the API rate-limited the requests (HTTP 429: Too Many Requests)');
    expect(describeApiTrouble(serverError(500))).toBe('the API answered with server errors (HTTP 500: Internal Server Error)');
    expect(describeApiTrouble(new HttpError('Request Timeout', { method: 'POST', url: URL, status: 408, body: '' }))).toBe('the API answered with server errors (HTTP 408: Request Timeout)');
    expect(describeApiTrouble(refused())).toBe('the API could not be reached (POST http://api.test/api/v0/orders failed: connection refused)');
    expect(describeApiTrouble(new TransportError(`POST ${URL} timed out waiting for the answer`, { method: 'POST', url: URL, code: 'timeout', isSent: true }))).toBe(
      'the API did not answer (POST http://api.test/api/v0/orders timed out waiting for the answer)',
    );
  });
});

describe('the JSON log of a sending run, at info level', () => {
  it('says when sending starts, that it slows down, that it stops early and why, and ends with the counts', async () => {
    const { lines } = await run(scriptedApi(() => rateLimited()), { orders: 40, maxAttempts: 6 });
    const msgs = lines.map((l) => l.msg);
    expect(lines[0]).toMatchObject({ level: 30, msg: 'sending 40 orders, 4 at a time', orders: 40, concurrency: 4 });
    const slowing = lines.find((l) => /^the API (is failing|fails nearly every request)/.test(l.msg));
    expect(slowing).toMatchObject({ level: 40, cause: 'rate_limited' });
    expect(slowing!.msg).toContain('the API rate-limited the requests (HTTP 429');
    expect(slowing!.msg).toMatch(/pausing [\d.]+ s between attempts/);
    const stop = lines.find((l) => l.msg.startsWith('stopping early'));
    expect(stop).toMatchObject({ level: 40, reason: 'unavailable', cause: 'rate_limited' });
    expect(stop!.msg).toBe('stopping early: the fulfillment API kept failing: the API rate-limited the requests (HTTP 429: Too Many Requests); orders not yet sent go out on the next run');
    const end = lines.at(-1)!;
    expect(end).toMatchObject({ level: 30, orders: 40, summary: { failed: 40 }, failedLeft: 40, unknownLeft: 0, stopped: 'unavailable' });
    expect(end.msg).toMatch(/^sending done in \d+ s, stopped early \(the fulfillment API kept failing: .*\): 40 failed; 40 failed left for the next run$/);
    // A line per change of pace, none per retry: 40 orders and far more attempts make a handful of lines.
    expect(msgs.length).toBeLessThanOrEqual(5);
  });

  it('says when the API answers again after a slowdown', async () => {
    // The first 16 POSTs get a 500 (the order may be stored: looked up before a resend), then all is well.
    const { lines } = await run(scriptedApi((call) => (call <= 16 ? serverError(500) : undefined)), { orders: 30, maxAttempts: 6 });
    const msgs = lines.map((l) => l.msg);
    expect(msgs.findIndex((m) => m.startsWith('the API is failing') || m.startsWith('the API fails nearly every request'))).toBeGreaterThan(0);
    const again = lines.find((l) => l.msg.startsWith('the API is answering again'));
    expect(again).toMatchObject({ level: 30 });
    expect(lines.at(-1)).toMatchObject({ level: 30, summary: { accepted: 30 }, failedLeft: 0, unknownLeft: 0 });
    expect(lines.at(-1)!.msg).toMatch(/: 30 accepted; none left for the next run$/);
    expect(lines).toHaveLength(4);
  });

  it('counts failed orders left with an unknown outcome in the closing line', async () => {
    const { lines } = await run(scriptedApi(() => serverError(502)), { orders: 3, maxAttempts: 2 });
    expect(lines.at(-1)).toMatchObject({ summary: { failed: 3 }, failedLeft: 3, unknownLeft: 3 });
    expect(lines.at(-1)!.msg).toContain('3 failed left for the next run (3 with an unknown outcome, looked up before being sent again)');
  });

  it('writes each retry at debug level only', async () => {
    const { lines } = await run(scriptedApi(() => rateLimited()), { orders: 2, logLevel: 'debug' });
    const retries = lines.filter((l) => l.msg === 'create order failed; will retry');
    expect(retries.length).toBeGreaterThan(0);
    expect(retries.every((l) => l.level === 20)).toBe(true);
    expect(lines.filter((l) => l.level >= 30).map((l) => l.msg)).toHaveLength(2);
  });
});
