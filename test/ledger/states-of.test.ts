/** statesOf: each known order's state for a count (import's closing log line), in chunks, unknown ids left out. */
import { afterEach, describe, expect, it } from 'vitest';
import { openLedger } from '../../src/ledger/index.js';
import type { SyncLedger as Ledger } from '../../src/ledger/sync-types.js';
import { buildIntent } from './builders.js';

let ledger: Ledger | undefined;
afterEach(() => ledger?.close());

describe('ledger.statesOf', () => {
  it('gives the state of every order it holds, across chunks of the IN list, and leaves out ids it does not hold', () => {
    ledger = openLedger(':memory:');
    const run = ledger.startRun({ command: 'test', files: [] });
    const ids = Array.from({ length: 1_203 }, (_, i) => `S-${i}`);
    ledger.recordIntents(ids.map((id) => buildIntent(id)), run);
    ledger.markSending('S-7');
    ledger.markUnknown('S-7');
    ledger.markSending('S-1100');
    ledger.markAccepted('S-1100');
    const states = ledger.statesOf([...ids, 'NOT-THERE', 'S-7']);
    expect(states.size).toBe(1_203);
    expect(states.get('S-7')).toBe('unknown');
    expect(states.get('S-1100')).toBe('accepted');
    expect(states.get('S-0')).toBe('pending');
    expect(states.has('NOT-THERE')).toBe(false);
  });
});
