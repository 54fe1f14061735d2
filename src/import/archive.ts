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

/** Where a sheet went, or why it stayed: moved (with its result), a move that failed, or kept in place for a reason. */
export interface ArchiveOutcome {
  sheet?: string;
  result?: string;
  failure?: JsonOutputError;
  /** Why the sheet stays where it is (it holds orders someone must still act on). */
  kept?: string;
}

/**
 * Moves a processed sheet and its result into the archive once every order in it is done with, and
 * says where each went. A sheet stays where it is, and says why, while it holds orders someone must
 * still act on: one that failed (the next run retries it), one that is invalid or the API rejected
 * (someone must fix it: archived, a cron inbox would lose sight of it), one another run is sending
 * (a shared ledger: not settled until that run says so), or orders on a worksheet that was not read.
 * A move that fails (the archive folder not writable) is returned, not thrown: the orders' outcomes
 * stand all the same, and what was not moved stays where it was.
 */
export function archiveIfDone(state: ArchivableFile, resultPath: string, archiveDir: string, logger: Logger): ArchiveOutcome {
  const kept = whyKept(state, resultPath);
  if (kept !== null) {
    logger.warn({ file: state.file, result: resultPath }, `not archived: ${kept}`);
    return { kept };
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

/** Why a sheet must stay in view, or null when every order in it is done with. */
function whyKept(state: ArchivableFile, resultPath: string): string | null {
  const count = (statuses: readonly string[]) => state.outcomes.filter((o) => statuses.includes(o.status)).length;
  const orders = (n: number) => (n === 1 ? '1 order' : `${n} orders`);
  const reasons: string[] = [];
  const toFix = count(['invalid', 'rejected']);
  if (toFix > 0) {
    reasons.push(
      `${orders(toFix)} need${toFix === 1 ? 's' : ''} fixing (invalid, or rejected by the API): correct ${toFix === 1 ? 'it' : 'them'} in this sheet and the next run sends ${toFix === 1 ? 'it' : 'them'} ` +
        `(the orders already sent are not sent again), or import the Fix sheet of ${resultPath} and then move this sheet away`,
    );
  }
  const failed = count(['failed']);
  if (failed > 0) reasons.push(`${orders(failed)} did not go through (failed): the next run retries ${failed === 1 ? 'it' : 'them'}`);
  // Not sent by this run: only the other run knows how it ends, and should it fail, the next run of this sheet sends it.
  const elsewhere = count(['in_progress_elsewhere']);
  if (elsewhere > 0) reasons.push(`${orders(elsewhere)} ${elsewhere === 1 ? 'is' : 'are'} being sent by another run (in_progress_elsewhere): the next run of this sheet says how ${elsewhere === 1 ? 'it' : 'they'} ended`);
  if (state.sheet.fileIssues.some((i) => i.code === 'unread_sheet')) reasons.push('another worksheet holds orders that were not read (see the unread_sheet warning)');
  return reasons.length === 0 ? null : reasons.join('; ');
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
