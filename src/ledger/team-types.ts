/**
 * What the ledger keeps for the web app run as a team service (PRODUCT.md section 8, "Web
 * accounts"): accounts and their sessions, the audit trail, submissions as durable jobs, and the
 * files those produce. Kept in the ledger so that every instance of the web app sharing one ledger
 * (a PostgreSQL one: several hosts) sees the same accounts, sessions, history, jobs and files.
 *
 * Times are ISO 8601 UTC strings. Every method returns a Promise and is committed before it settles.
 */

import type { Role } from './roles.js';
import type { ScheduleOccurrences } from './schedule-types.js';
import type { TokenStore } from './token-types.js';

export { ROLES, type Role } from './roles.js';
export * from './schedule-types.js';

export interface UserRecord {
  name: string;
  role: Role;
  /** The person's e-mail address (lower case), matched against a company login's verified e-mail; unique in the ledger. */
  email: string | null;
  isDisabled: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface StoredUser extends UserRecord {
  /** The password's hash in PHC form (argon2id); never the password. */
  passwordHash: string;
}

export interface UserChange {
  role?: Role;
  /** Null removes it. */
  email?: string | null;
  isDisabled?: boolean;
  passwordHash?: string;
}

export interface UserStore {
  /** False (and nothing changed) when an account of that name, or with that e-mail, exists. */
  add(user: { name: string; role: Role; passwordHash: string; email?: string | null }): Promise<boolean>;
  get(name: string): Promise<StoredUser | null>;
  /** The account with this e-mail address (compared in lower case), if any. */
  findByEmail(email: string): Promise<StoredUser | null>;
  /** In name order. */
  list(): Promise<UserRecord[]>;
  /** Accounts that can log in (not disabled). */
  countActive(): Promise<number>;
  /**
   * False when there is no such account. Disabling an account or giving it a new password ends its
   * sessions in the same commit: on every instance, at their next request.
   */
  update(name: string, change: UserChange): Promise<boolean>;
  /** Removes the account and its sessions; false when there was none. */
  remove(name: string): Promise<boolean>;
}

/** A browser's session. `userName` null: the one-person mode without accounts (loopback, no account defined). */
export interface SessionRecord {
  userName: string | null;
  /** The account's role now (null without an account): a new role applies at the next request. */
  role: Role | null;
  /** What the session plugin keeps besides the user (small JSON). */
  data: Record<string, unknown>;
  createdAt: string;
  lastSeenAt: string;
  address: string | null;
}

/**
 * Sessions by id. The ledger keeps only a hash of each id: whoever reads the database cannot take a
 * session over. Idle time is measured on the ledger's clock (LedgerOptions.now).
 */
export interface SessionStore {
  /** Creates or replaces the session (its last sign of life: now). */
  save(id: string, session: { userName: string | null; data: Record<string, unknown>; address: string | null }): Promise<void>;
  /**
   * The session when it is alive: seen within `idleMs`, and its account (if any) exists and is not
   * disabled. Notes the sign of life (at most once a minute, so polling pages do not write each
   * second). A session that is not alive is removed and null returned.
   */
  load(id: string, idleMs: number): Promise<SessionRecord | null>;
  remove(id: string): Promise<void>;
  /** Removes every session idle longer than `idleMs`; returns how many. */
  sweep(idleMs: number): Promise<number>;
}

/** What the audit trail records (PRODUCT.md section 8). */
export const AUDIT_ACTIONS = [
  'check',
  'validate',
  'submit',
  'import',
  'cancel',
  'reconcile',
  'download',
  'login',
  'login_refused',
  'logout',
  'user_add',
  'user_role',
  'user_disable',
  'user_enable',
  'user_remove',
  'user_password',
  /** An account's e-mail address set, changed or removed. */
  'user_email',
  'mapping_save',
  'mapping_remove',
  /** A cell corrected in the verdict table. */
  'cell_edit',
  /** A sheet's columns chosen in the mapping step (and saved for the team when named). */
  'mapping',
  /** A role-protected action refused to an account (403). */
  'refused',
  'ledger_setting',
  /** A run's notification that could not be delivered (the target and why; the run's outcome stands). */
  'notify_failed',
  'token_create',
  'token_revoke',
  /** A read through the HTTP API (writes are recorded as what they do: check, submit...). */
  'api_read',
  /** A login through the company's single sign-on (OpenID Connect). */
  'login_sso',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export interface AuditEvent {
  /** Who: an account's name (web), or the operating-system user (CLI). */
  actor: string;
  via: 'web' | 'cli';
  /** From where: the client's address (web), or the host name (CLI). */
  address: string | null;
  action: AuditAction;
  /** The sheet or result concerned: its name as the person knows it, and its sha256. */
  fileName?: string | null;
  fileSha256?: string | null;
  /** Counts (orders per status, rows...). */
  counts?: Record<string, number> | null;
  /** A job, run or upload id the entry concerns, for links. */
  ref?: string | null;
  /** A few words more (the new role, the account concerned, why a login was refused). */
  detail?: string | null;
}

export interface AuditRecord extends Required<AuditEvent> {
  seq: number;
  at: string;
}

export interface AuditQuery {
  /** At or after this instant. */
  since?: string;
  /** Before this instant. */
  until?: string;
  actor?: string;
  /** Entries older than this seq (the next page of a newest-first list). */
  beforeSeq?: number;
  /** Default 100, at most 10,000. */
  limit?: number;
}

export interface AuditTrail {
  /** Records the event at the ledger clock's now. */
  record(event: AuditEvent): Promise<AuditRecord>;
  /** Newest first. */
  list(query?: AuditQuery): Promise<AuditRecord[]>;
  /** The accounts and OS users that appear in the trail, for the history page's filter. */
  listActors(): Promise<string[]>;
}

/**
 * A submission's life. queued: waiting for an instance to take it. running: an instance holds it
 * under a lease (a dead instance's job is taken over once the lease lapses). done, failed, cancelled: final.
 */
export const JOB_STATES = ['queued', 'running', 'done', 'failed', 'cancelled'] as const;
export type JobState = (typeof JOB_STATES)[number];

/** What a job does: submit an upload's valid orders, or reconcile (the job's id is the reconciliation's). */
export const JOB_KINDS = ['submit', 'reconcile'] as const;
export type JobKind = (typeof JOB_KINDS)[number];

export interface JobProgress {
  done: number;
  total: number;
  byStatus: Record<string, number>;
}

/** What a finished job tells (kept as JSON). */
export interface JobOutcome {
  summary?: Record<string, number>;
  orders?: { customerOrderId: string | null; rows: number[]; status: string; messages: string[] }[];
  /** The result workbook's name among the job's files. */
  resultFile?: string;
  error?: string;
  notice?: string;
}

export interface NewJob {
  id: string;
  /** Default submit. */
  kind?: JobKind;
  /** How it was asked for besides the account (`API token <label>`), for the audit entry of its end. */
  requestedVia?: string | null;
  uploadId: string;
  fileName: string;
  fileSha256: string | null;
  sheet: string | null;
  createdBy: string;
  /** Valid orders when the job was created (the total until the run knows its own). */
  expected: number;
}

export interface JobRecord extends NewJob {
  kind: JobKind;
  requestedVia: string | null;
  state: JobState;
  createdAt: string;
  /** The instance holding a running job. */
  holder: string | null;
  /** How many times an instance started it (more than one: it was resumed). */
  starts: number;
  /** The ledger run of its latest start. */
  runId: string | null;
  cancelRequestedBy: string | null;
  startedAt: string | null;
  finishedAt: string | null;
  progress: JobProgress | null;
  outcome: JobOutcome | null;
}

/** What a holder learns each time it renews its lease. */
export interface JobBeat {
  /** False: the lease lapsed and another instance may hold the job now; stop working on it. */
  isHeld: boolean;
  isCancelRequested: boolean;
}

/**
 * Submissions as jobs with a lease, like orders: one instance runs each job at a time, and a job
 * whose instance died (kill -9, lost host) is taken over by another once its lease has lapsed.
 */
export interface JobQueue {
  create(job: NewJob): Promise<JobRecord>;
  get(id: string): Promise<JobRecord | null>;
  /** Newest first. */
  list(limit?: number): Promise<JobRecord[]>;
  /** The upload's queued or running job, if any. */
  findActive(uploadId: string): Promise<JobRecord | null>;
  /**
   * Takes the oldest job that is queued, or running under a lease that lapsed (and, on a ledger with
   * claims, whose last run no longer holds its orders): it becomes running, held by `holder` for
   * `leaseMs`, one start more. Null when there is none.
   */
  claim(holder: string, leaseMs: number): Promise<JobRecord | null>;
  /** Renews the lease, saving the progress and run id when given. */
  beat(id: string, holder: string, leaseMs: number, update?: { progress?: JobProgress; runId?: string }): Promise<JobBeat>;
  /**
   * A queued job is cancelled at once; a running one is marked, and its holder stops sending at its
   * next beat. Null when there is no such job; a finished job comes back as it was.
   */
  requestCancel(id: string, by: string): Promise<JobRecord | null>;
  /** Ends the job (done, failed or cancelled) when `holder` still holds it; false otherwise. */
  finish(id: string, holder: string, state: 'done' | 'failed' | 'cancelled', outcome: JobOutcome): Promise<boolean>;
  /** Gives a held job back to the queue (its instance is stopping): the next instance resumes it. */
  release(id: string, holder: string): Promise<void>;
}

export interface StoredFileInfo {
  /** What the file belongs to ('uploads', 'jobs', 'reconcile') and which one of them. */
  area: string;
  owner: string;
  name: string;
  size: number;
  sha256: string;
  createdAt: string;
}

export interface FileUsage {
  files: number;
  bytes: number;
  /** The oldest file's time (null: none). */
  oldest: string | null;
}

/**
 * Uploads, results and reconciliation workbooks, kept in the ledger itself in pieces of 1 MiB: every
 * instance sharing the ledger serves the same files, with no folder to share between hosts.
 */
export interface FileStore {
  /** Stores the file (replacing one of the same area, owner and name). */
  put(file: { area: string; owner: string; name: string; data: Uint8Array }): Promise<StoredFileInfo>;
  info(area: string, owner: string, name: string): Promise<StoredFileInfo | null>;
  /** The file's bytes in pieces, read one piece per query; null when there is no such file. */
  read(area: string, owner: string, name: string): Promise<AsyncIterable<Uint8Array> | null>;
  list(area: string, owner: string): Promise<StoredFileInfo[]>;
  /** The owners of an area, newest file first, at most `limit`. */
  newestOwners(area: string, limit: number): Promise<string[]>;
  usage(): Promise<FileUsage>;
  /** Removes every file created before `cutoff`; says how many and how large, and whose. */
  removeOlderThan(cutoff: string): Promise<{ files: number; bytes: number; owners: { area: string; owner: string }[] }>;
}

/** A count of attempts in a window (failed logins): how many so far, and when the window started. */
export interface AttemptCount {
  count: number;
  windowStartedAt: string;
}

/**
 * Counters of attempts per key in fixed windows, kept in the ledger so every instance counts the same
 * attempts (failed logins per account and per address). Timed on the ledger's clock.
 */
export interface AttemptCounter {
  /** Counts one attempt: the first of a new window when the last window (windowMs long) has passed. */
  count(key: string, windowMs: number): Promise<AttemptCount>;
  /** The attempts of the current window (0 when it has passed), counting none. */
  peek(key: string, windowMs: number): Promise<AttemptCount>;
  /**
   * Takes back one attempt of the current window (never below 0): an attempt is counted before it is
   * judged, so that parallel ones cannot all pass the check, and one that succeeded is taken back.
   */
  forgive(key: string, windowMs: number): Promise<void>;
  /** Forgets the counters whose window ended more than `windowMs` ago. */
  sweep(windowMs: number): Promise<void>;
}

/** A column mapping saved for the team under its name (the profile as JSON text: the mapping module reads it). */
export interface StoredMapping {
  name: string;
  profile: string;
  savedBy: string;
  /** The ledger clock's time of the save that wrote it. */
  savedAt: string;
}

/**
 * The saved column mappings, one row per name: each save, replacement or removal is one statement,
 * so two people saving different names at once both keep theirs, and for one name the last save wins.
 */
export interface MappingTable {
  /** In name order. */
  list(): Promise<StoredMapping[]>;
  /** Saves under `name`, replacing what that name held; stamped with the ledger clock's now. */
  save(mapping: { name: string; profile: string; savedBy: string }): Promise<StoredMapping>;
  /** False when there was no mapping of that name. */
  remove(name: string): Promise<boolean>;
}

/** The team service's stores, as every ledger has them. */
export interface TeamStores {
  readonly mappings: MappingTable;
  readonly users: UserStore;
  readonly sessions: SessionStore;
  readonly audit: AuditTrail;
  readonly jobs: JobQueue;
  readonly files: FileStore;
  readonly attempts: AttemptCounter;
  readonly tokens: TokenStore;
  readonly schedules: ScheduleOccurrences;
}


/** Sessions note a sign of life at most this often (ms): a page polling each second writes once a minute. */
export const SESSION_TOUCH_MS = 60_000;

/**
 * How often a session with this idle timeout notes a sign of life: at most once a minute, and well
 * within the timeout (a quarter of it), so that a session in use never lapses between two notes.
 */
export function sessionTouchMs(idleMs: number): number {
  return Math.min(SESSION_TOUCH_MS, idleMs / 4);
}
/** The piece size files are kept in. */
export const FILE_CHUNK_BYTES = 1024 * 1024;
