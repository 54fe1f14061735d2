/**
 * Retry timing (ky's retry-timing.ts is the model): pure arithmetic, plus a small loop whose sleep
 * and randomness are handed in, so tests run it without waiting. What is worth retrying is the
 * caller's decision (`shouldRetry`): a create whose reply was lost must be looked up, not re-sent.
 */
import { setTimeout as sleepFor } from 'node:timers/promises';
import { reportRetry } from './exchange-observers.js';

export interface BackoffPolicy {
  /** Ceiling of the first retry's delay. */
  baseMs: number;
  /** The exponential ceiling stops growing here. */
  maxMs: number;
  /** What the server asked for (Retry-After); the delay is never shorter. */
  retryAfterMs?: number;
  /** A server asking for longer than this gets this: a run must not stall on one header. Default 60 s. */
  retryAfterMaxMs?: number;
}

/** 0.5 s, 1 s, 2 s, ... up to 30 s: enough to ride out a deploy or a rate limit window. */
export const DEFAULT_BACKOFF: Readonly<Pick<BackoffPolicy, 'baseMs' | 'maxMs'>> = { baseMs: 500, maxMs: 30_000 };
export const DEFAULT_RETRY_AFTER_MAX_MS = 60_000;

/**
 * Delay before retry number `attempt` (1 = the first retry): exponential backoff with full jitter,
 * random() * min(maxMs, baseMs * 2^(attempt-1)), spreading clients out so they do not return in
 * lockstep; but never less than the server's Retry-After (itself capped at retryAfterMaxMs).
 */
export function backoffDelayMs(attempt: number, policy: BackoffPolicy, random: () => number): number {
  const step = Math.max(1, Math.floor(attempt));
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** (step - 1));
  const jittered = Math.floor(clamp01(random()) * Math.max(0, ceiling));
  const floor = retryAfterFloorMs(policy);
  return Math.max(jittered, floor);
}

function retryAfterFloorMs(policy: BackoffPolicy): number {
  const { retryAfterMs } = policy;
  if (retryAfterMs === undefined || !Number.isFinite(retryAfterMs) || retryAfterMs <= 0) return 0;
  return Math.ceil(Math.min(retryAfterMs, policy.retryAfterMaxMs ?? DEFAULT_RETRY_AFTER_MAX_MS));
}

function clamp01(value: number): number {
  if (!(value > 0)) return 0;
  return value >= 1 ? 1 - Number.EPSILON : value;
}

/**
 * Retry-After as milliseconds from `nowMs`: delay-seconds ("2", "1.5") or an HTTP date (a date in
 * the past means 0). Undefined when absent or unreadable.
 */
export function parseRetryAfterMs(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  if (/^\d+(?:\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  // Only dates with letters (IMF-fixdate "Wed, 21 Oct 2015 07:28:00 GMT" and its old forms), not "-5".
  if (!/[a-z]/i.test(trimmed)) return undefined;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

export interface RetryEvent {
  /** The attempt that just failed (1-based). */
  attempt: number;
  error: unknown;
  delayMs: number;
}

export interface RetryingOptions {
  /** Attempts in all, the first included (1 = no retry). */
  maxAttempts: number;
  policy: Pick<BackoffPolicy, 'baseMs' | 'maxMs' | 'retryAfterMaxMs'>;
  /** Decides per error; errors it refuses are rethrown at once. */
  shouldRetry: (error: unknown, attempt: number) => boolean;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  onRetry?: (event: RetryEvent) => void;
  /** The server's wish for a given error; default: its numeric `retryAfterMs` property (HttpError). */
  retryAfterMsOf?: (error: unknown) => number | undefined;
  signal?: AbortSignal;
  /** False: not an API request's retry (a notification's), kept out of the API's retry count. */
  isObserved?: boolean;
}

/**
 * Calls fn(attempt) until it resolves, the error is not retryable, attempts run out or the signal
 * aborts. Whatever stops it, the error thrown is the last attempt's own: a caller aborted during a
 * wait still learns what happened to the request it made (e.g. that its outcome is unknown).
 * An abort before the first attempt throws the signal's reason.
 */
export async function retrying<T>(fn: (attempt: number) => Promise<T>, options: RetryingOptions): Promise<T> {
  const { maxAttempts, policy, shouldRetry, signal } = options;
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  const retryAfterMsOf = options.retryAfterMsOf ?? defaultRetryAfterMsOf;
  signal?.throwIfAborted();
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (error) {
      if (attempt >= maxAttempts || signal?.aborted || !shouldRetry(error, attempt)) throw error;
      const delayMs = backoffDelayMs(attempt, { ...policy, retryAfterMs: retryAfterMsOf(error) }, random);
      options.onRetry?.({ attempt, error, delayMs });
      if (options.isObserved !== false) reportRetry({ attempt });
      try {
        await sleep(delayMs, signal);
      } catch (sleepError) {
        if (signal?.aborted) throw error;
        throw sleepError;
      }
      if (signal?.aborted) throw error;
    }
  }
}

async function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  await sleepFor(ms, undefined, signal ? { signal } : undefined);
}

function defaultRetryAfterMsOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const value = (error as { retryAfterMs?: unknown }).retryAfterMs;
  return typeof value === 'number' ? value : undefined;
}
