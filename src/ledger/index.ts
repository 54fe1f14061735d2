/**
 * The durable ledger (PRODUCT.md section 5): every order the tool sends is recorded before it is
 * sent and after it is answered, so a run killed at any instant sends nothing twice and loses nothing.
 */
export { ledgerExists, openLedger } from './open-ledger.js';
export { parseLedgerLocation, redactLedgerLocation, type LedgerLocation } from './location.js';
export { LedgerBusyError, LedgerClaimLostError, LedgerError, LedgerStateError, LedgerUnusableError } from './errors.js';
export { addLedgerErrorObserver, type LedgerErrorObservation } from './error-observers.js';
export { canonicalJson, fingerprintPayload, hashPayload, type PayloadFingerprint } from './hash.js';
export { decideIntent, LOOKUP_STATES } from './intent.js';
export { ORDER_STATES } from './types.js';
export { AUDIT_ACTIONS, JOB_KINDS, JOB_STATES, ROLES } from './team-types.js';
export { writtenKey, type MarketplaceStore, type StoredMarketplaceLine, type WrittenConfirmation } from './marketplace-types.js';
export type {
  AuditAction,
  AuditEvent,
  AuditQuery,
  AuditRecord,
  JobKind,
  JobOutcome,
  JobProgress,
  JobRecord,
  JobState,
  NewJob,
  Role,
  StoredFileInfo,
  StoredUser,
  UserRecord,
} from './team-types.js';
export type {
  AcceptedInfo,
  AcquireRunLockOptions,
  AnswerInfo,
  IntentAction,
  IntentResult,
  Ledger,
  LedgerBackend,
  LedgerOptions,
  LedgerRun,
  LockHolder,
  OrderIntent,
  OrderRecord,
  OrderState,
  RunFile,
  RunLock,
  RunRecord,
  SendGate,
} from './types.js';

export type { AttemptCount, AttemptCounter, FileStore, FileUsage, JobQueue, SessionStore } from './team-types.js';
export type { OccurrenceKey, OccurrenceKind, OccurrenceOutcome, OccurrenceRecord, OccurrenceResult, OccurrenceState, ScheduleOccurrences } from './team-types.js';
export type { ApiTokenRecord, TokenHolder, TokenStore } from './token-types.js';
export { copyLedger, type CopyCounts, type CopyResult } from './copy/copy-ledger.js';
export { localFolderOf } from './location.js';
export { TEAM_CAP_SETTING, decideChangeNotes, decideStartNotes, parseTeamCap, parseTeamCapChange } from './team-cap.js';
export type { ShareNote } from './team-cap.js';

/** Where the ledger lives unless --ledger says otherwise (relative to the working directory). */
export const DEFAULT_LEDGER_PATH = '.order-batch/ledger.db';
export type { RemoteFileClaims, RemoteFileEnd, RemoteFileKey } from './remote-file-types.js';
