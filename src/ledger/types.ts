/**
 * The ledger's vocabulary: what is recorded about each order the tool sends, about each run, and
 * the promises each transition keeps (PRODUCT.md section 5, "Never lose, never duplicate").
 */
import type { CreateOrderPayload } from '../contract/schemas.js';
import type { Logger } from '../log.js';
import type { PayloadFingerprint } from './hash.js';

/**
 * Where an order stands.
 * - pending: recorded, about to be sent; never POSTed (markSending is committed before any POST).
 * - sending: a POST is (or was) in flight. Left behind by a killed run, it means exactly what unknown means.
 * - unknown: the POST's outcome is unknown (timeout, reset, lost reply): look it up before sending again.
 * - accepted: the API stored it (terminal: the API forbids a second order with this id).
 * - rejected: the API answered no (400, 409 and the like).
 * - failed: retryable trouble outlasted the retries without a definitive answer.
 */
export const ORDER_STATES = ['pending', 'sending', 'unknown', 'accepted', 'rejected', 'failed'] as const;
export type OrderState = (typeof ORDER_STATES)[number];

/** What the caller hands in before sending: the payload and where it came from. */
export interface OrderIntent {
  /** The order to POST; its orderDetails.customerOrderId is the record's key. */
  payload: CreateOrderPayload;
  sourceFile?: string;
  sourceSha256?: string;
  /** Spreadsheet row numbers of the order's lines. */
  sourceRows?: readonly number[];
  /** fingerprintPayload(payload), when the caller made it already; used only if it is of this very payload object. */
  fingerprint?: PayloadFingerprint;
}

/** One order as the ledger knows it. Times are ISO 8601 UTC strings (they sort as text). */
export interface OrderRecord {
  customerOrderId: string;
  /** sha256 (hex) of the canonical JSON of `payload`. */
  payloadHash: string;
  payload: CreateOrderPayload;
  state: OrderState;
  /** POST attempts so far (each markSending counts one). */
  attempts: number;
  httpStatus: number | null;
  requestId: string | null;
  message: string | null;
  /** When the record was first created. */
  recordedAt: string;
  /** When the order first went out (first markSending). */
  firstSubmittedAt: string | null;
  /** When the API accepted it. */
  submittedAt: string | null;
  updatedAt: string;
  /** The run that last worked on the record. */
  runId: string | null;
  sourceFile: string | null;
  sourceSha256: string | null;
  sourceRows: number[];
  marketplaceOrderId: string | null;
  sourceOfSale: string | null;
}

/** An accepted order as pagesSubmittedSince gives it. */
export type SubmittedOrder = Pick<OrderRecord, 'customerOrderId' | 'payload' | 'submittedAt'>;

/**
 * What the caller must do after recordIntent.
 * - send: the record is pending (new, or never sent, or rejected before): markSending, then POST.
 * - lookup: a previous POST may have reached the API (sending, unknown, failed): GET the order first;
 *   found -> markAccepted, 404 -> markSending(id, intent) then POST.
 * - already_submitted: accepted before; never POST again (compare `payloadChanged` to warn).
 * - duplicate_in_run: this run already recorded this customerOrderId (e.g. in another file); do not POST it twice.
 */
export type IntentAction = 'send' | 'lookup' | 'already_submitted' | 'duplicate_in_run';

export interface IntentResult {
  action: IntentAction;
  /** The record as it now stands in the ledger. */
  record: OrderRecord;
  /** The record before this call; null when the order is new to the ledger. */
  previous: OrderRecord | null;
  /** True when a previous record exists and its payloadHash differs from the intent's. */
  payloadChanged: boolean;
}

/** The API's answer (or the lack of one), as recorded by the mark* transitions. */
export interface AnswerInfo {
  httpStatus?: number | null;
  requestId?: string | null;
  message?: string | null;
}

export interface AcceptedInfo extends AnswerInfo {
  /** When the API accepted the order; default the ledger clock's now. */
  submittedAt?: Date | string;
}

export interface RunFile {
  file: string;
  sha256?: string;
  rows?: number;
  orders?: number;
}

export interface RunRecord {
  runId: string;
  command: string;
  files: RunFile[];
  startedAt: string;
  /** null while running, or when the run was killed before finishing. */
  finishedAt: string | null;
  /** The run's summary as handed to finishRun (e.g. counts per status). */
  summary: unknown;
  resultFiles: string[];
  pid: number;
  host: string;
}

/** Who holds (or held) the run lock. */
export interface LockHolder {
  pid: number;
  host: string;
  /** ISO 8601 UTC. */
  startedAt: string;
  command: string | null;
}

export interface RunLock {
  readonly holder: LockHolder;
  /** Releases the lock; safe to call twice. Closing the ledger or the process dying releases it too. */
  release(): void;
}

export interface AcquireRunLockOptions {
  /** Wait for the holder to finish instead of refusing at once. Default false. */
  wait?: boolean;
  /** How long to wait at most, in ms, when wait is true. Default 30,000. */
  timeoutMs?: number;
  /** How often to try again while waiting, in ms. Default 100. */
  pollMs?: number;
  /** Shown to whoever is refused (e.g. "import"). */
  command?: string;
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

export interface LedgerOptions {
  /** Clock for recorded times; default () => new Date(). */
  now?: () => Date;
  logger?: Logger;
  durability?: Durability;
  /** How long a write waits for another connection's write to finish, in ms. Default 5,000. */
  busyTimeoutMs?: number;
}

export interface Ledger {
  readonly path: string;

  acquireRunLock(options?: AcquireRunLockOptions): Promise<RunLock>;

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
