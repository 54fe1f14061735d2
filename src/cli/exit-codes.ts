/**
 * The exit code of a command that threw (PRODUCT.md section 1): 2 usage, configuration, unreadable
 * input or a file that cannot be written (a ledger that cannot be opened among them); 3 the API could
 * not be used at all, or the ledger stopped working in the middle of a run. A run that finished takes
 * its code from its result (src/run-report/exit-code.ts).
 */
import { CommanderError } from 'commander';
import { apiUnusableOf } from '../api/unusable.js';
import { EXIT, InputError, OutputError, UsageError, describeFileFailure } from '../errors.js';
import { LedgerBusyError, LedgerError, LedgerUnusableError } from '../ledger/index.js';

/** What stopped a run: its exit code, what `--json` says of it (kind null for --help and --version), and its stderr text. */
export interface Failure {
  exitCode: number;
  kind: 'usage' | 'file' | 'api_unusable' | 'ledger_lost' | 'internal' | null;
  message: string;
  /** What goes to stderr: one line, '' when commander has printed its own. */
  stderr: string;
}

/** The failure an exception thrown out of a command stands for. */
export function failureOf(err: unknown): Failure {
  if (err instanceof CommanderError) {
    // Commander has already printed its message; --help and --version end here with code 0.
    if (err.exitCode === 0) return { exitCode: EXIT.ok, kind: null, message: '', stderr: '' };
    return { exitCode: EXIT.usage, kind: 'usage', message: err.message.replace(/^error: /, ''), stderr: '' };
  }
  // The ledger failed once open (a full disk, a damaged file, its server gone): like an API that stopped answering, the run could not go on.
  if (err instanceof LedgerUnusableError) return withLine({ exitCode: EXIT.apiUnusable, kind: 'ledger_lost', message: err.message });
  if (err instanceof UsageError || err instanceof InputError) {
    // A file that cannot be used (an input, a result to write, a ledger that is no ledger), unlike a
    // flag, a setting or another run holding the ledger.
    const isFile = err instanceof InputError || err instanceof OutputError || (err instanceof LedgerError && !(err instanceof LedgerBusyError));
    return withLine({ exitCode: EXIT.usage, kind: isFile ? 'file' : 'usage', message: err.message });
  }
  const unusable = apiUnusableOf(err);
  if (unusable) return withLine({ exitCode: EXIT.apiUnusable, kind: 'api_unusable', message: unusable.message });
  // A file the run could not use (a folder not writable, a full disk) is the machine's state, not a bug.
  const fileProblem = describeFileFailure(err);
  if (fileProblem !== null) return withLine({ exitCode: EXIT.usage, kind: 'file', message: fileProblem });
  const message = err instanceof Error ? err.message : String(err);
  return {
    exitCode: EXIT.someFailed,
    kind: 'internal',
    message: `internal error: ${message}`,
    stderr: `order-batch: internal error: ${message}\nThis is a bug; please report it with the command you ran (add --log-level debug for details).\n`,
  };
}

function withLine(failure: Omit<Failure, 'stderr'>): Failure {
  return { ...failure, stderr: `order-batch: ${failure.message}\n` };
}
