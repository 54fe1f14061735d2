/**
 * The ledger's vocabulary: what is recorded about each order the tool sends, about each run, and
 * the promises each transition keeps (PRODUCT.md section 5, "Never lose, never duplicate"; section 8
 * for a ledger shared by several hosts).
 *
 * Two backends keep these promises with different concurrency models:
 * - SQLite (a file; the embedded default): one run at a time per file. A run holds the run lock
 *   (acquireRunLock) for its whole length, so no other run can hold an order it works on, and
 *   `in_progress_elsewhere` never happens.
 * - PostgreSQL (a URL; shared by every host): several runs at once, no global run lock. Each order a
 *   run works on is claimed by that run; the claim lives as long as the run's lease, which the run
 *   renews while its process is alive and which expires when the process dies (kill -9, a lost
 *   host, a lost connection). Another run meeting an order whose claim is alive is told
 *   `in_progress_elsewhere` and leaves it alone; one meeting an expired claim takes the order over.
 *
 * Every method returns a Promise, whatever the backend does inside.
 */
import type { CreateOrderPayload } from '../contract/schemas.js';
import type { Logger } from '../log.js';
import type { PayloadFingerprint } from './hash.js';
import type { TeamStores } from './team-types.js';
import type { MarketplaceStore } from './marketplace-types.js';
import type { RemoteFileClaims } from './remote-file-types.js';

/**
 * Where an order stands.
 * - pending: recorded, about to be sent; never POSTed (markSending is committed before any POST).
 * - sending: a POST is (or was) in flight. Left behind by a run that died, it means exactly what unknown means.
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
  /** The run that last worked on the record: while that run is alive, the run that holds the order. */
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
 * What the run must do with an order after recordIntents or prepareSends.
 * - send: the record is pending (new, or never sent, or rejected before): markSending, then POST.
 *   (prepareSends has marked it sending already.)
 * - lookup: a previous POST may have reached the API (sending, unknown, failed, left by a run that
 *   finished or died): GET the order first; found -> markAccepted, 404 -> markSending(id, intent), POST.
 * - already_submitted: accepted before; never POST again (compare `payloadChanged` to warn).
 * - duplicate_in_run: this run already holds this customerOrderId (e.g. from another file); do not POST it twice.
 * - in_progress_elsewhere: another run that is alive holds the order (PostgreSQL only; SQLite's run
 *   lock keeps a second run out): this run neither sends nor looks it up, and changes nothing of
 *   its record. `record.runId` names the holder (getRun tells who and where it is).
 */
export type IntentAction = 'send' | 'lookup' | 'already_submitted' | 'duplicate_in_run' | 'in_progress_elsewhere';

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
  /** null while running, or when the run died (or its ledger was closed) before finishing. */
  finishedAt: string | null;
  /** The run's summary as handed to finish (e.g. counts per status). */
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
  release(): Promise<void>;
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

/** Which backend a ledger is: a file (one run at a time) or a shared server (several runs at once). */
export type LedgerBackend = 'sqlite' | 'postgres';

export interface LedgerOptions {
  /** Clock for recorded times; default () => new Date(). Leases are timed by the backend's own clock. */
  now?: () => Date;
  logger?: Logger;
  /** SQLite: how long a write waits for another connection's write to finish, in ms. Default 5,000. */
  busyTimeoutMs?: number;
  /**
   * How long a run's claims outlive its last sign of life, in ms (backends with claims; default
   * 120,000). A run renews its lease well within this while it is alive; a dead run's orders are
   * taken over by another run once it has passed.
   */
  claimLeaseMs?: number;
  /**
   * A monotonic clock in ms (default performance.now), by which a run knows how long ago its lease was
   * last renewed (confirmHold), and a send gate when to look again for a team cap (CAP_REREAD_MS).
   * Tests advance it to play a stalled process or the passing of time.
   */
  leaseClock?: () => number;
  /** PostgreSQL: how long a lost database is waited for, its queries tried again, before its failure stops the run (default 120,000 ms; 0: at once). */
  outageMs?: number;
}

/** What a run's send gate is opened with. */
export interface SendGateOptions {
  /**
   * This run's own share (`--team-concurrency`): at most this many of its POSTs in flight, never
   * more than the ledger's team cap allows. None: the run is bounded by the team cap alone.
   */
  share?: number;
  /**
   * Told the ledger's team cap (null: none stored) when the gate opens, and again each time the gate
   * reads another one (it was changed while the run went on).
   */
  onCap?: (cap: number | null) => void;
}

