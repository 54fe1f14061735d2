/**
 * Jobs and files in a PostgreSQL ledger. A job is claimed as orders are (FOR UPDATE SKIP LOCKED: two
 * instances asking at once take two different jobs, or one takes it and the other none), and its
 * lease is timed by the database's clock. A job whose holder died is taken over only once the
 * holder's lease has lapsed and its last run no longer holds its orders, so the run that resumes it
 * meets none of them "in progress elsewhere".
 */
import { isProcessAlive, machineIdentity } from '../machine.js';
import { FILE_CHUNK_BYTES, type FileStore, type JobQueue } from '../team-types.js';
import { cutIntoChunks, JOB_COLUMNS, sha256Of, toFileInfo, toJob, type FileRow, type JobRow } from '../team-rows.js';
import type { TeamContext } from './team-accounts.js';

const LEASE_END = `clock_timestamp() + $LEASE::int * interval '1 millisecond'`;
const lease = (n: number) => LEASE_END.replace('$LEASE', `$${n}`);

export function createPostgresJobs({ query, transaction, now }: TeamContext): JobQueue {
  const read = async (id: string) => {
    const { rows } = await query<JobRow>(`SELECT ${JOB_COLUMNS} FROM jobs WHERE id = $1`, [id]);
    return rows[0] ? toJob(rows[0]) : null;
  };
  return {
    async create(job) {
      const { rows } = await query<JobRow>(
        `INSERT INTO jobs (id, upload_id, file_name, file_sha256, sheet, created_by, expected, state, created_at, kind, requested_via)
         VALUES ($1, $2, $3, $4, $5, $6, $7, 'queued', $8, $9, $10) RETURNING ${JOB_COLUMNS}`,
        [job.id, job.uploadId, job.fileName, job.fileSha256, job.sheet, job.createdBy, job.expected, now().toISOString(), job.kind ?? 'submit', job.requestedVia ?? null],
      );
      return toJob(rows[0]!);
    },
    get: read,
    async list(limit = 50) {
      const { rows } = await query<JobRow>(`SELECT ${JOB_COLUMNS} FROM jobs ORDER BY seq DESC LIMIT $1`, [limit]);
      return rows.map(toJob);
    },
    async findActive(uploadId) {
      const { rows } = await query<JobRow>(`SELECT ${JOB_COLUMNS} FROM jobs WHERE upload_id = $1 AND state IN ('queued', 'running') ORDER BY seq DESC LIMIT 1`, [uploadId]);
      return rows[0] ? toJob(rows[0]) : null;
    },
    async claim(holder, leaseMs) {
      const machine = machineIdentity();
      const { rows: held } = await query<{ id: string; holder_pid: number }>(
        `SELECT id, holder_pid FROM jobs WHERE state = 'running' AND holder_machine = $1 AND lease_expires_at > clock_timestamp()`,
        [machine],
      );
      const dead = held.filter((h) => h.holder_pid !== process.pid && !isProcessAlive(h.holder_pid)).map((h) => h.id);
      return transaction(async (client) => {
        const { rows } = await client.query<JobRow>(
          `UPDATE jobs SET state = 'running', holder = $1, holder_pid = $2, holder_machine = $3, lease_expires_at = ${lease(4)},
             starts = starts + 1, started_at = coalesce(started_at, $5)
           WHERE id = (
             SELECT j.id FROM jobs j
             WHERE j.state = 'queued'
                OR (j.state = 'running' AND j.id = ANY($6::text[]))
                OR (j.state = 'running' AND j.lease_expires_at <= clock_timestamp()
                    AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.run_id = j.run_id AND r.finished_at IS NULL AND r.lease_expires_at > clock_timestamp()))
             ORDER BY j.seq LIMIT 1 FOR UPDATE SKIP LOCKED)
           RETURNING ${JOB_COLUMNS}`,
          [holder, process.pid, machine, leaseMs, now().toISOString(), dead],
        );
        return rows[0] ? toJob(rows[0]) : null;
      });
    },
    async beat(id, holder, leaseMs, update = {}) {
      const { rows } = await query<{ cancel_requested_by: string | null }>(
        `UPDATE jobs SET lease_expires_at = ${lease(1)}, progress = coalesce($2::jsonb, progress), run_id = coalesce($3, run_id)
         WHERE id = $4 AND holder = $5 AND state = 'running' RETURNING cancel_requested_by`,
        [leaseMs, update.progress ? JSON.stringify(update.progress) : null, update.runId ?? null, id, holder],
      );
      return { isHeld: rows.length > 0, isCancelRequested: rows[0]?.cancel_requested_by != null };
    },
    async requestCancel(id, by) {
      await transaction(async (client) => {
        await client.query(`UPDATE jobs SET state = 'cancelled', cancel_requested_by = $1, finished_at = $2 WHERE id = $3 AND state = 'queued'`, [by, now().toISOString(), id]);
        await client.query(`UPDATE jobs SET cancel_requested_by = coalesce(cancel_requested_by, $1) WHERE id = $2 AND state = 'running'`, [by, id]);
      });
      return read(id);
    },
    async finish(id, holder, state, outcome) {
      const { rowCount } = await query(
        `UPDATE jobs SET state = $1, outcome = $2::jsonb, finished_at = $3, holder = NULL, holder_pid = NULL, holder_machine = NULL, lease_expires_at = NULL
         WHERE id = $4 AND holder = $5 AND state = 'running'`,
        [state, JSON.stringify(outcome), now().toISOString(), id, holder],
      );
      return (rowCount ?? 0) > 0;
    },
    async release(id, holder) {
      await query(
        `UPDATE jobs SET state = 'queued', holder = NULL, holder_pid = NULL, holder_machine = NULL, lease_expires_at = NULL WHERE id = $1 AND holder = $2 AND state = 'running'`,
        [id, holder],
      );
    },
  };
}

