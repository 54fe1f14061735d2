/** The failure guard's phase, which the sending run logs when it changes. */
import { describe, expect, it } from 'vitest';
import { createFailureGuard } from '../../src/api/breaker.js';

describe('the failure guard phase', () => {
  it('goes healthy, slowing, failing, stopped as failures mount and last, and back to healthy as answers return', () => {
    let t = 0;
    const guard = createFailureGuard({ now: () => t, windowSize: 10, minSamples: 10, minDurationMs: 1000 });
    for (let i = 0; i < 10; i++) guard.record(i < 6 ? 'success' : 'failure');
    expect(guard.phase()).toBe('healthy');
    for (let i = 0; i < 2; i++) guard.record('failure');
    expect(guard.phase()).toBe('slowing');
    for (let i = 0; i < 10; i++) guard.record('failure');
    expect(guard.phase()).toBe('failing');
    for (let i = 0; i < 6; i++) guard.record('success');
    expect(guard.phase()).toBe('healthy');
    for (let i = 0; i < 10; i++) guard.record('failure');
    t += 1000;
    guard.shouldStop();
    expect(guard.phase()).toBe('stopped');
  });
});
