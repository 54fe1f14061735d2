import { describe, expect, it } from 'vitest';
import { canonicalJson, decideIntent, hashPayload } from '../../src/ledger/index.js';
import { buildOrderPayload } from '../support/order-payload.js';

describe('decideIntent', () => {
  it('sends an order the ledger has never seen', () => {
    expect(decideIntent(null, 'run-2')).toBe('send');
  });

  it('never sends an accepted order again', () => {
    expect(decideIntent({ state: 'accepted', runId: 'run-1' }, 'run-2')).toBe('already_submitted');
  });

  it.each(['sending', 'unknown', 'failed'] as const)('looks up an order left %s by an earlier run before sending it', (state) => {
    expect(decideIntent({ state, runId: 'run-1' }, 'run-2')).toBe('lookup');
  });

  it.each(['pending', 'rejected'] as const)('sends again an order left %s (never stored by the API)', (state) => {
    expect(decideIntent({ state, runId: 'run-1' }, 'run-2')).toBe('send');
  });

  it.each(['pending', 'sending', 'accepted', 'rejected', 'unknown', 'failed'] as const)('flags an id this run already has %s as a duplicate within the run', (state) => {
    expect(decideIntent({ state, runId: 'run-2' }, 'run-2')).toBe('duplicate_in_run');
  });
});

describe('payload hashing', () => {
  it('ignores key order and absent optional fields', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, 1], c: undefined } })).toBe('{"a":{"d":[2,1]},"b":1}');
    const payload = buildOrderPayload('H-1');
    const reordered = { orderDetails: payload.orderDetails, customerDetails: payload.customerDetails };
    expect(hashPayload(reordered)).toBe(hashPayload(payload));
  });

  it('changes when an amount or the line order changes', () => {
    const base = buildOrderPayload('H-1');
    expect(hashPayload(buildOrderPayload('H-1', { lines: [{ unitPrice: 11 }] }))).not.toBe(hashPayload(base));
    const twoLines = buildOrderPayload('H-1');
    twoLines.orderDetails.lineItems.push({ productId: 'P-2', customerLineItemId: 'L2', name: 'Gadget', quantity: 1, unitPrice: 1 });
    const swapped = structuredClone(twoLines);
    swapped.orderDetails.lineItems.reverse();
    expect(hashPayload(swapped)).not.toBe(hashPayload(twoLines));
    expect(hashPayload(base)).toMatch(/^[0-9a-f]{64}$/);
  });
});
