/**
 * `order-batch import <file...>`: validate, check against the API, submit the valid orders through
 * the ledger, and write a result file for each sheet. Reads the sheets, plans what is sent
 * (plan-import.ts), sends it (send-plan.ts), writes the results; returns a result, and the CLI or the
 * web app decides what to print and which exit code follows.
 */
import { openLedger } from '../ledger/index.js';
import type { Ledger, LedgerRun, RunLock } from '../ledger/types.js';
import type { Logger } from '../log.js';
import type { ConnectionSettings } from '../options.js';
import type { CheckContext } from '../orders/types.js';
import type { OrderProgress, Progress } from '../progress.js';
import { redactUrl } from '../redact.js';
import { countByStatus } from '../result-files/result-rows.js';
import { outputField, type JsonInput, type JsonReport } from '../run-report/json.js';
import { connectWithLedger, type Connection } from '../connection/connect.js';
import { resultPathFor } from '../output-files/output-path.js';
import type { ReadSettings } from '../validate/check-file.js';
import { expandInputs } from '../validate/input-files.js';
import type { FileState } from './plan-import.js';
import { readSheets } from './read-sheets.js';
import { jsonOrdersOf, markNotSentForLedger, writeResults, type WrittenResults } from './results.js';
import { planAndSend } from './send-plan.js';
import { ledgerStopOf, strongerStop } from './send/send-decision.js';
import type { StopReason } from './send/submit.js';

export interface ImportOptions {
  files: readonly string[];
  out?: string;
  sheet?: string;
  context: CheckContext;
  connection: ConnectionSettings;
  useSandbox: boolean;
  concurrency: number;
  maxAttempts: number;
  dryRun: boolean;
  ledgerPath: string;
  /** The ledger the entry point opened (the CLI command, the web app): used, and left open. Without it the run opens ledgerPath itself. */
  ledger?: Ledger;
  /** How long this run's claims outlive its last sign of life (PostgreSQL); default the ledger's. */
  claimLeaseMs?: number;
  archiveDir?: string;
  logger: Logger;
  progress?: Progress;
  orderProgress?: OrderProgress;
  /** How columns, dates and numbers are read (--mapping, --date-order, --decimal-comma). */
  readSettings?: ReadSettings;
  /** For tests and the web app: an existing connection instead of building one. */
  connectionOverride?: Connection;
  /** Backoff for retries; default 0.5 s doubling to 30 s. Tests shorten it. */
  backoff?: { baseMs: number; maxMs: number };
  /** Called for each order as it is done (the web app shows live progress). */
  onOrderDone?: (done: number, total: number, status: string) => void;
  /** Called once the run is registered in the ledger (the web app's job notes which run it is). */
  onRunStarted?: (runId: string) => void;
  /** Aborted (Ctrl-C, SIGTERM): send nothing more, finish the orders in flight, write the results. */
  signal?: AbortSignal;
  /** This run's share of the team's POSTs in flight (--team-concurrency): it can lower the run's share of the ledger's team cap, never raise the cap. */
  teamConcurrency?: number;
}

export interface ImportResult {
  report: JsonReport<unknown[]>;
  hasUnusableInput: boolean;
  /** Some order is invalid, rejected or failed. */
  hasProblems: boolean;
  /** The API could not be used at all (auth refused, 403, unreachable). */
  apiUnusable?: StopReason;
  /** The ledger failed once open (a full disk, a damaged file): the run stopped sending, the results say what was settled (exit 3). */
  ledgerFailure?: { ledger: string; message: string };
  /** The run was interrupted before every order was sent; those not sent are 'failed' and go out on the next run. */
  interrupted?: boolean;
  runId?: string;
}

