/** A runs row as both ledgers give it, and the RunRecord it reads as. */
import type { RunFile, RunRecord } from './types.js';

export interface RunRow {
  run_id: string;
  command: string;
  files: string;
  started_at: string;
  finished_at: string | null;
  summary: string | null;
  result_files: string;
  pid: number;
  host: string;
}

export function toRun(row: RunRow): RunRecord {
  return {
    runId: row.run_id,
    command: row.command,
    files: JSON.parse(row.files) as RunFile[],
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    summary: row.summary === null ? null : (JSON.parse(row.summary) as unknown),
    resultFiles: JSON.parse(row.result_files) as string[],
    pid: row.pid,
    host: row.host,
  };
}
