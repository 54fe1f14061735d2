/** The verdict page's "accepted before (…)": the times as shown, each once. */
import { describe, expect, it } from 'vitest';
import { renderVerdictPage } from '../../src/web/pages/verdict-page.js';
import type { Verdict } from '../../src/web/verdict.js';

describe('the verdict page of a sheet sent before', () => {
  it('names each time the orders were accepted once, as it shows them (to the second)', () => {
    const ids = ['SO-1', 'SO-2', 'SO-3', 'SO-4'];
    const verdict: Verdict = {
      id: 'AAAAAAAAAAAAAAAA', fileName: 'orders.csv', file: '/x/orders.csv', uploadedAt: '', checkedAsOf: '2026-11-20T12:00:00.000Z', timezone: 'UTC',
      headers: ['customerOrderId'], fileIssues: [], rows: [], rowsLeftOff: 0, fixRows: 0,
      orders: ids.map((id, i) => ({ customerOrderId: id, rows: [i + 2], status: 'valid' as const })),
      counts: { rows: 4, orders: 4, valid: 4, invalid: 0, rowsWithWarnings: 0 },
    };
    // One run accepts its orders milliseconds apart; a later run at another second.
    const alreadySubmitted = new Map<string, string | null>([
      ['SO-1', '2026-11-20T13:08:58.101Z'],
      ['SO-2', '2026-11-20T13:08:58.412Z'],
      ['SO-3', '2026-11-20T13:08:58.977Z'],
      ['SO-4', '2026-11-20T14:00:01.005Z'],
    ]);
    const page = renderVerdictPage({ csrf: 't', isSandbox: true, apiLabel: 'the embedded sandbox', visitor: { name: 'me', role: 'admin' as const, isLocal: true } }, verdict, { show: 'all', q: '', page: 1, submit: { alreadySubmitted } }).value;
    expect(page).toContain('accepted before (2026-11-20 13:08:58 UTC, 2026-11-20 14:00:01 UTC)');
  });
});
