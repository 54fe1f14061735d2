/**
 * The ledger's synchronous face (SQLite, better-sqlite3), which the commands use until they move to
 * the async Ledger of types.ts. The vocabulary is types.ts's.
 */
import type {
  AcceptedInfo,
  AcquireRunLockOptions,
  AnswerInfo,
  IntentResult,
  LedgerOptions,
  LockHolder,
  OrderIntent,
  OrderRecord,
  OrderState,
  RunFile,
  RunRecord,
  SubmittedOrder,
} from './types.js';

export interface SyncRunLock {
  readonly holder: LockHolder;
  /** Releases the lock; safe to call twice. Closing the ledger or the process dying releases it too. */
  release(): void;
}

/**
 * How hard commits are pushed to disk. The ledger is always in WAL mode.
 * - 'normal' (default): synchronous=NORMAL. A commit is written to the operating system before the
 *   call returns, so it survives the process being killed at any instant (SIGKILL, crash, OOM): that
 *   is PRODUCT.md's "a run killed at any instant". An OS crash or power cut may roll back the last
 *   commits (never corrupt the file); even then no order is sent twice, because the API refuses a
 *   second order with the same customerOrderId (409): a re-sent order whose record was lost comes
 *   back as already_exists instead of already_submitted.
 * - 'before-send': as 'normal', but markSending, the commit that precedes a POST, is fsynced
 *   (synchronous=FULL for that commit), so "recorded before sent" also survives power loss: the WAL
 *   fsync carries every earlier commit with it. An outcome mark lost to a power cut falls back to
 *   'sending', which the next run resolves with a GET. One fsync per order.
 * - 'full': every commit is fsynced (three per order).
 * An fsync blocks the main thread (better-sqlite3 is synchronous): see src/bench/ledger.ts for the cost.
 */
export type Durability = 'normal' | 'before-send' | 'full';

export interface SyncLedgerOptions extends LedgerOptions {
  durability?: Durability;
}

export interface SyncLedger {
  readonly path: string;

  acquireRunLock(options?: AcquireRunLockOptions): Promise<SyncRunLock>;

  // Orders. Every transition is committed before it returns.
  recordIntent(intent: OrderIntent, runId: string): IntentResult;
  /** recordIntent for many orders in one transaction (one commit): the cheap way to record a whole batch up front. */
  recordIntents(intents: readonly OrderIntent[], runId: string): IntentResult[];
  /**
   * recordIntents, and in the same commit markSending for every order it decides to `send` (their
   * records come back 'sending', attempts counted): the one commit before a chunk of first POSTs.
   * An order marked here but never POSTed must be handed to releaseUnsent.
   */
  prepareSends(intents: readonly OrderIntent[], runId: string): IntentResult[];
  /** Back to 'pending' (one attempt uncounted): orders prepareSends marked that were certainly never POSTed. */
  releaseUnsent(customerOrderIds: readonly string[]): void;
  /** Commit before the POST. With `intent`, the payload is replaced (a lookup found nothing, the new payload goes out). */
  markSending(customerOrderId: string, intent?: OrderIntent): void;
  markAccepted(customerOrderId: string, info?: AcceptedInfo): void;
  /** markAccepted for many orders in one commit. */
  markAcceptedMany(accepted: readonly { customerOrderId: string; info?: AcceptedInfo }[]): void;
  markRejected(customerOrderId: string, info: AnswerInfo): void;
  markUnknown(customerOrderId: string, info?: AnswerInfo): void;
  /** Only when no attempt's outcome was unknown (a timeout or dropped connection is markUnknown). */
  markFailed(customerOrderId: string, info?: AnswerInfo): void;
  get(customerOrderId: string): OrderRecord | null;
  /** Records by id (absent ids are absent from the map); any number of ids. */
  getMany(customerOrderIds: Iterable<string>): Map<string, OrderRecord>;
  /** The state of each order the ledger holds, without reading the rest of its record. */
  statesOf(customerOrderIds: Iterable<string>): Map<string, OrderState>;
  /** Accepted orders with submittedAt at or after `since`, oldest first. */
  listSubmittedSince(since: Date | string): OrderRecord[];
  /**
   * The same orders in pages (oldest first), one query per page so a caller can yield between
   * them; of each only what reconcile needs (the rest is neither read nor parsed).
   */
  pagesSubmittedSince(since: Date | string, pageSize?: number): Generator<SubmittedOrder[]>;
  /**
   * How many records listSubmittedSince(since) would give (counted up to `countUpTo` at most, when
   * given) and the earliest submittedAt among them (null: none), read cheaply.
   */
  summarizeSubmittedSince(since: Date | string, countUpTo?: number): { count: number; earliestSubmittedAt: string | null };
  /**
   * The earliest orderDate, as ISO 8601 UTC, of the records listSubmittedSince(since) would give
   * (null: none, or none with a date-time), read from an index: with earliestSubmittedAt, where
   * reconcile's tracking window starts (an order's packages are updated after its orderDate on the
   * API's clock, whatever this machine's clock said when it recorded submittedAt).
   */
  earliestOrderDateSince(since: Date | string): string | null;
  /** Every record (optionally of some states), in customerOrderId order, read in pages: other calls may interleave. */
  iterateRecords(options?: { states?: readonly OrderState[]; pageSize?: number }): Generator<OrderRecord>;
  countByState(): Record<OrderState, number>;

  // Runs and watermarks.
  startRun(run: { command: string; files: readonly (string | RunFile)[] }): string;
  finishRun(runId: string, result: { summary: unknown; resultFiles?: readonly string[] }): void;
  /** Newest first. */
  listRuns(limit?: number): RunRecord[];
  getRun(runId: string): RunRecord | null;
  /** Facts about the ledger itself (e.g. which API it records orders for). */
  getSetting(name: string): string | null;
  setSetting(name: string, value: string): void;
  getWatermark(name: string): string | null;
  setWatermark(name: string, iso: string): void;

  /** Releases the run lock if held and closes the database. */
  close(): void;
}
