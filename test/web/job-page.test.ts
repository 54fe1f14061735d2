/** A submission's page and what serve prints of it: its words, in the singular as in the plural. */
import { describe, expect, it } from 'vitest';
import type { JobView } from '../../src/web/jobs.js';
import { describeStopped } from '../../src/web/jobs.js';
import { renderJobPage } from '../../src/web/pages/job-page.js';

const ctx = { csrf: 't', isSandbox: true, apiLabel: 'the embedded sandbox', visitor: { name: 'otto', role: 'operator' as const, isLocal: false } };

function jobOf(overrides: Partial<JobView>): JobView {
  return {
    id: 'JJJJJJJJJJJJJJJJ', kind: 'submit', requestedVia: null, uploadId: 'UUUUUUUUUUUUUUUU', fileName: 'orders.csv', fileSha256: null, sheet: null, createdBy: 'otto', expected: 3,
    state: 'done', createdAt: '2031-01-01T00:00:00.000Z', holder: null, starts: 1, runId: null, cancelRequestedBy: null,
    startedAt: '2031-01-01T00:00:00.000Z', finishedAt: '2031-01-01T00:01:00.000Z', progress: { done: 3, total: 3, byStatus: {} }, outcome: null, etaSeconds: null,
    ...overrides,
  };
}

describe('the submission page', () => {
  it('says "1 order needs correcting", and "2 orders need correcting"', () => {
    expect(renderJobPage(ctx, jobOf({ outcome: { summary: { accepted: 2, rejected: 1 } } })).value).toContain('1 order needs correcting');
    expect(renderJobPage(ctx, jobOf({ outcome: { summary: { accepted: 1, invalid: 1, rejected: 1 } } })).value).toContain('2 orders need correcting');
  });

  it('offers an operator to cancel a running submission, and nobody to cancel a finished one', () => {
    expect(renderJobPage(ctx, jobOf({ state: 'running', progress: { done: 1, total: 3, byStatus: {} } })).value).toContain('Cancel the submission');
    expect(renderJobPage(ctx, jobOf({})).value).not.toContain('Cancel the submission');
    expect(renderJobPage({ ...ctx, visitor: { name: 'vera', role: 'viewer', isLocal: false } }, jobOf({ state: 'running' })).value).not.toContain('Cancel the submission');
  });

  it('says who cancelled a submission and what it sent', () => {
    const page = renderJobPage(ctx, jobOf({ state: 'cancelled', cancelRequestedBy: 'li', outcome: { summary: { accepted: 1, not_sent: 2 } } })).value;
    expect(page).toContain('Cancelled by li: 1 accepted, 2 not sent.');
  });
});

describe('what serve prints once stopped', () => {
  it('says the running submission was paused and resumes, and how many wait in the queue', () => {
    expect(describeStopped({ paused: { id: 'j', fileName: 'a.csv', progress: { done: 4, total: 10, byStatus: {} } }, queued: 2 })).toEqual([
      'the submission of a.csv was paused with 4 of 10 orders done: it resumes when the web app starts again, or on another instance sharing the ledger; nothing is sent twice.',
      '2 queued submissions wait in the ledger for the next start.',
      'stopped.',
    ]);
    expect(describeStopped({ queued: 0 })).toEqual(['stopped.']);
  });
});