export function createPostgresFiles({ query, transaction, now }: TeamContext): FileStore {
  const INFO = 'SELECT id, area, owner, name, size, sha256, created_at FROM files WHERE area = $1 AND owner = $2 AND name = $3';
  return {
    async put(file) {
      const at = now().toISOString();
      const sha256 = sha256Of(file.data);
      await transaction(async (client) => {
        await client.query('DELETE FROM files WHERE area = $1 AND owner = $2 AND name = $3', [file.area, file.owner, file.name]);
        const { rows } = await client.query<{ id: string }>(
          'INSERT INTO files (area, owner, name, size, sha256, created_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id',
          [file.area, file.owner, file.name, file.data.length, sha256, at],
        );
        const chunks = cutIntoChunks(file.data, FILE_CHUNK_BYTES);
        for (const [seq, chunk] of chunks.entries()) {
          await client.query('INSERT INTO file_chunks (file_id, seq, data) VALUES ($1, $2, $3)', [rows[0]!.id, seq, Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length)]);
        }
      });
      return { area: file.area, owner: file.owner, name: file.name, size: file.data.length, sha256, createdAt: at };
    },
    async info(area, owner, name) {
      const { rows } = await query<FileRow>(INFO, [area, owner, name]);
      return rows[0] ? toFileInfo(rows[0]) : null;
    },
    async read(area, owner, name) {
      const { rows } = await query<{ id: string }>(INFO, [area, owner, name]);
      const id = rows[0]?.id;
      if (id === undefined) return null;
      return (async function* () {
        for (let seq = 0; ; seq++) {
          const { rows: chunk } = await query<{ data: Buffer }>('SELECT data FROM file_chunks WHERE file_id = $1 AND seq = $2', [id, seq]);
          if (!chunk[0]) return;
          yield chunk[0].data;
        }
      })();
    },
    async list(area, owner) {
      const { rows } = await query<FileRow>('SELECT area, owner, name, size, sha256, created_at FROM files WHERE area = $1 AND owner = $2 ORDER BY name COLLATE "C"', [area, owner]);
      return rows.map(toFileInfo);
    },
    async newestOwners(area, limit) {
      const { rows } = await query<{ owner: string }>('SELECT owner FROM files WHERE area = $1 GROUP BY owner ORDER BY max(created_at) DESC, max(id) DESC LIMIT $2', [area, limit]);
      return rows.map((r) => r.owner);
    },
    async usage() {
      const { rows } = await query<{ files: string; bytes: string; oldest: string | null }>('SELECT count(*) AS files, coalesce(sum(size), 0) AS bytes, min(created_at) AS oldest FROM files');
      return { files: Number(rows[0]!.files), bytes: Number(rows[0]!.bytes), oldest: rows[0]!.oldest };
    },
    async removeOlderThan(cutoff) {
      const { rows } = await query<{ area: string; owner: string; size: string }>('DELETE FROM files WHERE created_at < $1 RETURNING area, owner, size', [new Date(cutoff).toISOString()]);
      const owners = new Map(rows.map((r) => [`${r.area}/${r.owner}`, { area: r.area, owner: r.owner }]));
      return { files: rows.length, bytes: rows.reduce((sum, r) => sum + Number(r.size), 0), owners: [...owners.values()] };
    },
  };
}
