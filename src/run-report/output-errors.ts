/**
 * After a validate, import or reconcile run: the files it could not write, and what the CLI says on
 * stderr about them. A result file that cannot be written does not undo what was sent: the run's
 * report still stands and is printed first; the failure follows, with what to do.
 */
import { OutputError, UsageError } from '../errors.js';
import type { Logger } from '../log.js';
import type { JsonOutputError, JsonReport } from './json.js';

/**
 * The JSON form of a failed write of `path` (for `file`), or null when `error` is a bug that must not
 * pass for the user's problem. A UsageError raised while writing (a result too long for Excel) counts:
 * the user fixes it with --out too.
 */
export function outputErrorOf(error: unknown, file: string, path: string): JsonOutputError | null {
  if (error instanceof OutputError) return { file, path: error.path, code: error.code, message: error.message };
  if (error instanceof UsageError) return { file, path, code: null, message: error.message };
  return null;
}

/**
 * Runs `write` (a result file, a workbook); when the file cannot be written the failure goes to
 * `errors` (and the log) and undefined comes back: the run's report still stands. A bug is thrown.
 */
export async function writeOrRecordFailure<T>(errors: JsonOutputError[], target: { file: string; path: string; logger: Logger }, write: () => Promise<T>): Promise<T | undefined> {
  try {
    return await write();
  } catch (error) {
    const failure = outputErrorOf(error, target.file, target.path);
    if (!failure) throw error;
    target.logger.error({ file: target.file, path: target.path, code: failure.code }, 'output file not written');
    errors.push(failure);
    return undefined;
  }
}

/**
 * The stderr lines for files that could not be written, each prefixed like every CLI message. After an
 * import that got orders accepted, one more line says they were sent and will not be sent twice, so an
 * unwritable result folder never reads as a failed import.
 */
export function formatOutputErrors(report: JsonReport): string {
  const errors = report.outputErrors ?? [];
  if (errors.length === 0) return '';
  const lines = errors.map((e) => `order-batch: ${e.message}`);
  const accepted = report.command === 'import' ? (report.summary.accepted ?? 0) : 0;
  if (accepted > 0) {
    lines.push(
      `order-batch: the orders were sent all the same: ${accepted} accepted (see the report above). The ledger records them, ` +
        'so running the command again sends none of them twice: it shows them as already_submitted and writes the result file.',
    );
  }
  return `${lines.join('\n')}\n`;
}
