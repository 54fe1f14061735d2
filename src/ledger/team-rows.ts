/**
 * Rows of the team tables as both backends read them (PostgreSQL's timestamps and JSON come back as
 * the text SQLite stores, see postgres/row-types.ts), and the records made of them: one mapping.
 */
import { createHash } from 'node:crypto';
import type { AttemptCount, AuditEvent, AuditQuery, AuditRecord, JobKind, JobOutcome, JobProgress, JobRecord, JobState, Role, SessionRecord, StoredFileInfo, StoredUser } from './team-types.js';

export interface UserRow {
  name: string;
  role: string;
  password_hash: string;
  is_disabled: number | boolean;
  created_at: string;
  updated_at: string;
  /** Absent in a ledger from before accounts had e-mails (ledger copy reads those too). */
  email?: string | null;
}

export function toUser(row: UserRow): StoredUser {
  return {
    name: row.name,
    role: row.role as Role,
    email: row.email ?? null,
    isDisabled: Boolean(row.is_disabled),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    passwordHash: row.password_hash,
  };
}

export interface SessionRow {
  user_name: string | null;
  role: string | null;
  data: string;
  created_at: string;
  last_seen_at: string;
  address: string | null;
}

export function toSession(row: SessionRow): SessionRecord {
  return { userName: row.user_name, role: row.role as Role | null, data: parseObject(row.data) ?? {}, createdAt: row.created_at, lastSeenAt: row.last_seen_at, address: row.address };
}

/** Sessions are kept under the sha256 of their id: the database alone never lets anyone in. */
export function sessionKey(id: string): string {
  return createHash('sha256').update(id).digest('hex');
}

export interface AuditRow {
  seq: number | string;
  at: string;
  actor: string;
  via: string;
  address: string | null;
  action: string;
  file_name: string | null;
  file_sha256: string | null;
  counts: string | null;
  ref: string | null;
  detail: string | null;
}

export function toAudit(row: AuditRow): AuditRecord {
  return {
    seq: Number(row.seq),
    at: row.at,
    actor: row.actor,
    via: row.via as AuditRecord['via'],
    address: row.address,
    action: row.action as AuditRecord['action'],
    fileName: row.file_name,
    fileSha256: row.file_sha256,
    counts: parseObject(row.counts) as Record<string, number> | null,
    ref: row.ref,
    detail: row.detail,
  };
}

/** The values of an audit row in column order (at, actor, via, address, action, file_name, file_sha256, counts, ref, detail). */
export function auditValues(event: AuditEvent, at: Date): unknown[] {
  return [
    at.toISOString(),
    event.actor,
    event.via,
    event.address,
    event.action,
    event.fileName ?? null,
    event.fileSha256 ?? null,
    event.counts ? JSON.stringify(event.counts) : null,
    event.ref ?? null,
    event.detail ?? null,
  ];
}

/** The WHERE clause of an audit query; `placeholder(n)` writes the n-th parameter (1-based) as the backend wants it. */
export function auditFilter(query: AuditQuery, placeholder: (n: number) => string): { where: string; values: unknown[] } {
  const clauses: string[] = [];
  const values: unknown[] = [];
  const add = (clause: string, value: unknown) => {
    values.push(value);
    clauses.push(clause.replace('$', placeholder(values.length)));
  };
  if (query.since !== undefined) add('at >= $', new Date(query.since).toISOString());
  if (query.until !== undefined) add('at < $', new Date(query.until).toISOString());
  if (query.actor !== undefined) add('actor = $', query.actor);
  if (query.beforeSeq !== undefined) add('seq < $', query.beforeSeq);
  return { where: clauses.length > 0 ? `WHERE ${clauses.join(' AND ')}` : '', values };
}

export const AUDIT_LIMIT_DEFAULT = 100;
export const AUDIT_LIMIT_MAX = 10_000;

export function auditLimit(limit: number | undefined): number {
  return Math.max(1, Math.min(Math.floor(limit ?? AUDIT_LIMIT_DEFAULT), AUDIT_LIMIT_MAX));
}

export interface JobRow {
  id: string;
  kind: string;
  requested_via: string | null;
  upload_id: string;
  file_name: string;
  file_sha256: string | null;
  sheet: string | null;
  created_by: string;
  expected: number;
  state: string;
  created_at: string;
  holder: string | null;
  starts: number;
  run_id: string | null;
  cancel_requested_by: string | null;
  started_at: string | null;
  finished_at: string | null;
  progress: string | null;
  outcome: string | null;
}

export function toJob(row: JobRow): JobRecord {
  return {
    id: row.id,
    kind: row.kind as JobKind,
    requestedVia: row.requested_via,
    uploadId: row.upload_id,
    fileName: row.file_name,
    fileSha256: row.file_sha256,
    sheet: row.sheet,
    createdBy: row.created_by,
    expected: Number(row.expected),
    state: row.state as JobState,
    createdAt: row.created_at,
    holder: row.holder,
    starts: Number(row.starts),
    runId: row.run_id,
    cancelRequestedBy: row.cancel_requested_by,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    progress: parseObject(row.progress) as JobProgress | null,
    outcome: parseObject(row.outcome) as JobOutcome | null,
  };
}

/** The columns a job is read with (the holder's pid and machine stay inside the backends). */
export const JOB_COLUMNS =
  'id, kind, requested_via, upload_id, file_name, file_sha256, sheet, created_by, expected, state, created_at, holder, starts, run_id, cancel_requested_by, started_at, finished_at, progress, outcome';

export interface FileRow {
  area: string;
  owner: string;
  name: string;
  size: number | string;
  sha256: string;
  created_at: string;
}

export function toFileInfo(row: FileRow): StoredFileInfo {
  return { area: row.area, owner: row.owner, name: row.name, size: Number(row.size), sha256: row.sha256, createdAt: row.created_at };
}

/** A file's bytes cut into the pieces they are kept in (an empty file is one empty piece). */
export function cutIntoChunks(data: Uint8Array, size: number): Uint8Array[] {
  if (data.length === 0) return [new Uint8Array(0)];
  const chunks: Uint8Array[] = [];
  for (let start = 0; start < data.length; start += size) chunks.push(data.subarray(start, start + size));
  return chunks;
}

export function sha256Of(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

function parseObject(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  const value = JSON.parse(text) as unknown;
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null;
}

export interface AttemptRow {
  count: number | string;
  window_started_at: string;
}

export function toCount(row: AttemptRow): AttemptCount {
  return { count: Number(row.count), windowStartedAt: row.window_started_at };
}
