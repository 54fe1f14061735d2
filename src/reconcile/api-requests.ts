/**
 * Reconcile's requests to the API, through one concurrency limit with the client's retry policy
 * (transient failures only, exponential backoff with full jitter, Retry-After honoured) and the
 * wholesale-failure guard. The first error that outlasts its retries stops every other request: a
 * reconciliation built on half the answers would be wrong without saying so.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleepFor } from 'node:timers/promises';
import pLimit, { type LimitFunction } from 'p-limit';
import { createFailureGuard, type FailureGuard } from '../api/breaker.js';
import { describeApiTrouble } from '../api/error-message.js';
import { isRetryable, TransportError } from '../api/errors.js';
import { DEFAULT_BACKOFF, retrying } from '../api/retry.js';
import { failingWholesale, isUnusableForEveryRequest } from '../api/unusable.js';
import { ApiUnusableError } from '../errors.js';
import type { Logger } from '../log.js';

export interface ReaderStats {
  requests: number;
  retries: number;
  trackingPages: number;
}

export interface ApiRequestsOptions {
  /** Requests in flight at once. */
  concurrency: number;
  /** Attempts per request, the first included. */
  maxAttempts: number;
  logger: Logger;
  /** Injected for tests: no real waiting. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  /** Monotonic milliseconds for the failure guard; default performance.now. */
  monotonicNow?: () => number;
}

export class ApiRequests {
  readonly stats: ReaderStats = { requests: 0, retries: 0, trackingPages: 0 };
  private readonly limit: LimitFunction;
  private readonly guard: FailureGuard;
  private readonly stop = new AbortController();
  /** The last retryable failure, worded by cause, for the message of a run that stops on them. */
  private lastTrouble: string | undefined;

  constructor(private readonly options: ApiRequestsOptions) {
    // rejectOnClear: tasks still queued when the run stops must settle, or awaiting them would hang.
    this.limit = pLimit({ concurrency: options.concurrency, rejectOnClear: true });
    this.guard = createFailureGuard({ now: options.monotonicNow ?? (() => performance.now()) });
  }

  get concurrency(): number {
    return this.options.concurrency;
  }

  /** Aborted once a request has stopped the run; its reason is the error that did. */
  get signal(): AbortSignal {
    return this.stop.signal;
  }

  /**
   * One request with retries; the first failure that outlasts them aborts everything else, unless
   * the request is optional (its failure is the caller's to handle).
   */
  call<T>(what: string, fn: (signal: AbortSignal) => Promise<T>, isOptional = false): Promise<T> {
    const { signal } = this.stop;
    return this.limit(async () => {
      signal.throwIfAborted();
      try {
        return await retrying(() => this.attempt(fn), {
          maxAttempts: this.options.maxAttempts,
          policy: DEFAULT_BACKOFF,
          // An answer too large stays too large: not worth a retry.
          shouldRetry: (error) => isRetryable(error) && !(error instanceof TransportError && error.code === 'response_too_large'),
          signal,
          ...(this.options.sleep ? { sleep: this.options.sleep } : {}),
          ...(this.options.random ? { random: this.options.random } : {}),
          onRetry: ({ attempt, error, delayMs }) => {
            this.stats.retries++;
            this.options.logger.debug({ what, attempt, delayMs, err: (error as Error).message }, 'retrying a read');
          },
        });
      } catch (error) {
        if (isOptional && !signal.aborted && !isUnusableForEveryRequest(error)) throw error;
        this.stopAll(error);
        throw error;
      }
    });
  }

  /** Stops every request queued or in flight; the first reason given is the one the run reports. */
  stopAll(reason: unknown): void {
    if (this.stop.signal.aborted) return;
    this.stop.abort(reason);
    this.limit.clearQueue();
  }

  /** Runs every task; on the first failure, rejects with the error that stopped the run (not an abort it caused). */
  async all<T>(tasks: Promise<T>[]): Promise<T[]> {
    const settled = await Promise.allSettled(tasks);
    if (this.stop.signal.aborted) throw this.stop.signal.reason;
    return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
  }

  /** One attempt, after the pause the failure guard asks for, its outcome recorded by the guard. */
  private async attempt<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const { guard, stop } = this;
    const pause = guard.delayBeforeNextMs();
    if (pause > 0) await (this.options.sleep ?? defaultSleep)(pause, stop.signal);
    if (guard.shouldStop()) throw new ApiUnusableError(`${failingWholesale(this.lastTrouble).message}; reconcile stopped early. Try again later.`, { kind: 'unavailable' });
    this.stats.requests++;
    try {
      const result = await fn(stop.signal);
      guard.record('success');
      return result;
    } catch (error) {
      const isFailure = isRetryable(error);
      guard.record(isFailure ? 'failure' : 'success');
      if (isFailure) this.lastTrouble = describeApiTrouble(error);
      throw error;
    }
  }
}

async function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  await sleepFor(ms, undefined, signal ? { signal } : undefined);
}
