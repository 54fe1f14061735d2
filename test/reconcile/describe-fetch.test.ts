import { describe, expect, it } from 'vitest';
import type { Gathered } from '../../src/reconcile/gather.js';
import { describeFetch } from '../../src/reconcile/reconcile-run.js';
import type { Selection } from '../../src/reconcile/select.js';

const gathered = (strategy: Gathered['strategy']): Gathered => ({
  strategy,
  plan: null,
  packages: new Map(),
  isComplete: true,
  freshReads: new Map([['SO-1', null]]),
  changed: new Set(),
  unknownIds: [],
});

const selection = (mode: Selection['mode']): Selection => ({
  mode,
  description: '',
  customerOrderIds: ['SO-1'],
  expected: new Map(),
  reads: new Map(),
  since: null,
  input: [],
});

describe('the Summary sheet says what was fetched', () => {
  it('says, for a ledger run of few orders, that unknown orders were not looked for', () => {
    // Read one by one, the run never sees packages of orders the ledger lacks: a workbook without
    // unknown_order must not read as "none found".
    const text = describeFetch(gathered('per-order'), selection('ledger'), 25);
    expect(text).toBe(
      'each order and its packages (1 order read(s)); unknown orders (packages of orders the ledger never sent) are looked for only when tracking updates are paged, for more than 25 orders',
    );
  });

  it('does not mention unknown orders for an --orders file, which has no such exception', () => {
    expect(describeFetch(gathered('per-order'), selection('orders-file'), 25)).toBe('each order and its packages (1 order read(s))');
  });
});
