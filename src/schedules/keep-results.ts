/**
 * A scheduled run's result files, kept in the ledger's file store as well as where the run wrote
 * them: the web app's History serves them from any instance of the team, as it serves a submission's,
 * and removes them after the same retention.
 */
import { readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import type { FileStore, Ledger } from '../ledger/index.js';
import type { Logger } from '../log.js';

/** The file store's area for scheduled runs' results (owner: the run id). */
export const SCHEDULE_FILES_AREA = 'schedules';
/** Larger results stay only where the run wrote them. */
const MAX_KEPT_BYTES = 100 * 1024 * 1024;

/** The stored name of a run's `index`th result file (two sheets' results may share a base name). */
export function keptResultName(index: number, file: string): string {
  return `${index}-${basename(file)}`;
}

/** Reads a kept result (null: not kept). */
export function readKeptResult(files: FileStore, runId: string, index: number, file: string): Promise<AsyncIterable<Uint8Array> | null> {
  return files.read(SCHEDULE_FILES_AREA, runId, keptResultName(index, file));
}

/** Keeps the run's result files in the run's ledger; a file that cannot be kept is logged, never a failure of the run. */
export async function keepRunResults(ledger: Pick<Ledger, 'getRun' | 'files'>, runId: string, logger: Logger): Promise<void> {
  try {
    const run = await ledger.getRun(runId);
    for (const [index, file] of (run?.resultFiles ?? []).entries()) {
      if (statSync(file, { throwIfNoEntry: false })?.isFile() !== true || statSync(file).size > MAX_KEPT_BYTES) continue;
      await ledger.files.put({ area: SCHEDULE_FILES_AREA, owner: runId, name: keptResultName(index, file), data: readFileSync(file) });
    }
  } catch (error) {
    logger.warn({ runId, err: (error as Error).message }, "the scheduled run's results could not be kept in the ledger for the web app");
  }
}
