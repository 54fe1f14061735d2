/**
 * `order-batch import <file...>`: validate, check against the API, submit the valid orders through
 * the ledger, and write a result file for each sheet. Reads the sheets, plans what is sent
 * (plan-import.ts), sends it (send-plan.ts), writes the results; returns a result, and the CLI or the
 * web app decides what to print and which exit code follows.
 */
import type { LedgerRun, RunLock } from '../ledger/index.js';
import type { ImportOptions, ImportResult } from './import-options.js';
import { redactUrl } from '../redact.js';
import { countByStatus } from '../result-files/result-rows.js';
import { outputField, type JsonInput } from '../run-report/json.js';
import { connectWithLedger, type Connection } from '../connection/connect.js';
import { resultPathFor } from '../output-files/output-path.js';
import { expandInputs } from '../validate/input-files.js';
import type { FileState } from './plan-import.js';
import { readSheets } from './read-sheets.js';
import { recordMarketplaceLines } from '../mapping/marketplace-lines.js';
import { jsonOrdersOf, markNotSentForLedger, writeResults, type WrittenResults } from './results.js';
import { planAndSend } from './send-plan.js';
import { ledgerStopOf, strongerStop } from './send/send-decision.js';
import type { StopReason } from './send/submit.js';

export type { ImportOptions, ImportResult } from './import-options.js';

export async function runImport(options: ImportOptions): Promise<ImportResult> {
  const { logger } = options;
  const { files, skipped } = expandInputs(options.files, { logger });
  const { inputs, states, hasUnusableInput } = await readSheets(files, options);
  // Before anything is sent: a --out that cannot name the result files stops the run while it is harmless.
  const takenOutputs = new Set<string>();
  const resultPaths = states.map((state) => resultPathFor(state.file, options.out, files.length, 'import-result', takenOutputs));

  // A ledger that fails once open stops the run below (exit 3); the entry point opened it, and closes it.
  const { ledger } = options;
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
      // The lines' marketplace identifiers are kept before anything is sent, so a confirmation can name them.
      if (!options.dryRun) await recordMarketplaceLines(ledger, states);
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
