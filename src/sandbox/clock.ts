/**
 * The sandbox clock: simulated time that runs with real time (unless frozen) plus every
 * advanceClock offset. Tokens, the orderDate window, redaction and fulfillment all read it,
 * so a test moves a week forward without sleeping.
 */

export interface SandboxClock {
  nowMs(): number;
  /** Moves simulated time forward; hours must be finite and >= 0. */
  advance(hours: number): void;
}

export interface ClockOptions {
  /** Simulated time at start; default the real time at start. */
  startMs?: number;
  /** When true the clock moves only by advance(); default false. */
  frozen?: boolean;
  /** Real time source; default Date.now. */
  realNowMs?: () => number;
}

export function createSandboxClock(options: ClockOptions = {}): SandboxClock {
  const realNow = options.realNowMs ?? Date.now;
  const realStart = realNow();
  const start = options.startMs ?? realStart;
  let advancedMs = 0;
  return {
    nowMs: () => start + advancedMs + (options.frozen ? 0 : realNow() - realStart),
    advance(hours) {
      if (!Number.isFinite(hours) || hours < 0) throw new RangeError(`advanceClock needs a finite number of hours >= 0, got ${hours}`);
      advancedMs += Math.round(hours * 3_600_000);
    },
  };
}
