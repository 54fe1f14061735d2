/**
 * Jobs and files in an SQLite ledger. One host uses an SQLite ledger, so leases are timed on the
 * ledger's clock (LedgerOptions.now); a holder that died on this machine is seen dead at once.
 */
import type { Database } from 'better-sqlite3';
import { preparedOnce } from '../../sqlite/open-database.js';
import { isProcessAlive, machineIdentity } from '../machine.js';
import { FILE_CHUNK_BYTES, type FileStore, type JobQueue, type JobRecord } from '../team-types.js';
import { cutIntoChunks, JOB_COLUMNS, sha256Of, toFileInfo, toJob, type FileRow, type JobRow } from '../team-rows.js';

export function createSqliteJobs(db: Database, now: () => Date): JobQueue {
  const sql = preparedOnce(db);
  const selectJob = sql(`SELECT ${JOB_COLUMNS} FROM jobs WHERE id = ?`);
  const read = (id: string): JobRecord | null => {
    const row = selectJob.get(id) as JobRow | undefined;
    return row ? toJob(row) : null;
  };
  const leaseEnd = (leaseMs: number) => new Date(now().getTime() + leaseMs).toISOString();

  return {
    async create(job) {
      sql(
        `INSERT INTO jobs (id, upload_id, file_name, file_sha256, sheet, created_by, expected, state, created_at, kind, requested_via)
         VALUES (?, ?, ?, ?, ?, ?, ?, 'queued', ?, ?, ?)`,
      ).run(job.id, job.uploadId, job.fileName, job.fileSha256, job.sheet, job.createdBy, job.expected, now().toISOString(), job.kind ?? 'submit', job.requestedVia ?? null);
      return read(job.id)!;
    },
    get: async (id) => read(id),
    async list(limit = 50) {
      return (sql(`SELECT ${JOB_COLUMNS} FROM jobs ORDER BY seq DESC LIMIT ?`).all(limit) as JobRow[]).map(toJob);
    },
    async findActive(uploadId) {
      const row = sql(`SELECT ${JOB_COLUMNS} FROM jobs WHERE upload_id = ? AND state IN ('queued', 'running') ORDER BY seq DESC LIMIT 1`).get(uploadId) as JobRow | undefined;
      return row ? toJob(row) : null;
    },
    async claim(holder, leaseMs) {
      const machine = machineIdentity();
      return db.transaction(() => {
        const at = now().toISOString();
        // Held by a process of this machine that is gone: claimable now, not when its lease lapses.
        const held = sql(`SELECT id, holder_pid FROM jobs WHERE state = 'running' AND holder_machine = ? AND lease_expires_at > ?`).all(machine, at) as { id: string; holder_pid: number }[];
        const dead = held.filter((h) => h.holder_pid !== process.pid && !isProcessAlive(h.holder_pid)).map((h) => h.id);
        const row = db
          .prepare(
            `SELECT id FROM jobs WHERE state = 'queued' OR (state = 'running' AND (lease_expires_at <= ? OR id IN (SELECT value FROM json_each(?))))
             ORDER BY seq LIMIT 1`,
          )
          .get(at, JSON.stringify(dead)) as { id: string } | undefined;
        if (!row) return null;
        sql(
          `UPDATE jobs SET state = 'running', holder = ?, holder_pid = ?, holder_machine = ?, lease_expires_at = ?, starts = starts + 1,
             started_at = coalesce(started_at, ?) WHERE id = ?`,
        ).run(holder, process.pid, machine, leaseEnd(leaseMs), at, row.id);
        return read(row.id);
      }).immediate();
    },
    async beat(id, holder, leaseMs, update = {}) {
      const row = db
        .prepare(
          `UPDATE jobs SET lease_expires_at = ?, progress = coalesce(?, progress), run_id = coalesce(?, run_id)
           WHERE id = ? AND holder = ? AND state = 'running' RETURNING cancel_requested_by`,
        )
        .get(leaseEnd(leaseMs), update.progress ? JSON.stringify(update.progress) : null, update.runId ?? null, id, holder) as { cancel_requested_by: string | null } | undefined;
      return { isHeld: row !== undefined, isCancelRequested: row?.cancel_requested_by != null };
    },
    async requestCancel(id, by) {
      return db.transaction(() => {
        const at = now().toISOString();
        sql(`UPDATE jobs SET state = 'cancelled', cancel_requested_by = ?, finished_at = ? WHERE id = ? AND state = 'queued'`).run(by, at, id);
        sql(`UPDATE jobs SET cancel_requested_by = coalesce(cancel_requested_by, ?) WHERE id = ? AND state = 'running'`).run(by, id);
        return read(id);
      }).immediate();
    },
    async finish(id, holder, state, outcome) {
      const { changes } = db
        .prepare(
          `UPDATE jobs SET state = ?, outcome = ?, finished_at = ?, holder = NULL, holder_pid = NULL, holder_machine = NULL, lease_expires_at = NULL
           WHERE id = ? AND holder = ? AND state = 'running'`,
        )
        .run(state, JSON.stringify(outcome), now().toISOString(), id, holder);
      return changes > 0;
    },
    async release(id, holder) {
      sql(
        `UPDATE jobs SET state = 'queued', holder = NULL, holder_pid = NULL, holder_machine = NULL, lease_expires_at = NULL WHERE id = ? AND holder = ? AND state = 'running'`,
      ).run(id, holder);
    },
  };
}

