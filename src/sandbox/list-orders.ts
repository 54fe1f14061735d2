/**
 * The list-orders answer (api-spec.md 2.2) taken from the sandbox state: each order's view at `now`
 * (views.ts), filtered by date and disposition, built in slices so other requests get their turn.
 */
import type { SandboxState } from './state.js';
import { orderDetailsJson, statusAt } from './views.js';

/** Orders of a list-orders answer built between two turns of the event loop. */
export const LIST_SLICE = 2_000;

/**
 * The items of a list-orders answer (each `{"orderDetails":...}`), built from each order's cached
 * JSON. A long list is built in slices with `pause()` between them, letting other requests in, as a
 * remote API serves its other callers while it assembles a big answer. An order a reset removed
 * (or replaced) meanwhile is left out, and never planned back into the state.
 */
export async function listedOrdersJson(
  state: SandboxState,
  filter: { since: number; nowMs: number; orderDispositions: readonly string[]; lineDispositions: readonly string[] },
  pause: () => Promise<void>,
): Promise<string[]> {
  const { since, nowMs, orderDispositions, lineDispositions } = filter;
  const items: string[] = [];
  if (!orderDispositions.includes('all') && !orderDispositions.includes('api')) return items;
  const anyLine = lineDispositions.includes('all');
  let seen = 0;
  let hasPaused = false;
  for (const order of state.listOrders()) {
    if (++seen % LIST_SLICE === 0) {
      await pause();
      hasPaused = true;
    }
    if (hasPaused && state.getOrder(order.payload.orderDetails.customerOrderId) !== order) continue;
    if (order.createdAtMs < since || order.createdAtMs > nowMs) continue;
    const plan = state.planOf(order);
    if (!anyLine && !plan.lines.some((l) => statusAt(l, nowMs) !== null && lineDispositions.includes(l.disposition))) continue;
    items.push(`{"orderDetails":${orderDetailsJson(order, plan.lines, nowMs)}}`);
  }
  return items;
}
