/**
 * Which orders of an import go out, judged before anything is sent: what the ledger's records say
 * of each (sent by this tool, with these very contents, aged since), then the API's facts (online
 * checks), as a plan: what is sent, what is settled without sending, what is refused.
 */
import type { SubmissionJob, StopReason } from './send/submit.js';
import { checkOrderOnline, isInvalidOnlyByAge, isSentAsIs, isSentByThisTool, payloadOfAgedOrder, withoutAgeErrors, type OnlineFacts } from '../validate/online-checks.js';
import { contentsChangedIssue } from './send/outcomes.js';
import { sheetColumnsOf } from '../orders/sheet-cells.js';
import type { CreateOrderPayload } from '../contract/schemas.js';
import { hasErrors, type Issue } from '../issues/index.js';
import { type OrderRecord } from '../ledger/index.js';
import type { CheckedOrder, CheckedSheet } from '../orders/types.js';
import type { OrderOutcomeView } from '../result-files/result-rows.js';

/** One sheet of an import: the checked sheet and each order's outcome so far. */
export interface FileState {
  file: string;
  sheet: CheckedSheet;
  /** Outcome per order (same index as sheet.orders). */
  outcomes: (OrderOutcomeView & { httpStatus?: number; requestId?: string; submittedAt?: string; contentsDiffer?: boolean })[];
}

/** An order's outcome as the result file and the run report show it; `rejected` and `invalid` need a fix. */
export function outcomeView(
  status: string,
  issues: Issue[],
  extra?: { httpStatus?: number; requestId?: string; submittedAt?: string },
  contentsDiffer = false,
): FileState['outcomes'][number] {
  const needsFix = status === 'invalid' || status === 'rejected';
  return {
    status,
    issues,
    needsFix,
    extra: { httpStatus: extra?.httpStatus ?? null, requestId: extra?.requestId ?? null, submittedAt: extra?.submittedAt ?? null },
    ...extra,
    ...(contentsDiffer ? { contentsDiffer } : {}),
  };
}

const isAged = (state: FileState, index: number) => state.outcomes[index]!.status === 'invalid' && isInvalidOnlyByAge(state.sheet.orders.at(index)!.issues);

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

/** An order that may go out, with the issues it goes out with (an aged order the ledger holds: without its date error). */
export interface Candidate {
  state: FileState;
  order: CheckedOrder;
  index: number;
  payload: CreateOrderPayload;
  issues: readonly Issue[];
  /** Invalid only by its date's age, and held by the ledger with these very contents: not judged on its age. */
  isAged: boolean;
}

/**
 * The orders that may go out. order.payload is rebuilt from the stored rows on every read: taken
 * once. An aged order the ledger holds with these very contents goes the way of one it holds,
 * without its date error.
 */
export function candidatesToSend(states: readonly FileState[], known: ReadonlyMap<string, OrderRecord>): Candidate[] {
  return states.flatMap((state) =>
    state.sheet.orders.flatMap((order, index): Candidate[] => {
      if (state.outcomes[index]!.status === 'valid') {
        const payload = order.payload;
        return payload ? [{ state, order, index, payload, issues: order.issues, isAged: false }] : [];
      }
      if (order.customerOrderId === null || !isAged(state, index)) return [];
      const payload = payloadOfAgedOrder(order, known.get(order.customerOrderId));
      return payload ? [{ state, order, index, payload, issues: withoutAgeErrors(order.issues), isAged: true }] : [];
    }),
  );
}

export type Job = SubmissionJob & { state: FileState; index: number; issues: readonly Issue[] };

/** An order's outcome decided by the plan, for its place in its sheet. */
export interface OutcomeAt {
  state: FileState;
  index: number;
  outcome: FileState['outcomes'][number];
}

/** What an import does with its candidates, decided before anything is sent. */
export interface SendPlan {
  /** The orders to send; each stands as valid (with the issues it goes out with) until its answer. */
  send: Job[];
  /** Settled without sending: a dry run's verdicts, an order the ledger holds as accepted. */
  settled: OutcomeAt[];
  /** Refused before sending: invalid against the API's facts, or not sent because the API could not be used. */
  refused: OutcomeAt[];
}

/**
 * Each candidate against the API's facts: invalid, not sent (the API could not be used), what a
 * dry run would do, or a job to send. Pure: nothing is read, written or changed.
 */
export function planImport(
  candidates: readonly Candidate[],
  context: { facts: OnlineFacts | undefined; apiUnusable: StopReason | undefined; dryRun: boolean; known: ReadonlyMap<string, OrderRecord>; judge: LedgerJudge },
): SendPlan {
  const { facts, apiUnusable, known, judge } = context;
  const plan: SendPlan = { send: [], settled: [], refused: [] };
  for (const { state, order, index, payload, issues } of candidates) {
    const at = (outcome: OutcomeAt['outcome']): OutcomeAt => ({ state, index, outcome });
    if (!facts) {
      plan.refused.push(at(outcomeView('failed', [...issues, apiIssue(order.rows[0] ?? null, `Not sent: ${apiUnusable?.message ?? 'the API could not be used'}. Run the import again once the API answers again.`)])));
      continue;
    }
    const online = checkOrderOnline(order, payload, sheetColumnsOf(state.sheet), facts, judge.isOurs, judge.isSentAsIs);
    if (hasErrors(online)) {
      plan.refused.push(at(outcomeView('invalid', [...issues, ...online])));
      continue;
    }
    const id = payload.orderDetails.customerOrderId;
    if (context.dryRun) {
      const record = known.get(id);
      if (record?.state === 'accepted') {
        // As the real run would say: an edit of an order already sent is not applied.
        const isChanged = !judge.isSentAsIs(payload);
        const view = { submittedAt: record.submittedAt ?? undefined, requestId: record.requestId ?? undefined };
        plan.settled.push(at(outcomeView('already_submitted', isChanged ? [...issues, contentsChangedIssue(sheetColumnsOf(state.sheet), order, id)] : [...issues], view, isChanged)));
      } else {
        plan.settled.push(at(outcomeView('valid', [...issues, ...online])));
      }
      continue;
    }
    plan.send.push({ order, payload, sheet: sheetColumnsOf(state.sheet), file: state.file, sha256: state.sheet.sha256, state, index, issues });
  }
  return plan;
}

/** The plan's outcomes set on the sheets' states: the orders to send stand as valid until they are answered. */
export function applyPlan(plan: SendPlan): void {
  for (const { state, index, outcome } of [...plan.settled, ...plan.refused]) state.outcomes[index] = outcome;
  for (const job of plan.send) job.state.outcomes[job.index] = outcomeView('valid', [...job.issues]);
}

function apiIssue(row: number | null, message: string): Issue {
  return { row, column: null, code: 'failed', severity: 'error', message };
}
