/** import --archive: moving a settled sheet and its result into the archive folder. */
import { copyFileSync, existsSync, mkdirSync, renameSync, unlinkSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describeFileSystemError, fileSystemErrorCode } from '../errors.js';
import type { Issue } from '../issues/index.js';
import type { Logger } from '../log.js';
import type { JsonOutputError } from '../run-report/json.js';

/** What archiving needs of a processed file: its path, its orders' statuses and its file-level issues. */
export interface ArchivableFile {
  file: string;
  outcomes: readonly { status: string }[];
  sheet: { fileIssues: readonly Issue[] };
}

/**
 * Moves a processed sheet and its result into the archive once every outcome is durable, and says
 * where each went. A sheet with a failed order stays where it is, so the next run picks it up again.
 * A move that fails (the archive folder not writable) is returned, not thrown: the orders' outcomes
 * stand all the same, and what was not moved stays where it was.
 */
export function archiveIfDone(state: ArchivableFile, resultPath: string, archiveDir: string, logger: Logger): { sheet?: string; result?: string; failure?: JsonOutputError } {
  if (state.outcomes.some((o) => o.status === 'failed')) {
    logger.warn({ file: state.file }, 'not archived: some orders failed and will be retried by the next run');
    return {};
  }
  // Archived, its other order sheet would never be read: it stays in view, with the warning that says how to read it.
  if (state.sheet.fileIssues.some((i) => i.code === 'unread_sheet')) {
    logger.warn({ file: state.file }, 'not archived: another worksheet holds orders that were not read (see the unread_sheet warning)');
    return {};
  }
  const moved: string[] = [];
  let target = archiveDir;
  try {
    mkdirSync(archiveDir, { recursive: true });
    for (const path of [state.file, resultPath]) {
      target = uniqueTarget(join(archiveDir, basename(path)));
      moveFile(path, target);
      moved.push(target);
    }
  } catch (error) {
    const code = fileSystemErrorCode(error);
    if (code === null) throw error;
    const stays = moved.length === 0 ? `${state.file} and its result stay where they are` : `${state.file} was archived (to ${moved[0]}), its result ${resultPath} stays where it is`;
    const message = `Could not move ${moved.length === 0 ? state.file : resultPath} into the archive ${archiveDir} (to ${target}): ${describeFileSystemError(error)}. ${stays}; the orders' outcomes are as reported. Make the archive folder writable, or pass another --archive <folder>.`;
    logger.error({ file: state.file, archive: archiveDir, code }, 'not archived');
    return { ...(moved[0] ? { sheet: moved[0] } : {}), failure: { file: state.file, path: target, code, message } };
  }
  logger.info({ file: state.file, archive: archiveDir, sheet: moved[0], result: moved[1] }, 'archived');
  return { sheet: moved[0]!, result: moved[1]! };
}

function uniqueTarget(path: string): string {
  if (!existsSync(path)) return path;
  const dot = path.lastIndexOf('.');
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  return dot > path.lastIndexOf('/') ? `${path.slice(0, dot)}.${stamp}${path.slice(dot)}` : `${path}.${stamp}`;
}

function moveFile(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    copyFileSync(from, to);
    unlinkSync(from);
  }
}
