/**
 * Which orders of an import may go out, judged with what the ledger knows of them before anything is
 * sent: every valid one, and one invalid only because its orderDate has aged since this tool sent it
 * with these very contents (the same order, not judged on its age).
 */
import type { CreateOrderPayload } from '../contract/schemas.js';
import {
  isInvalidOnlyByAge,
  isSentAsIs,
  isSentByThisTool,
  payloadOfAgedOrder,
  withoutAgeErrors,
} from '../import/online-checks.js';
import type { Issue } from '../issues/index.js';
import type { OrderRecord } from '../ledger/types.js';
import type { Logger } from '../log.js';
import type { CheckedSheet } from '../orders/types.js';
import { outcomeView, type FileState } from './import-results.js';

const isAged = (state: FileState, index: number) => state.outcomes[index]!.status === 'invalid' && isInvalidOnlyByAge(state.sheet.orders[index]!.issues);

/** The orders the ledger is asked about: every one that may go out, and every one invalid only because its date has aged. */
export function idsToLookUp(states: readonly FileState[]): string[] {
  return states.flatMap((state) =>
    state.sheet.orders.flatMap((order, index) => (order.customerOrderId !== null && (state.outcomes[index]!.status === 'valid' || isAged(state, index)) ? [order.customerOrderId] : [])),
  );
}

/** What the ledger's records say of an order: sent by this tool, and sent with these very contents (hashed once per order). */
export interface LedgerJudge {
  isOurs(customerOrderId: string): boolean;
  isSentAsIs(payload: CreateOrderPayload): boolean;
}

export function ledgerJudge(known: ReadonlyMap<string, OrderRecord>): LedgerJudge {
  const sentAsIs = new Map<string, boolean>();
  return {
    isOurs: (id) => isSentByThisTool(known.get(id)),
    isSentAsIs(payload) {
      const id = payload.orderDetails.customerOrderId;
      let is = sentAsIs.get(id);
      if (is === undefined) sentAsIs.set(id, (is = isSentAsIs(known.get(id), payload)));
      return is;
    },
  };
}

export interface Candidate {
  state: FileState;
  order: CheckedSheet['orders'][number];
  index: number;
  payload: CreateOrderPayload;
  issues: readonly Issue[];
}

/**
 * The orders that may go out. order.payload is rebuilt from the stored rows on every read: taken
 * once. An aged order the ledger holds with these very contents goes the way of one it holds,
 * without its date error.
 */
export function candidatesToSend(states: readonly FileState[], known: ReadonlyMap<string, OrderRecord>, logger: Logger): Candidate[] {
  return states.flatMap((state) =>
    state.sheet.orders.flatMap((order, index): Candidate[] => {
      if (state.outcomes[index]!.status === 'valid') {
        const payload = order.payload;
        return payload ? [{ state, order, index, payload, issues: order.issues }] : [];
      }
      if (order.customerOrderId === null || !isAged(state, index)) return [];
      const payload = payloadOfAgedOrder(order, known.get(order.customerOrderId));
      if (!payload) return [];
      logger.debug({ customerOrderId: order.customerOrderId }, 'orderDate too old now, but the ledger holds this very order: not judged on its age');
      const issues = withoutAgeErrors(order.issues);
      state.outcomes[index] = outcomeView('valid', [...issues]);
      return [{ state, order, index, payload, issues }];
    }),
  );
}