/**
 * A place among the POSTs in flight across every run on one ledger. Entering waits while the run's
 * own share is taken, or while the team's cap (the ledger's TEAM_CAP_SETTING) is taken by all the
 * runs on the ledger together; a run that dies gives its places back (PostgreSQL: with its session).
 * The cap is read as the run goes, so a cap changed meanwhile applies to the POSTs that start after
 * (those in flight finish). On SQLite, whose file admits one run at a time, there is no team: only
 * the run's share bounds it.
 */
export interface SendGate {
  /** Waits for a free place; resolves with its release (safe to call twice). Rejects when `signal` aborts the wait. */
  enter(signal?: AbortSignal): Promise<() => Promise<void>>;
  /** Gives back every place still held and stops waiting; safe to call twice. */
  close(): Promise<void>;
}

/**
 * One run's work on the ledger, from startRun to finish. The run holds each order it records for
 * sending (actions send and lookup) until it finishes, dies, or its ledger is closed under it.
 *
 * Claims and leases (backends with several runs at once): the run's lease starts with startRun and
 * is renewed by the ledger while the run is open; the renewal stops with finish, close, or the
 * process. Every transition below is committed before it returns, and commits only while this run
 * holds the order: once its lease has expired and another run has taken the order over, a
 * transition throws LedgerClaimLostError and changes nothing. In particular markSending and
 * prepareSends, the commits before a POST, succeed only for orders this run holds, and confirmHold
 * tells just before the POST of an order marked ahead whether the run still holds it: two runs never
 * both send one order while their leases are honoured. The one exception is an accepted answer: it is
 * the API's word, recorded whoever holds the order, so a run that took the order over finds it
 * accepted instead of sending it again. (The API's 409 for a customerOrderId it already holds is the
 * last guard against a run whose process stalled longer than its lease between the check and the POST.)
 */
export interface LedgerRun {
  readonly runId: string;

  /** Records the intents (one commit) and decides each one's fate; claims those to send or look up. */
  recordIntents(intents: readonly OrderIntent[]): Promise<IntentResult[]>;
  recordIntent(intent: OrderIntent): Promise<IntentResult>;
  /**
   * recordIntents, and in the same commit markSending for every order it decides to `send` (their
   * records come back 'sending', attempts counted): the one commit before a chunk of first POSTs.
   * An order marked here but never POSTed must be handed to releaseUnsent.
   */
  prepareSends(intents: readonly OrderIntent[]): Promise<IntentResult[]>;
  /** Back to 'pending' (one attempt uncounted): orders prepareSends marked that were certainly never POSTed. */
  releaseUnsent(customerOrderIds: readonly string[]): Promise<void>;
  /** Commit before the POST. With `intent`, the payload is replaced (a lookup found nothing, the new payload goes out). */
  markSending(customerOrderId: string, intent?: OrderIntent): Promise<void>;
  /**
   * Just before the POST of an order prepareSends marked: throws LedgerClaimLostError when this run no
   * longer holds it (its lease lapsed and another run took the order over). No query while the lease
   * was renewed recently; backends without claims never throw.
   */
  confirmHold(customerOrderId: string): Promise<void>;
  /**
   * Accepted is terminal: accepting an accepted order again changes nothing. Recorded whoever holds the
   * order (the API's answer to this run's POST is a fact, even once another run has taken the order over).
   */
  markAccepted(customerOrderId: string, info?: AcceptedInfo): Promise<void>;
  /** markAccepted for many orders in one commit. */
  markAcceptedMany(accepted: readonly { customerOrderId: string; info?: AcceptedInfo }[]): Promise<void>;
  markRejected(customerOrderId: string, info: AnswerInfo): Promise<void>;
  markUnknown(customerOrderId: string, info?: AnswerInfo): Promise<void>;
  /** Only when no attempt's outcome was unknown (a timeout or dropped connection is markUnknown). */
  markFailed(customerOrderId: string, info?: AnswerInfo): Promise<void>;

  /** Records the run's result and lets go of every order it holds (their states stay as marked). Once. */
  finish(result: { summary: unknown; resultFiles?: readonly string[] }): Promise<void>;
}

export interface LedgerDescription {
  /** SQLite: the schema's user_version; PostgreSQL: how many migrations are applied, and the last one's name. */
  schemaVersion: string;
  /** Runs in the history. */
  runs: number;
  /** Runs going now: unfinished with a live lease (PostgreSQL); null where that is not known (SQLite keeps no lease). */
  liveRuns: number | null;
}

/** Every store a ledger carries beside its orders and runs, whichever backend makes them; the team stores (team-types.ts) are the web app's accounts, sessions, audit trail, jobs and files. */
export interface LedgerStores extends TeamStores {
  /** Marketplace identifiers of order lines and which confirmations were written (marketplace/types.ts). */
  readonly marketplace: MarketplaceStore;
  /** The claims of remote file versions, so that one run across the team processes each (remote-file-types.ts). */
  readonly remoteFiles: RemoteFileClaims;
}