export async function runImport(options: ImportOptions): Promise<ImportResult> {
  const { logger } = options;
  const { files, skipped } = expandInputs(options.files, { logger });
  const { inputs, states, hasUnusableInput } = await readSheets(files, options);
  // Before anything is sent: a --out that cannot name the result files stops the run while it is harmless.
  const takenOutputs = new Set<string>();
  const resultPaths = states.map((state) => resultPathFor(state.file, options.out, files.length, 'import-result', takenOutputs));

  // A ledger that cannot be opened stops here (a LedgerError: exit 2); one that fails once open stops the run below (exit 3).
  const ledger = options.ledger ?? (await openLedger(options.ledgerPath, { logger, ...(options.claimLeaseMs ? { claimLeaseMs: options.claimLeaseMs } : {}) }));
  // Why the run stopped sending, one reason (strongerStop): interrupted, the API unusable, or the ledger's storage failed once open.
  let stopped: StopReason | undefined;
  const noteLedgerFailure = (err: unknown): void => {
    const found = ledgerStopOf(err);
    if (!found) throw err;
    stopped = strongerStop(stopped, found);
  };
  const held: { lock?: RunLock; connection?: Connection; run?: LedgerRun } = {};
  const written: WrittenResults = { outputs: [], outputErrors: [], archived: [], kept: [] };
  try {
    try {
      held.lock = await ledger.acquireRunLock({ command: 'import' });
      const connection = (held.connection = await connectWithLedger(ledger, {
        connection: options.connection,
        useSandbox: options.useSandbox,
        ledgerPath: options.ledgerPath,
        sandboxStart: options.context.now,
        concurrency: options.concurrency,
        logger,
        connectionOverride: options.connectionOverride,
      }));
      const run = (held.run = await ledger.startRun({ command: options.dryRun ? 'import --dry-run' : 'import', files: states.map((s) => ({ file: s.file, sha256: s.sheet.sha256, rows: s.sheet.rows.size, orders: s.sheet.orders.length })) }));
      options.onRunStarted?.(run.runId);
      const sendStop = await planAndSend(states, { ...options, client: connection.client, ledger, run });
      if (sendStop) stopped = strongerStop(stopped, sendStop);
    } catch (err) {
      noteLedgerFailure(err);
    }
    if (stopped?.kind === 'ledger') {
      const { failure } = stopped;
      logger.error({ ledger: failure.path, code: failure.code }, `not sending: ${failure.message}`);
      markNotSentForLedger(states, failure.message);
    }
    await writeResults(states, resultPaths, importNotes(options, held.connection, stopped), options, written);
    // A run the ledger failed under stays unfinished in its history, as a killed one does.
    if (held.run && stopped?.kind !== 'ledger') {
      const finished = { summary: countByStatus(states.flatMap((s) => s.outcomes.map((o) => o.status))), resultFiles: written.outputs };
      await held.run.finish(finished).catch(noteLedgerFailure);
    }
  } finally {
    if (!options.connectionOverride) await held.connection?.close();
    await held.lock?.release().catch(noteLedgerFailure);
    if (!options.ledger) await ledger.close().catch(noteLedgerFailure);
  }
  return importResultOf({ inputs, states, skipped, hasUnusableInput, written, stopped, runId: held.run?.runId });
}

/** The notes every result file of the run carries: where it was sent, as of when, and why it stopped early. */
function importNotes(options: ImportOptions, connection: Connection | undefined, stopped: StopReason | undefined): string[] {
  const sentTo = connection ? [`Sent to ${connection.isSandbox ? 'the embedded sandbox' : redactUrl(connection.baseUrl)}${options.dryRun ? ' (dry run: nothing was sent)' : ''}.`] : [];
  const stopNote =
    stopped === undefined ? []
    : stopped.kind === 'ledger' ? [`The run stopped early: ${stopped.failure.message}`]
    : stopped.kind === 'interrupted' ? ['The run was interrupted: the orders marked "Not sent" go out on the next run of the same command.']
    : [`The run stopped early: ${stopped.message}.`];
  return [...sentTo, `Checked as of ${options.context.now.toISOString()} (dates without an offset read in ${options.context.timezone}).`, ...stopNote];
}

function importResultOf(run: {
  inputs: JsonInput[];
  states: readonly FileState[];
  skipped: readonly { file: string; reason: string }[];
  hasUnusableInput: boolean;
  written: WrittenResults;
  stopped: StopReason | undefined;
  runId: string | undefined;
}): ImportResult {
  const { states, skipped, stopped } = run;
  const orders = jsonOrdersOf(states);
  // Everything is read from the sheets now: what they kept on disk goes (a long-running web app runs many imports).
  for (const state of states) state.sheet.release?.();
  const summary = countByStatus(orders.map((o) => o.status));
  // An order already sent whose sheet now says something else: the change never reached the network.
  const contentsDiffer = states.reduce((n, state) => n + state.outcomes.filter((o) => o.contentsDiffer).length, 0);
  const hasProblems = (summary.invalid ?? 0) + (summary.rejected ?? 0) + (summary.failed ?? 0) + contentsDiffer > 0;
  const { outputs, outputErrors, archived, kept } = run.written;
  const ledgerFailure = stopped?.kind === 'ledger' ? { ledger: stopped.failure.path, message: stopped.failure.message } : undefined;
  const apiUnusable = stopped && stopped.kind !== 'ledger' && stopped.kind !== 'interrupted' ? stopped : undefined;
  return {
    report: {
      command: 'import',
      input: run.inputs,
      summary,
      ...(contentsDiffer > 0 ? { contentsDiffer } : {}),
      orders,
      output: outputField(outputs),
      ...(archived.length > 0 ? { archived } : {}),
      ...(kept.length > 0 ? { kept } : {}),
      ...(skipped.length > 0 ? { skipped: skipped.map(({ file, reason }) => ({ file, reason })) } : {}),
      ...(outputErrors.length > 0 ? { outputErrors } : {}),
      ...(ledgerFailure ? { ledgerError: ledgerFailure } : {}),
    },
    hasUnusableInput: run.hasUnusableInput,
    hasProblems,
    ...(apiUnusable ? { apiUnusable } : {}),
    ...(ledgerFailure ? { ledgerFailure } : {}),
    ...(stopped?.kind === 'interrupted' ? { interrupted: true } : {}),
    ...(run.runId ? { runId: run.runId } : {}),
  };
}
