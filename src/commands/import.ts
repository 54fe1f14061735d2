/**
 * `order-batch import <file...>`: validate, check against the API, submit the valid orders through
 * the ledger, and write a result file for each sheet. Returns a result; the CLI or the web app
 * decides what to print and which exit code follows.
 */
import { hasErrors } from '../issues/index.js';
import { fetchOnlineFacts, type OnlineFacts } from '../import/online-checks.js';
import { submitOrders, type SubmitOutcome, type StopReason } from '../import/submit.js';
import { apiUnusableOf } from '../api/unusable.js';
import { ledgerStopOf } from '../import/send-decision.js';
import type { LedgerStop } from '../import/types.js';
import { type Ledger, type LedgerRun, openLedger, type RunLock } from '../ledger/index.js';
import type { Logger } from '../log.js';
import { redactUrl } from '../redact.js';
import type { ConnectionSettings } from '../options.js';
import type { CheckContext } from '../orders/types.js';
import { checkFile, type ReadSettings } from './check-file.js';
import { connectWithLedger, type Connection } from './connect.js';
import { expandInputs } from './input-files.js';
import { outputField, toJsonIssues, type JsonInput, type JsonOrder, type JsonReport } from '../run-report/json.js';
import { resultPathFor } from './output-path.js';
import type { OrderProgress, Progress } from './progress.js';
import { countByStatus } from './result-rows.js';
import { candidatesToSend, idsToLookUp, judgeOnline, ledgerJudge, outcomeView, type FileState, type Job } from './import-judging.js';
import { markNotSentForLedger, writeResults, type WrittenResults } from './import-results.js';
import { createShareNotes } from './team-share.js';

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
  /** How long this run's claims outlive its last sign of life (PostgreSQL); default the ledger's. */
  claimLeaseMs?: number;
  /** How long a lost PostgreSQL ledger is waited for before the run stops (default 120 s). */
  ledgerOutageMs?: number;
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