export interface Ledger extends LedgerStores {
  readonly backend: LedgerBackend;
  /** Where the ledger is, fit to print and log: a file's path, or a URL without its password. */
  readonly location: string;
  /** PostgreSQL: true while the database does not answer (its queries wait for it, see --ledger-outage). */
  isUnreachable?(): boolean;

  /**
   * The hold a run needs on the ledger before it starts. SQLite: the file's run lock, one run at a
   * time per file (the same file by any name: a symlink or a hard link cannot start a second run).
   * PostgreSQL: resolves at once, since claims keep runs apart; the holder is this process.
   */
  acquireRunLock(options?: AcquireRunLockOptions): Promise<RunLock>;

  /** Registers a run (history) and starts its lease. Its transitions go through the LedgerRun. */
  startRun(run: { command: string; files: readonly (string | RunFile)[] }): Promise<LedgerRun>;

  /** The gate a run's POSTs pass through: its own share, within the team's cap; see SendGate. */
  openSendGate(options?: SendGateOptions): Promise<SendGate>;

  // Reading orders.
  get(customerOrderId: string): Promise<OrderRecord | null>;
  /** Records by id (absent ids are absent from the map); any number of ids. */
  getMany(customerOrderIds: Iterable<string>): Promise<Map<string, OrderRecord>>;
  /** The state of each order the ledger holds, without reading the rest of its record. */
  statesOf(customerOrderIds: Iterable<string>): Promise<Map<string, OrderState>>;
  /** Accepted orders with submittedAt at or after `since`, oldest first. */
  listSubmittedSince(since: Date | string): Promise<OrderRecord[]>;
  /**
   * The same orders in pages (oldest first), one query per page so a caller can yield between
   * them; of each only what reconcile needs (the rest is neither read nor parsed).
   */
  pagesSubmittedSince(since: Date | string, pageSize?: number): AsyncGenerator<SubmittedOrder[]>;
  /**
   * How many records listSubmittedSince(since) would give (counted up to `countUpTo` at most, when
   * given) and the earliest submittedAt among them (null: none), read cheaply.
   */
  summarizeSubmittedSince(since: Date | string, countUpTo?: number): Promise<{ count: number; earliestSubmittedAt: string | null }>;
  /**
   * The earliest orderDate, as ISO 8601 UTC, of the records listSubmittedSince(since) would give
   * (null: none, or none with a date-time), read from an index: with earliestSubmittedAt, where
   * reconcile's tracking window starts (an order's packages are updated after its orderDate on the
   * API's clock, whatever this machine's clock said when it recorded submittedAt).
   */
  earliestOrderDateSince(since: Date | string): Promise<string | null>;
  /** Every record (optionally of some states), in customerOrderId order, read in pages: other calls may interleave. */
  iterateRecords(options?: { states?: readonly OrderState[]; pageSize?: number }): AsyncGenerator<OrderRecord>;
  countByState(): Promise<Record<OrderState, number>>;

  // Runs, settings and watermarks.
  /** Newest first. */
  listRuns(limit?: number): Promise<RunRecord[]>;
  getRun(runId: string): Promise<RunRecord | null>;
  /** Facts about the ledger itself (e.g. which API it records orders for). */
  getSetting(name: string): Promise<string | null>;
  setSetting(name: string, value: string): Promise<void>;
  /** Removes a setting; false when there was none. */
  removeSetting(name: string): Promise<boolean>;
  /** What `ledger show` tells of the ledger itself, read cheaply. */
  describe(): Promise<LedgerDescription>;
  getWatermark(name: string): Promise<string | null>;
  setWatermark(name: string, iso: string): Promise<void>;

  /**
   * Ends the runs still open on this object as a death would, at once: their orders
   * are let go with the states they have (on PostgreSQL their leases expire now), so another instance
   * takes them over without waiting for a lease, looking up what may have been sent first. The remote
   * file claims made through this object and not yet settled are let go too (`remoteFiles`: for the
   * next run, at once), and their holders hold nothing more through it. A stop whose grace is over
   * calls it before the process exits. The ledger stays open.
   */
  abandonRuns(): Promise<void>;

  /**
   * Ends what this object holds: runs still open end as a death would (their orders are let go with
   * the states they have, so the next run looks up what may have been sent; the runs stay unfinished
   * in history), the run lock is released, the connection closed; remote file claims still held lapse
   * with their lease. Safe to call twice.
   */
  close(): Promise<void>;
}
