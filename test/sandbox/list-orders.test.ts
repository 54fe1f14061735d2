import { describe, expect, it } from 'vitest';
import type { CreateOrderPayload } from '../../src/contract/schemas.js';
import { buildSeededCatalogue } from '../../src/sandbox/catalogue.js';
import { DEFAULT_RATES } from '../../src/sandbox/model.js';
import { createSandboxState, type SandboxState } from '../../src/sandbox/state.js';
import { LIST_SLICE, listedOrdersJson } from '../../src/sandbox/list-orders.js';
import { hourBefore } from './helpers.js';
import { buildOrderPayload } from '../support/order-payload.js';

const NOW = Date.UTC(2031, 0, 10);
const ORDERS = LIST_SLICE + 500;

function stateWithOrders(): SandboxState {
  const catalogue = buildSeededCatalogue();
  const state = createSandboxState(catalogue, { seed: 1, rates: DEFAULT_RATES, products: catalogue.products });
  for (let i = 0; i < ORDERS; i++) state.acceptOrder(buildOrderPayload(`LS-${i}`, { orderDate: hourBefore(NOW) }) as CreateOrderPayload, NOW);
  state.allPackages(); // every order planned, as after a tracking request
  return state;
}

const filter = { since: NOW - 30 * 86_400_000, nowMs: NOW + 1, orderDispositions: ['all'], lineDispositions: ['all'] };

describe('list orders built in slices', () => {
  it('lists every order, pausing between slices', async () => {
    const state = stateWithOrders();
    let pauses = 0;
    const items = await listedOrdersJson(state, filter, async () => void pauses++);
    expect(items).toHaveLength(ORDERS);
    expect(pauses).toBe(1);
    expect(JSON.parse(items[0]!).orderDetails.customerOrderId).toBe('LS-0');
  });

  it('leaves out, and does not plan back, the orders a reset removed during a pause', async () => {
    const state = stateWithOrders();
    const items = await listedOrdersJson(state, filter, async () => state.reset());
    expect(items).toHaveLength(LIST_SLICE - 1);
    expect(state.orderCount()).toBe(0);
    expect(state.allPackages()).toHaveLength(0);
  });
});
