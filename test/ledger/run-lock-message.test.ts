/** The one line a run refused by the run lock prints: who holds the ledger and what to do, read well either way. */
import { describe, expect, it } from 'vitest';
import { describeRunLockRefusal } from '../../src/ledger/errors.js';

const holder = { pid: 4242, host: 'cron-box', startedAt: '2026-11-20T02:00:00.000Z', command: 'import' };

describe('the run lock refusal', () => {
  it('refused at once: names the holder and never mentions a wait', () => {
    // The few ms spent trying the lock are not a wait.
    expect(describeRunLockRefusal('/data/ledger.db', holder, 0.4)).toBe(
      'Another run is using the ledger /data/ledger.db: process 4242 on cron-box (import), started at 2026-11-20T02:00:00.000Z. ' +
        'Two runs on one ledger never interleave, so this one did not start: run it again once that one has finished (a separate --ledger would not know what this one has sent, so it could send an order twice).',
    );
  });

  it('gave up waiting: says how long it waited, in words that read', () => {
    const text = describeRunLockRefusal('/data/ledger.db', holder, 30_012);
    expect(text).toMatch(/^Another run was still using the ledger \/data\/ledger\.db after 30 s of waiting: process 4242 on cron-box \(import\), started at /);
    expect(text).not.toMatch(/waiting 0 s|after waiting \d/);
    expect(describeRunLockRefusal('/l.db', holder, 600_000)).toContain('after 10 min of waiting');
  });

  it('holder unknown (it had not yet written its name): says another process', () => {
    expect(describeRunLockRefusal('/l.db', null, 0)).toMatch(/^Another run is using the ledger \/l\.db: another process\. /);
  });
});
