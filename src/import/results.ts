/**
 * The end of an import: each sheet's result file, then, with --archive, the sheet and its result moved
 * away or kept in view; and the outcome of the orders a failed ledger left unsettled.
 */
import type { Issue } from '../issues/index.js';
import type { Logger } from '../log.js';
import type { CheckContext } from '../orders/types.js';
import { toJsonIssues, type JsonArchived, type JsonKept, type JsonOrder, type JsonOutputError } from '../run-report/json.js';
import { writeOrRecordFailure } from '../run-report/output-errors.js';
import { describeNotApplied } from '../run-report/text.js';
import { archiveIfDone } from './archive.js';
import { outcomeView, type FileState } from './plan-import.js';
import { writeResultFile } from '../result-files/write-result.js';

const EXTRA_COLUMNS = ['httpStatus', 'requestId', 'submittedAt'];

/**
 * The orders still waiting to be judged or sent when the ledger failed (valid ones: the failure came
 * before they were sent): failed, not sent, with why. What was settled keeps its outcome.
 */
export function markNotSentForLedger(states: readonly FileState[], message: string): void {
  for (const state of states) {
    state.outcomes.forEach((outcome, index) => {
      if (outcome.status !== 'valid') return;
      const row = state.sheet.orders.at(index)!.rows[0] ?? null;
      const issue: Issue = { row, column: null, code: 'failed', severity: 'error', message: `Not sent: ${message} Once the ledger is fixed, the next run sends it, or finds it already sent.` };
      state.outcomes[index] = outcomeView('failed', [...outcome.issues, issue]);
    });
  }
}

export interface WrittenResults {
  outputs: string[];
  outputErrors: JsonOutputError[];
  archived: JsonArchived[];
  kept: JsonKept[];
}

export interface WriteResultsOptions {
  out?: string;
  archiveDir?: string;
  dryRun: boolean;
  context: CheckContext;
  logger: Logger;
}

/**
 * A result file per sheet, then the sheet and its result archived when every order is done with (kept in place, and said, when not).
 * What was sent stays sent: a result file that cannot be written is recorded, and the run goes on.
 */
export async function writeResults(states: readonly FileState[], resultPaths: readonly string[], notes: readonly string[], options: WriteResultsOptions, written: WrittenResults): Promise<void> {
  const { logger } = options;
  for (const [i, state] of states.entries()) {
    const path = resultPaths[i]!;
    const result = await writeOrRecordFailure(written.outputErrors, { file: state.file, path, logger }, () =>
      writeResultFile({
        command: 'import',
        sheet: state.sheet,
        outcomes: state.outcomes,
        extraColumns: EXTRA_COLUMNS,
        path,
        isDefaultPath: options.out === undefined,
        generatedAt: new Date(),
        notes: [...notes, ...notAppliedNote(state.outcomes.filter((o) => o.contentsDiffer).length)],
        sourcesOfSale: options.context.sourcesOfSale,
        logger,
      }),
    );
    if (result === undefined) continue;
    if (!options.archiveDir || options.dryRun) {
      written.outputs.push(result);
      continue;
    }
    // Reported where the files are now: the archive, or, for what could not be moved, where they were.
    const moved = archiveIfDone(state, result, options.archiveDir, logger);
    written.outputs.push(moved.result ?? result);
    if (moved.sheet) written.archived.push({ file: state.file, sheet: moved.sheet, ...(moved.result ? { result: moved.result } : {}) });
    if (moved.failure) written.outputErrors.push(moved.failure);
    if (moved.kept) written.kept.push({ file: state.file, result, reason: moved.kept });
  }
}

function notAppliedNote(count: number): string[] {
  return count === 0 ? [] : [describeNotApplied(count)];
}

/** Every order of the run as the report lists it. */
export function jsonOrdersOf(states: readonly FileState[]): JsonOrder[] {
  return states.flatMap((state) =>
    state.sheet.orders.map((order, i) => {
      const outcome = state.outcomes[i]!;
      const entry: JsonOrder = { customerOrderId: order.customerOrderId, file: state.file, rows: order.rows, status: outcome.status, issues: toJsonIssues(outcome.issues) };
      if (outcome.httpStatus !== undefined) entry.httpStatus = outcome.httpStatus;
      if (outcome.requestId !== undefined) entry.requestId = outcome.requestId;
      if (outcome.submittedAt !== undefined) entry.submittedAt = outcome.submittedAt;
      return entry;
    }),
  );
}

