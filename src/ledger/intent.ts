/**
 * The decision behind recordIntent, as a pure function: given what the ledger already knows about
 * an order, may it be sent, must it be looked up first, or is it done?
 */
import type { IntentAction, OrderRecord, OrderState } from './types.js';

/**
 * States whose POST may have reached the API. 'sending' left by a killed run is the same as
 * 'unknown'. 'failed' is included too: its last answer was a 429 or 5xx, and a 5xx (a gateway's
 * 502/504 above all) does not prove the order was not stored; one GET is cheaper than a 409.
 */
export const LOOKUP_STATES: ReadonlySet<OrderState> = new Set<OrderState>(['sending', 'unknown', 'failed']);

/** States a new intent may overwrite: the order certainly is not stored (pending was never POSTed; rejected was refused). */
export const RESENDABLE_STATES: ReadonlySet<OrderState> = new Set<OrderState>(['pending', 'rejected']);

export function decideIntent(previous: Pick<OrderRecord, 'state' | 'runId'> | null, runId: string): IntentAction {
  if (previous === null) return 'send';
  // A record this run already claimed: the id appears twice in this run. Intents are recorded in
  // chunks as sending goes on, so the first copy may already be answered (even accepted) by then.
  if (previous.runId === runId) return 'duplicate_in_run';
  if (previous.state === 'accepted') return 'already_submitted';
  if (LOOKUP_STATES.has(previous.state)) return 'lookup';
  return 'send';
}
