/**
 * What `ledger copy` does with each record, as pure functions: copying twice changes nothing the
 * second time, an accepted order is never taken back, and a record that is another order's (same
 * id, other contents) or another API's ledger stops the copy before anything is written.
 */
import { canonicalJson } from '../hash.js';
import type { RunRecord } from '../types.js';
import type { StoredMapping, StoredUser } from '../team-types.js';
import type { CopiedAudit, CopiedOrder, NamedValue, TargetOrder } from './types.js';
import type { LeasedRow, LeasedTable } from './leased-rows.js';

export type CopyAction = 'insert' | 'update' | 'unchanged' | 'kept';
export type OrderDecision = CopyAction | { conflict: string };

/** Fields that make two records of one order the same record. */
function sameRecord(a: CopiedOrder, b: TargetOrder['record']): boolean {
  return (
    a.state === b.state &&
    a.attempts === b.attempts &&
    a.updatedAt === b.updatedAt &&
    a.submittedAt === b.submittedAt &&
    a.httpStatus === b.httpStatus &&
    a.requestId === b.requestId &&
    a.message === b.message &&
    a.runId === b.runId
  );
}

export function decideOrder(source: CopiedOrder, target: TargetOrder | undefined): OrderDecision {
  if (!target) return 'insert';
  if (target.payloadHash !== source.payloadHash) {
    return { conflict: `order '${source.customerOrderId}' is another order there (its contents differ from the source's)` };
  }
  if (sameRecord(source, target.record)) return 'unchanged';
  // An accepted order is done: nothing the source says takes it back.
  if (target.state === 'accepted') return 'kept';
  if (target.isHeldByLiveRun) return { conflict: `order '${source.customerOrderId}' is being sent by a run on the target right now` };
  if (source.state === 'accepted' || source.updatedAt > target.updatedAt) return 'update';
  return 'kept';
}

export function decideRun(source: RunRecord, target: RunRecord | undefined): CopyAction {
  if (!target) return 'insert';
  // Key order aside (PostgreSQL's jsonb keeps its own).
  if (canonicalJson(source) === canonicalJson(target)) return 'unchanged';
  // A run the target saw unfinished and the source saw finish.
  return target.finishedAt === null && source.finishedAt !== null ? 'update' : 'kept';
}

/** A setting is a fact about the ledger (the API it records orders for): two different ones are two ledgers. */
export function decideSetting(source: NamedValue, target: NamedValue | undefined): CopyAction | { conflict: string } {
  if (!target) return 'insert';
  if (target.value === source.value) return 'unchanged';
  return { conflict: `its setting '${source.name}' is '${target.value}' there and '${source.value}' in the source (they record orders for different APIs)` };
}

/** Of two watermarks the earlier wins: reconcile then reads a little more again, and never misses anything. */
export function decideWatermark(source: NamedValue, target: NamedValue | undefined): CopyAction {
  if (!target) return 'insert';
  if (target.value === source.value) return 'unchanged';
  return Date.parse(source.value) < Date.parse(target.value) ? 'update' : 'kept';
}

/** An account the target has already stays as the target has it (its password and role may have changed there since). */
export function decideUser(source: StoredUser, target: StoredUser | undefined): CopyAction {
  if (!target) return 'insert';
  return target.passwordHash === source.passwordHash && target.role === source.role && target.isDisabled === source.isDisabled && target.email === source.email ? 'unchanged' : 'kept';
}

/** Of two saves of one mapping name the later wins, as it would have had both been made on one ledger. */
export function decideMapping(source: StoredMapping, target: StoredMapping | undefined): CopyAction {
  if (!target) return 'insert';
  if (target.profile === source.profile && target.savedBy === source.savedBy && target.savedAt === source.savedAt) return 'unchanged';
  return source.savedAt > target.savedAt ? 'update' : 'kept';
}

/**
 * A row settled on the source wins over one the target still holds or released (the file was
 * processed, the occurrence ran): it is not done again. Otherwise what the target has stays.
 */
export function decideLeased(table: LeasedTable, source: LeasedRow, target: LeasedRow | undefined): CopyAction {
  if (!target) return 'insert';
  if (canonicalJson(source) === canonicalJson(target)) return 'unchanged';
  if (source.state === 'done' && target.state !== 'done') return 'update';
  return table.isSettled(source) && !table.isSettled(target) ? 'update' : 'kept';
}

/** What tells one audit entry from another across ledgers (their seq is each ledger's own). */
export function auditKey(entry: CopiedAudit): string {
  return JSON.stringify([entry.at, entry.actor, entry.via, entry.address, entry.action, entry.fileName, entry.fileSha256, entry.ref, entry.detail]);
}

export function withoutSeq({ seq: _seq, ...entry }: CopiedAudit & { seq: number }): CopiedAudit {
  return entry;
}