export function createSqliteFiles(db: Database, now: () => Date): FileStore {
  const sql = preparedOnce(db);
  const selectInfo = sql('SELECT id, area, owner, name, size, sha256, created_at FROM files WHERE area = ? AND owner = ? AND name = ?');
  const deleteFile = db.transaction((ids: number[]) => {
    for (const id of ids) {
      sql('DELETE FROM file_chunks WHERE file_id = ?').run(id);
      sql('DELETE FROM files WHERE id = ?').run(id);
    }
  });
  return {
    async put(file) {
      const at = now().toISOString();
      const sha256 = sha256Of(file.data);
      db.transaction(() => {
        const old = selectInfo.get(file.area, file.owner, file.name) as { id: number } | undefined;
        if (old) deleteFile([old.id]);
        const { lastInsertRowid } = db
          .prepare('INSERT INTO files (area, owner, name, size, sha256, created_at) VALUES (?, ?, ?, ?, ?, ?)')
          .run(file.area, file.owner, file.name, file.data.length, sha256, at);
        const insert = sql('INSERT INTO file_chunks (file_id, seq, data) VALUES (?, ?, ?)');
        cutIntoChunks(file.data, FILE_CHUNK_BYTES).forEach((chunk, seq) => insert.run(lastInsertRowid, seq, Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length)));
      }).immediate();
      return { area: file.area, owner: file.owner, name: file.name, size: file.data.length, sha256, createdAt: at };
    },
    async info(area, owner, name) {
      const row = selectInfo.get(area, owner, name) as FileRow | undefined;
      return row ? toFileInfo(row) : null;
    },
    async read(area, owner, name) {
      const row = selectInfo.get(area, owner, name) as { id: number } | undefined;
      if (!row) return null;
      const chunk = sql('SELECT data FROM file_chunks WHERE file_id = ? AND seq = ?').pluck();
      return (async function* () {
        for (let seq = 0; ; seq++) {
          const data = chunk.get(row.id, seq) as Buffer | undefined;
          if (data === undefined) return;
          yield data;
        }
      })();
    },
    async list(area, owner) {
      return (sql('SELECT area, owner, name, size, sha256, created_at FROM files WHERE area = ? AND owner = ? ORDER BY name').all(area, owner) as FileRow[]).map(toFileInfo);
    },
    async newestOwners(area, limit) {
      return sql('SELECT owner FROM files WHERE area = ? GROUP BY owner ORDER BY max(created_at) DESC, max(id) DESC LIMIT ?').pluck().all(area, limit) as string[];
    },
    async usage() {
      const row = sql('SELECT count(*) AS files, coalesce(sum(size), 0) AS bytes, min(created_at) AS oldest FROM files').get() as { files: number; bytes: number; oldest: string | null };
      return { files: row.files, bytes: row.bytes, oldest: row.oldest };
    },
    async removeOlderThan(cutoff) {
      const rows = sql('SELECT id, area, owner, size FROM files WHERE created_at < ?').all(new Date(cutoff).toISOString()) as { id: number; area: string; owner: string; size: number }[];
      deleteFile.immediate(rows.map((r) => r.id));
      const owners = new Map(rows.map((r) => [`${r.area}/${r.owner}`, { area: r.area, owner: r.owner }]));
      return { files: rows.length, bytes: rows.reduce((sum, r) => sum + r.size, 0), owners: [...owners.values()] };
    },
  };
}
