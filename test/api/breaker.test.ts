import { describe, expect, it } from 'vitest';
import { createFailureGuard, FAILURE_GUARD_DEFAULTS, type AttemptOutcome } from '../../src/api/breaker.js';

function fakeClock(start = Date.parse('2030-01-01T00:00:00Z')) {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

function feed(guard: { record(o: AttemptOutcome): void }, outcome: AttemptOutcome, times: number) {
  for (let i = 0; i < times; i++) guard.record(outcome);
}

describe('createFailureGuard', () => {
  it('does not slow down a healthy run', () => {
    const clock = fakeClock();
    const guard = createFailureGuard({ now: clock.now });
    feed(guard, 'success', 100);
    expect(guard.delayBeforeNextMs()).toBe(0);
    expect(guard.shouldStop()).toBe(false);
  });

  it('does not judge before minSamples attempts, however bad they are', () => {
    const clock = fakeClock();
    const guard = createFailureGuard({ now: clock.now, minSamples: 20 });
    feed(guard, 'failure', 19);
    clock.advance(10 * 60_000);
    expect(guard.delayBeforeNextMs()).toBe(0);
    expect(guard.shouldStop()).toBe(false);
  });

  it('slows down as the failure ratio climbs past slowDownRatio, up to cooldownMs', () => {
    const clock = fakeClock();
    const guard = createFailureGuard({ now: clock.now, windowSize: 20, minSamples: 20, slowDownRatio: 0.5, cooldownMs: 30_000 });
    feed(guard, 'success', 10);
    feed(guard, 'failure', 10); // 50%
    expect(guard.delayBeforeNextMs()).toBe(0);
    feed(guard, 'failure', 5); // window: 5 successes, 15 failures = 75%
    expect(guard.delayBeforeNextMs()).toBe(15_000);
    feed(guard, 'failure', 5); // 100%
    expect(guard.delayBeforeNextMs()).toBe(30_000);
  });

  it('recovers its pace as successes push failures out of the window', () => {
    const clock = fakeClock();
    const guard = createFailureGuard({ now: clock.now, windowSize: 20, minSamples: 10 });
    feed(guard, 'failure', 20);
    expect(guard.delayBeforeNextMs()).toBeGreaterThan(0);
    feed(guard, 'success', 10);
    expect(guard.delayBeforeNextMs()).toBe(0);
  });

  it('stops once at least 90% of the last attempts failed for the minimum duration', () => {
    const clock = fakeClock();
    const guard = createFailureGuard({ now: clock.now, windowSize: 50, minSamples: 20, stopRatio: 0.9, minDurationMs: 60_000 });
    feed(guard, 'failure', 25);
    expect(guard.shouldStop()).toBe(false);
    clock.advance(59_999);
    guard.record('failure');
    expect(guard.shouldStop()).toBe(false);
    clock.advance(1);
    expect(guard.shouldStop()).toBe(true);
  });

  it('rides out a burst of failures shorter than the minimum duration', () => {
    const clock = fakeClock();
    const guard = createFailureGuard({ now: clock.now, windowSize: 20, minSamples: 20, minDurationMs: 60_000 });
    feed(guard, 'failure', 20);
    clock.advance(30_000);
    feed(guard, 'success', 5); // 75%: below the stop ratio, the clock restarts
    clock.advance(40_000);
    feed(guard, 'failure', 20); // 100% again, but only since just now
    expect(guard.shouldStop()).toBe(false);
    clock.advance(60_000);
    expect(guard.shouldStop()).toBe(true);
  });

  it('does not count a long healthy history as time spent failing', () => {
    const clock = fakeClock();
    const guard = createFailureGuard({ now: clock.now, windowSize: 50, minSamples: 20 });
    feed(guard, 'success', 50);
    clock.advance(3_600_000);
    feed(guard, 'failure', 50);
    expect(guard.state().failureRatio).toBe(1);
    expect(guard.shouldStop()).toBe(false);
  });

  it('stays stopped once it has decided to stop', () => {
    const clock = fakeClock();
    const guard = createFailureGuard({ now: clock.now, windowSize: 20, minSamples: 20, minDurationMs: 1000 });
    feed(guard, 'failure', 20);
    clock.advance(1000);
    expect(guard.shouldStop()).toBe(true);
    feed(guard, 'success', 20);
    expect(guard.shouldStop()).toBe(true);
    expect(guard.state().stopped).toBe(true);
  });

  it('documents its defaults', () => {
    expect(FAILURE_GUARD_DEFAULTS).toEqual({ windowSize: 50, minSamples: 20, slowDownRatio: 0.5, stopRatio: 0.9, minDurationMs: 60_000, cooldownMs: 30_000 });
    const guard = createFailureGuard({ now: fakeClock().now });
    feed(guard, 'failure', 50);
    expect(guard.delayBeforeNextMs()).toBe(30_000);
  });
});
