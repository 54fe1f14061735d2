/**
 * The wholesale-failure guard (PRODUCT.md section 5: "a run that sees the API failing wholesale
 * slows down and stops early rather than hammering it"). Per-order retries handle a flaky request;
 * this watches the run as a whole. Pure state with an injected clock: callers record each attempt's
 * outcome and ask how long to pause before the next one and whether to give up.
 *
 * Record `failure` for retryable failures only (transport errors, 429, 5xx). A 400 or 409 is the API
 * working as designed and counts as `success` here.
 */

export type AttemptOutcome = 'success' | 'failure';

export interface FailureGuardOptions {
  /** How many recent attempts are judged. Default 50: a few flaky requests barely move it, yet at
   *  concurrency 8 it reflects the last few seconds of traffic. */
  windowSize?: number;
  /** No judgement on fewer attempts than this. Default 20: three unlucky first orders are not an outage. */
  minSamples?: number;
  /** From this failure ratio on, pauses grow with the ratio. Default 0.5: half the calls failing. */
  slowDownRatio?: number;
  /** At or above this ratio, sustained for minDurationMs, the run stops. Default 0.9: the API is down. */
  stopRatio?: number;
  /** How long the ratio must stay at stopRatio before stopping. Default 60 s: a deploy or a load
   *  balancer restart is shorter than that, and a nightly run should ride it out. */
  minDurationMs?: number;
  /** The longest pause between attempts, reached at a 100% failure ratio. Default 30 s, the same
   *  ceiling as the per-request backoff. */
  cooldownMs?: number;
  /** Milliseconds since the epoch. */
  now: () => number;
}

export interface FailureGuardState {
  samples: number;
  failures: number;
  failureRatio: number;
  /** Since when (ms) the ratio has been at stopRatio or above; null when it is not. */
  failingSince: number | null;
  stopped: boolean;
}

/**
 * Where the run stands, for its log: `healthy`; `slowing` (pausing between attempts, the failure ratio
 * at slowDownRatio or above); `failing` (at stopRatio: the run stops if it lasts minDurationMs); `stopped`.
 */
export type GuardPhase = 'healthy' | 'slowing' | 'failing' | 'stopped';

export interface FailureGuard {
  record(outcome: AttemptOutcome): void;
  phase(): GuardPhase;
  /** 0 while things are healthy; up to cooldownMs as the recent failure ratio climbs to 100%. */
  delayBeforeNextMs(): number;
  /** True once the API has been failing wholesale long enough; stays true for the rest of the run. */
  shouldStop(): boolean;
  state(): FailureGuardState;
}

export const FAILURE_GUARD_DEFAULTS = {
  windowSize: 50,
  minSamples: 20,
  slowDownRatio: 0.5,
  stopRatio: 0.9,
  minDurationMs: 60_000,
  cooldownMs: 30_000,
} as const;

export function createFailureGuard(options: FailureGuardOptions): FailureGuard {
  const settings = { ...FAILURE_GUARD_DEFAULTS, ...withoutUndefined(options) };
  const windowSize = Math.max(1, Math.floor(settings.windowSize));
  const minSamples = Math.min(windowSize, Math.max(1, Math.floor(settings.minSamples)));
  const { slowDownRatio, stopRatio, minDurationMs, cooldownMs } = settings;
  const { now } = options;

  // A ring of the last `windowSize` outcomes (true = failure).
  const ring: boolean[] = [];
  let next = 0;
  let failures = 0;
  let failingSince: number | null = null;
  let stopped = false;

  const ratio = (): number => (ring.length < minSamples ? 0 : failures / ring.length);

  return {
    record(outcome) {
      const failed = outcome === 'failure';
      if (ring.length < windowSize) {
        ring.push(failed);
      } else {
        if (ring[next]) failures--;
        ring[next] = failed;
        next = (next + 1) % windowSize;
      }
      if (failed) failures++;
      if (ratio() >= stopRatio) failingSince ??= now();
      else failingSince = null;
    },
    phase() {
      if (stopped) return 'stopped';
      if (failingSince !== null) return 'failing';
      return ratio() >= slowDownRatio && slowDownRatio < 1 ? 'slowing' : 'healthy';
    },
    delayBeforeNextMs() {
      const current = ratio();
      if (current < slowDownRatio || slowDownRatio >= 1) return 0;
      const severity = Math.min(1, (current - slowDownRatio) / (1 - slowDownRatio));
      return Math.round(cooldownMs * severity);
    },
    shouldStop() {
      if (!stopped && failingSince !== null && now() - failingSince >= minDurationMs) stopped = true;
      return stopped;
    },
    state() {
      return { samples: ring.length, failures, failureRatio: ring.length === 0 ? 0 : failures / ring.length, failingSince, stopped };
    },
  };
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
