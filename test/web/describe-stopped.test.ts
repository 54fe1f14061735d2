/** What serve prints after a stop: the running submission's counts, each queued one not started, then "stopped.". */
import { describe, expect, it } from 'vitest';
import { describeStopped } from '../../src/web/jobs.js';

describe('describeStopped', () => {
  it('says what a stop cut short and what it never started', () => {
    expect(
      describeStopped({
        running: { id: 'j1', fileName: 'a.csv', state: 'done', summary: { accepted: 4, already_submitted: 1, failed: 6, rejected: 0 }, isCutShort: true },
        notStarted: [{ id: 'j2', fileName: 'b.csv' }],
      }),
    ).toEqual([
      'the submission of a.csv was stopped (4 accepted, 1 already submitted, 6 failed; the orders not sent are among the failed): submit the sheet again to send them, nothing is sent twice.',
      'the queued submission of b.csv was not started; submit it again.',
      'stopped.',
    ]);
  });

  it('says only "stopped." when nothing was running', () => {
    expect(describeStopped({ notStarted: [] })).toEqual(['stopped.']);
  });
});
