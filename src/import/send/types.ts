/**
 * The vocabulary of sending: what a job is, what becomes of each order (a discriminated union, one
 * member per status), and why a run stops sending.
 */
import type { CreateOrderPayload } from '../../contract/schemas.js';
import type { ApiUnusableKind } from '../../errors.js';
import type { Issue } from '../../issues/index.js';
import { type LedgerUnusableError } from '../../ledger/index.js';
import type { CheckedOrder } from '../../orders/types.js';
import type { SheetColumns } from '../../orders/sheet-cells.js';

export interface SubmissionJob {
  order: CheckedOrder;
  /** The order's payload, built once (the checker builds it afresh on every read of order.payload). */
  payload: CreateOrderPayload;
  sheet: SheetColumns;
  file: string;
  sha256: string;
}

/**
 * What the API (or the ledger) said of the order, when it said anything. Every member of the union
 * names every field (`never` where it cannot be), so a reader of any outcome can ask for any field.
 */
interface Answer {
  httpStatus?: number;
  requestId?: string;
}

/** Stored by the fulfillment network: by this run, or found there by a lookup. */
export interface AcceptedOutcome extends Answer {
  status: 'accepted';
  submittedAt?: string;
  issues: Issue[];
  /** POSTs sent for the order in this run. */
  posts: number;
  contentsDiffer?: never;
}

/** Stored before this run: never sent again. */
export interface AlreadySubmittedOutcome extends Answer {
  status: 'already_submitted';
  submittedAt?: string;
  issues: Issue[];
  posts: 0;
  /**
   * The sheet's contents differ from the version the fulfillment network holds (sent by an earlier
   * run, or by this run from another copy): the change was not applied.
   */
  contentsDiffer?: boolean;
}

/** The API said no (400, 409 and the like), or this run's copy of an order it refused elsewhere. */
export interface RejectedOutcome extends Answer {
  status: 'rejected';
  issues: Issue[];
  posts: number;
  submittedAt?: never;
  contentsDiffer?: never;
}

/** Transient trouble outlasted the retries, or the run stopped before the order went out: the next run picks it up. */
export interface FailedOutcome extends Answer {
  status: 'failed';
  issues: Issue[];
  posts: number;
  submittedAt?: never;
  contentsDiffer?: never;
}

/** Nothing the API said of the order: this run did not send it. */
interface Unanswered {
  posts: 0;
  httpStatus?: never;
  requestId?: never;
  submittedAt?: never;
  contentsDiffer?: never;
}

/** Never sent: a copy of an order this run sent from another file with other contents. */
export interface InvalidOutcome extends Unanswered {
  status: 'invalid';
  issues: Issue[];
}

/**
 * Not sent by this run: another run that is alive holds the order (a shared ledger, PRODUCT.md
 * section 8). Not an error: that run sends it, and says how it ended.
 */
export interface InProgressElsewhereOutcome extends Omit<Unanswered, 'posts'> {
  status: 'in_progress_elsewhere';
  issues: Issue[];
  /** 0, or 1 when this run's POST was in flight as another run took the order over (that run looks it up before sending). */
  posts: number;
}

export type SubmitOutcome = AcceptedOutcome | AlreadySubmittedOutcome | RejectedOutcome | FailedOutcome | InvalidOutcome | InProgressElsewhereOutcome;
export type SubmitStatus = SubmitOutcome['status'];

/**
 * Why a run stopped sending: the API could not be used (api/unusable.ts says why), the ledger could
 * not record (a LedgerStop), or the user interrupted it (Ctrl-C, SIGTERM). `message` is a clause that
 * completes "the run stopped early: ..." (no capital, no full stop).
 */
export type StopReason = { kind: ApiUnusableKind | 'interrupted'; message: string } | LedgerStop;

/** The ledger's storage failed under the run (a full disk, a damaged file): nothing goes out that it could not record first. */
export interface LedgerStop {
  kind: 'ledger';
  message: string;
  /** The ledger's own words: which ledger, what happened, what to do. */
  failure: LedgerUnusableError;
}
