import { describe, expect, it, vi } from 'vitest';
import { backoffDelayMs, parseRetryAfterMs, retrying } from '../../src/api/retry.js';
import { HttpError } from '../../src/api/errors.js';

const policy = { baseMs: 500, maxMs: 30_000 };

describe('backoffDelayMs', () => {
  it('doubles the ceiling with each attempt: full jitter at random() just below 1 reaches it', () => {
    const top = () => 0.999999;
    expect(backoffDelayMs(1, policy, top)).toBe(499);
    expect(backoffDelayMs(2, policy, top)).toBe(999);
    expect(backoffDelayMs(3, policy, top)).toBe(1999);
    expect(backoffDelayMs(4, policy, top)).toBe(3999);
  });

  it('can be zero: full jitter spreads delays over the whole range', () => {
    expect(backoffDelayMs(5, policy, () => 0)).toBe(0);
    expect(backoffDelayMs(3, policy, () => 0.5)).toBe(1000);
  });

  it('stays within [0, min(maxMs, baseMs * 2^(attempt-1))) for any random value', () => {
    for (let attempt = 1; attempt <= 12; attempt++) {
      const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** (attempt - 1));
      for (const r of [0, 0.1, 0.37, 0.5, 0.9, 0.999999]) {
        const delay = backoffDelayMs(attempt, policy, () => r);
        expect(delay).toBeGreaterThanOrEqual(0);
        expect(delay).toBeLessThan(ceiling);
      }
    }
  });

  it('caps the exponential ceiling at maxMs, even for absurd attempt numbers', () => {
    expect(backoffDelayMs(7, policy, () => 0.999999)).toBe(29_999);
    expect(backoffDelayMs(5000, policy, () => 0.5)).toBe(15_000);
  });

  it('never waits less than Retry-After', () => {
    expect(backoffDelayMs(1, { ...policy, retryAfterMs: 2000 }, () => 0)).toBe(2000);
    expect(backoffDelayMs(1, { ...policy, retryAfterMs: 2000 }, () => 0.999999)).toBe(2000);
  });

  it('keeps the jittered delay when it is already longer than Retry-After', () => {
    expect(backoffDelayMs(6, { ...policy, retryAfterMs: 1000 }, () => 0.5)).toBe(8000);
  });

  it('caps a huge Retry-After at 60 s by default, or at retryAfterMaxMs', () => {
    expect(backoffDelayMs(1, { ...policy, retryAfterMs: 86_400_000 }, () => 0)).toBe(60_000);
    expect(backoffDelayMs(1, { ...policy, retryAfterMs: 86_400_000, retryAfterMaxMs: 5000 }, () => 0)).toBe(5000);
  });

  it('ignores a negative or non-finite Retry-After', () => {
    expect(backoffDelayMs(1, { ...policy, retryAfterMs: -5 }, () => 0)).toBe(0);
    expect(backoffDelayMs(1, { ...policy, retryAfterMs: Number.NaN }, () => 0)).toBe(0);
  });

  it('treats attempt 0 or below as the first retry', () => {
    expect(backoffDelayMs(0, policy, () => 0.999999)).toBe(499);
  });
});

describe('parseRetryAfterMs', () => {
  const now = Date.parse('2031-05-06T07:08:09Z');

  it('reads delay-seconds', () => {
    expect(parseRetryAfterMs('2', now)).toBe(2000);
    expect(parseRetryAfterMs(' 120 ', now)).toBe(120_000);
    expect(parseRetryAfterMs('0', now)).toBe(0);
    expect(parseRetryAfterMs('1.5', now)).toBe(1500);
  });

  it('reads an HTTP date relative to the injected clock', () => {
    expect(parseRetryAfterMs('Tue, 06 May 2031 07:08:39 GMT', now)).toBe(30_000);
  });

  it('makes a date in the past mean "now"', () => {
    expect(parseRetryAfterMs('Tue, 06 May 2031 07:00:00 GMT', now)).toBe(0);
  });

  it('gives undefined for absent, empty, negative or unreadable values', () => {
    expect(parseRetryAfterMs(undefined, now)).toBeUndefined();
    expect(parseRetryAfterMs('', now)).toBeUndefined();
    expect(parseRetryAfterMs('-5', now)).toBeUndefined();
    expect(parseRetryAfterMs('soon', now)).toBeUndefined();
  });
});