export async function importFiles(options: ImportOptions): Promise<ImportResult> {
  const { logger } = options;
  const { files, skipped } = expandInputs(options.files, { logger: options.logger });
  const { inputs, states, hasUnusableInput } = await checkInputs(files, options);

  // Before anything is sent: a --out that cannot name the result files stops the run while it is harmless.
  const takenOutputs = new Set<string>();
  const resultPaths = states.map((state) => resultPathFor(state.file, options.out, files.length, 'import-result', takenOutputs));

  // A ledger that cannot be opened stops here (a LedgerError: exit 2); one that fails once open stops the run below (exit 3).
  const ledger = await openLedger(options.ledgerPath, { logger, ...(options.claimLeaseMs ? { claimLeaseMs: options.claimLeaseMs } : {}), ...(options.ledgerOutageMs !== undefined ? { outageMs: options.ledgerOutageMs } : {}) });
  let lock: RunLock | undefined;
  let connection: Connection | undefined;
  let apiUnusable: StopReason | undefined;
  let interrupted = false;
  let run: LedgerRun | undefined;
  // The ledger's storage failed once open (a full disk, a damaged file): nothing more is sent, and the results are written for what was settled.
  let ledgerStop: LedgerStop | undefined;
  const noteLedgerFailure = (err: unknown): void => {
    const found = ledgerStopOf(err);
    if (!found) throw err;
    ledgerStop ??= found;
  };
  const written: WrittenResults = { outputs: [], outputErrors: [], archived: [], kept: [] };
  try {
    try {
      lock = await ledger.acquireRunLock({ command: 'import' });
      connection = await connectWithLedger(ledger, {
        connection: options.connection,
        useSandbox: options.useSandbox,
        ledgerPath: options.ledgerPath,
        sandboxStart: options.context.now,
        concurrency: options.concurrency,
        logger,
        connectionOverride: options.connectionOverride,
      });
      run = await ledger.startRun({ command: options.dryRun ? 'import --dry-run' : 'import', files: states.map((s) => ({ file: s.file, sha256: s.sheet.sha256, rows: s.sheet.rows.size, orders: s.sheet.orders.length })) });
      options.onRunStarted?.(run.runId);

      // What the ledger knows comes before verdicts that depend on when the check runs: look up every
      // order that may go out, and every order invalid only because its date has aged since.
      const known = await ledger.getMany(idsToLookUp(states));
      const judge = ledgerJudge(known);
      const candidates = candidatesToSend(states, known, logger);

      let facts: OnlineFacts | undefined;
      try {
        facts = await fetchOnlineFacts({
          client: connection.client,
          // Orders this tool sent are not judged on today's facts: nothing to look up for them.
          payloads: candidates.flatMap((c) => (judge.isSentAsIs(c.payload) ? [] : [c.payload])),
          maxAttempts: options.maxAttempts,
          concurrency: options.concurrency,
          logger,
        });
      } catch (err) {
        apiUnusable = apiUnusableOf(err) ?? undefined;
        if (!apiUnusable) throw err;
        // The cron log's line for a run that stops before sending (submitOrders logs its own stops).
        logger.warn({ reason: apiUnusable.kind, orders: candidates.length }, `not sending: ${apiUnusable.message}; the orders are left for the next run`);
      }
      // Runs at once on a shared ledger: an order another run sent since `known` was read is in the
      // API now, and in the ledger too (recorded before its POST): read again, it is ours, not someone
      // else's; sending then finds it held by that run or already accepted.
      const sentMeanwhile = facts ? [...facts.existingOrderIds].filter((id) => !known.has(id)) : [];
      if (sentMeanwhile.length > 0) for (const [id, record] of await ledger.getMany(sentMeanwhile)) known.set(id, record);
      const jobs = judgeOnline(candidates, { facts: apiUnusable ? undefined : facts, apiUnusable, dryRun: options.dryRun, known, judge: sentMeanwhile.length > 0 ? ledgerJudge(known) : judge });

      if (jobs.length > 0) {
        const stopped = await sendJobs(jobs, { ...options, client: connection.client, ledger, run });
        if (stopped?.kind === 'interrupted') interrupted = true;
        else if (stopped?.kind === 'ledger') ledgerStop ??= stopped;
        else if (stopped) apiUnusable = stopped;
      }
    } catch (err) {
      noteLedgerFailure(err);
    }
    if (ledgerStop) {
      const { failure } = ledgerStop;
      logger.error({ ledger: failure.path, code: failure.code }, `not sending: ${failure.message}`);
      markNotSentForLedger(states, failure.message);
    }

    const sentTo = connection ? [`Sent to ${connection.isSandbox ? 'the embedded sandbox' : redactUrl(connection.baseUrl)}${options.dryRun ? ' (dry run: nothing was sent)' : ''}.`] : [];
    const notes = [
      ...sentTo,
      `Checked as of ${options.context.now.toISOString()} (dates without an offset read in ${options.context.timezone}).`,
      ...(ledgerStop ? [`The run stopped early: ${ledgerStop.failure.message}`] : []),
      ...(apiUnusable ? [`The run stopped early: ${apiUnusable.message}.`] : []),
      ...(interrupted ? ['The run was interrupted: the orders marked "Not sent" go out on the next run of the same command.'] : []),
    ];
    await writeResults(states, resultPaths, notes, options, written);
    // A run the ledger failed under stays unfinished in its history, as a killed one does.
    if (run && !ledgerStop) {
      const finished = { summary: countByStatus(states.flatMap((s) => s.outcomes.map((o) => o.status))), resultFiles: written.outputs };
      await run.finish(finished).catch(noteLedgerFailure);
    }
  } finally {
    if (!options.connectionOverride) await connection?.close();
    await lock?.release().catch(noteLedgerFailure);
    await ledger.close().catch(noteLedgerFailure);
  }

  const orders = jsonOrdersOf(states);
  // Everything is read from the sheets now: what they kept on disk goes (a long-running web app runs many imports).
  for (const state of states) state.sheet.release?.();
  const summary = countByStatus(orders.map((o) => o.status));
  // An order already sent whose sheet now says something else: the change never reached the network.
  const contentsDiffer = states.reduce((n, state) => n + state.outcomes.filter((o) => o.contentsDiffer).length, 0);
  const hasProblems = (summary.invalid ?? 0) + (summary.rejected ?? 0) + (summary.failed ?? 0) + contentsDiffer > 0;
  const { outputs, outputErrors, archived, kept } = written;
  const ledgerFailure = ledgerStop && { ledger: ledgerStop.failure.path, message: ledgerStop.failure.message };
  return {
    report: {
      command: 'import',
      input: inputs,
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
    hasUnusableInput,
    hasProblems,
    ...(apiUnusable ? { apiUnusable } : {}),
    ...(ledgerFailure ? { ledgerFailure } : {}),
    ...(interrupted ? { interrupted } : {}),
    ...(run ? { runId: run.runId } : {}),
  };
}

/** Each file read and checked offline: what the report says of it, and the checked sheets. */
async function checkInputs(files: readonly string[], options: ImportOptions): Promise<{ inputs: JsonInput[]; states: FileState[]; hasUnusableInput: boolean }> {
  const inputs: JsonInput[] = [];
  const states: FileState[] = [];
  let hasUnusableInput = false;
  for (const file of files) {
    const checked = await checkFile(file, { context: options.context, sheet: options.sheet, logger: options.logger, progress: options.progress, ...(options.readSettings && { settings: options.readSettings }) });
    if (!checked.ok) {
      hasUnusableInput = true;
      inputs.push({ file, sha256: null, rows: 0, orders: 0, error: { code: checked.code, message: checked.message } });
      continue;
    }
    const { sheet } = checked;
    if (hasErrors(sheet.fileIssues)) hasUnusableInput = true;
    const notices = checked.notices.length > 0 ? { notices: [...checked.notices] } : {};
    inputs.push({ file, sha256: sheet.sha256, rows: sheet.rows.size, orders: sheet.orders.length, issues: toJsonIssues(sheet.fileIssues), ...notices, ...(checked.mapping && { mapping: checked.mapping }) });
    states.push({ file, sheet, outcomes: sheet.orders.map((o) => outcomeView(o.status === 'invalid' || hasErrors(o.issues) ? 'invalid' : 'valid', [...o.issues])) });
  }
  return { inputs, states, hasUnusableInput };
}

/**
 * Sends the jobs through the ledger and sets each one's outcome. Returns why sending stopped, when
 * that is the run's to report: interrupted, the ledger failed, or the API unusable (for "unavailable",
 * only when nothing at all was accepted: a run that sent some and left the rest says so per order).
 */
async function sendJobs(
  jobs: readonly Job[],
  options: ImportOptions & { client: Connection['client']; ledger: Ledger; run: LedgerRun },
): Promise<StopReason | undefined> {
  options.orderProgress?.start(jobs.length);
  let done = 0;
  // Every run passes the gate: a team cap stored in the ledger holds it whatever its own options, and may be set while it goes.
  const share = options.teamConcurrency;
  const onCap = createShareNotes({ share, isShared: options.ledger.backend === 'postgres', ledger: options.ledger.location, logger: options.logger });
  const gate = await options.ledger.openSendGate({ ...(share === undefined ? {} : { share }), onCap });
  const result = await submitOrders(jobs, {
    gate,
    client: options.client,
    ledger: options.ledger,
    run: options.run,
    concurrency: options.concurrency,
    maxAttempts: options.maxAttempts,
    logger: options.logger,
    backoff: options.backoff,
    ...(options.signal ? { signal: options.signal } : {}),
    onOutcome: (_job, outcome) => {
      done++;
      options.orderProgress?.tick(outcome.status);
      options.onOrderDone?.(done, jobs.length, outcome.status);
    },
  }).finally(() => gate.close());
  options.orderProgress?.stop();
  jobs.forEach((job, i) => {
    const outcome: SubmitOutcome = result.outcomes[i]!;
    job.state.outcomes[job.index] = outcomeView(
      outcome.status,
      [...job.issues, ...outcome.issues],
      { httpStatus: outcome.httpStatus, requestId: outcome.requestId, submittedAt: outcome.submittedAt },
      outcome.contentsDiffer === true,
    );
  });
  const accepted = result.outcomes.filter((o) => o.status === 'accepted' || o.status === 'already_submitted').length;
  if (result.stopped?.kind === 'interrupted') return result.stopped;
  if (result.stopped && (result.stopped.kind !== 'unavailable' || accepted === 0)) return result.stopped;
  return undefined;
}

function jsonOrdersOf(states: readonly FileState[]): JsonOrder[] {
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