describe('retrying', () => {
  const noWait = { policy, random: () => 0.5 };
  const transient = () => new HttpError('Service Unavailable', { method: 'GET', url: 'http://x/y', status: 503, body: '' });

  it('returns the first success after retrying transient failures, sleeping the computed delays', async () => {
    const sleeps: number[] = [];
    const fn = vi.fn(async (attempt: number) => {
      if (attempt < 3) throw transient();
      return 'done';
    });
    const result = await retrying(fn, { ...noWait, maxAttempts: 5, shouldRetry: () => true, sleep: async (ms) => void sleeps.push(ms) });
    expect(result).toBe('done');
    expect(fn).toHaveBeenCalledTimes(3);
    expect(sleeps).toEqual([250, 500]);
  });

  it('honours the Retry-After carried by an HttpError as the floor of the delay', async () => {
    const sleeps: number[] = [];
    let calls = 0;
    await retrying(
      async () => {
        if (calls++ === 0) throw new HttpError('Too Many Requests', { method: 'POST', url: 'http://x', status: 429, body: '', retryAfterMs: 2000 });
        return 1;
      },
      { ...noWait, maxAttempts: 2, shouldRetry: () => true, sleep: async (ms) => void sleeps.push(ms) },
    );
    expect(sleeps).toEqual([2000]);
  });

  it('rethrows the last error once attempts run out', async () => {
    const errors = [transient(), transient(), transient()];
    let i = 0;
    const promise = retrying(
      async () => {
        throw errors[i++];
      },
      { ...noWait, maxAttempts: 3, shouldRetry: () => true, sleep: async () => undefined },
    );
    await expect(promise).rejects.toBe(errors[2]);
    expect(i).toBe(3);
  });

  it('rethrows at once an error that shouldRetry refuses', async () => {
    const refused = new Error('bug');
    const fn = vi.fn(async () => {
      throw refused;
    });
    await expect(retrying(fn, { ...noWait, maxAttempts: 5, shouldRetry: () => false, sleep: async () => undefined })).rejects.toBe(refused);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('reports each retry with the failed attempt, its error and the delay', async () => {
    const events: { attempt: number; delayMs: number; error: unknown }[] = [];
    const error = transient();
    let calls = 0;
    await retrying(
      async () => {
        if (calls++ < 2) throw error;
        return 'ok';
      },
      { ...noWait, maxAttempts: 3, shouldRetry: () => true, sleep: async () => undefined, onRetry: (e) => events.push(e) },
    );
    expect(events).toEqual([
      { attempt: 1, error, delayMs: 250 },
      { attempt: 2, error, delayMs: 500 },
    ]);
  });

  it('stops waiting when the signal aborts and throws the failed attempt\'s own error', async () => {
    const controller = new AbortController();
    const error = transient();
    const fn = vi.fn(async () => {
      throw error;
    });
    const promise = retrying(fn, {
      ...noWait,
      maxAttempts: 5,
      shouldRetry: () => true,
      signal: controller.signal,
      sleep: (_ms, signal) =>
        new Promise((_resolve, reject) => {
          signal?.addEventListener('abort', () => reject(signal.reason));
          controller.abort();
        }),
    });
    await expect(promise).rejects.toBe(error);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('throws the abort reason without calling fn when the signal is already aborted', async () => {
    const fn = vi.fn(async () => 1);
    const controller = new AbortController();
    controller.abort(new Error('shutting down'));
    await expect(retrying(fn, { ...noWait, maxAttempts: 3, shouldRetry: () => true, signal: controller.signal })).rejects.toThrow('shutting down');
    expect(fn).not.toHaveBeenCalled();
  });

  it('waits for real with the default sleep (a few milliseconds)', async () => {
    let calls = 0;
    const result = await retrying(
      async () => {
        if (calls++ === 0) throw transient();
        return 'ok';
      },
      { policy: { baseMs: 4, maxMs: 4 }, maxAttempts: 2, shouldRetry: () => true },
    );
    expect(result).toBe('ok');
    expect(calls).toBe(2);
  });
});
