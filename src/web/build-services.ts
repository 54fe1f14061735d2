/**
 * What the routes share, built once per server: the stores, the job runner and the reconciler, each
 * calling the same command functions as the CLI (checkFile, runImport, runReconcile).
 */
import { dirname, join } from 'node:path';
import pLimit from 'p-limit';
import { endpointIdentity, MISSING_CONNECTION_MESSAGE, type Connection } from '../connection/connect.js';
import { runImport } from '../import/run-import.js';
import { runReconcile } from '../reconcile/run-reconcile.js';
import { UsageError } from '../errors.js';
import { type Ledger, localFolderOf } from '../ledger/index.js';
import { redactUrl } from '../redact.js';
import { csrfTokenOf } from './auth/access.js';
import { createJobRunner, type ImportRun } from './jobs.js';
import { createLedgerReader } from './ledger-reader.js';
import { CONFIRMATIONS_FOLDER, createReconciler } from './reconcile-runs.js';
import { createSharedFiles } from './shared-files.js';
import { DEFAULTS } from '../options.js';
import type { AppServices, WebAppOptions } from './services.js';
import { WEB_DEFAULTS } from './services.js';
import { createUploadChecker } from './uploads.js';
import { CheckQueue, DEFAULT_CHECKS_AT_ONCE } from './check-queue.js';
import { openedOnDemand } from '../mapping/ledger-access.js';
import { createMappingStore } from '../mapping/mapping-store.js';
import { loadReading, readSettingsFor } from './upload-reading.js';
import { openWorkDir } from './work-dir.js';
import { createMetrics } from '../metrics/registry.js';
import { createRunAftermath } from './run-aftermath.js';
import { createRunLedgers } from './run-ledgers.js';

function countStates(jobs: readonly { state: string }[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const job of jobs) counts[job.state] = (counts[job.state] ?? 0) + 1;
  return counts;
}

export function buildServices(options: WebAppOptions, ledger: Ledger, sandbox: Connection | undefined, hasAccounts: () => boolean): AppServices {
  const { logger } = options;
  // Beside the ledger by default (.order-batch/web, or .order-batch/sandbox/web): the sandbox's files never mix with real ones.
  const workDir = openWorkDir(options.workDir ?? join(localFolderOf(options.ledgerPath), 'web'));
  const wallClock = () => new Date();
  // One run at a time: imports and reconciliations share the ledger's run lock.
  const serialize = pLimit(1);
  const { baseUrl, clientId, clientSecret } = options.connection;
  const apiProblem = options.useSandbox || (baseUrl && clientId && clientSecret) ? undefined : `Checking works, but submitting needs an API. ${MISSING_CONNECTION_MESSAGE}`;
  // Date rules are judged as of --now if given, else on the embedded sandbox's clock (which the page
  // moves on), else the wall clock: checked on another clock than the one the API judges by, an order
  // would pass that the API then rejects as too old, or fail as "in the future" that it accepts.
  const checkNow = async () => options.now ?? (await sandbox?.sandboxNow?.()) ?? new Date();

  const files = createSharedFiles(ledger.files, workDir, logger);
  const ledgerReader = createLedgerReader(options.ledgerPath);
  // Saved mappings are read through the server's one reading connection, and written (rarely) on their own.
  const mappings = createMappingStore({ read: (read) => ledgerReader.read(read), write: openedOnDemand(options.ledgerPath).write });
  const metrics = createMetrics({ countJobs: async () => countStates(await ledger.jobs.list(500)) });
  const aftermath = createRunAftermath({ metrics, ...(options.notify ? { notify: options.notify } : {}), ledger, logger, wallClock });
  // What is sent is what the page showed: the upload's profile and its corrected cells.
  const runLedgers = createRunLedgers(logger);
  const runLedgerOptions = {
    ...(options.claimLeaseMs ? { claimLeaseMs: options.claimLeaseMs } : {}),
    ...(options.ledgerOutageMs !== undefined ? { outageMs: options.ledgerOutageMs } : {}),
  };
  const importJob: ImportRun = async (job, outDir, onOrderDone, signal, onRunStarted) =>
    runLedgers.use(options.ledgerPath, runLedgerOptions, async (runLedger) => runImport({
      ledger: runLedger,
      readSettings: readSettingsFor(loadReading(workDir, job.uploadId), await mappings.list()),
      files: [job.file],
      out: outDir,
      ...(job.sheet ? { sheet: job.sheet } : {}),
      context: { ...options.context, now: await checkNow() },
      connection: options.connection,
      useSandbox: options.useSandbox,
      concurrency: options.concurrency,
      maxAttempts: options.maxAttempts,
      dryRun: false,
      ledgerPath: options.ledgerPath,
      ...(options.teamConcurrency ? { teamConcurrency: options.teamConcurrency } : {}),
      ...(options.claimLeaseMs ? { claimLeaseMs: options.claimLeaseMs } : {}),
      ...(options.ledgerOutageMs !== undefined ? { ledgerOutageMs: options.ledgerOutageMs } : {}),
      logger,
      onOrderDone,
      onRunStarted,
      signal,
      ...(sandbox ? { connectionOverride: sandbox } : {}),
    }).then((result) => {
      if (!result.interrupted) aftermath.afterImport(outDir, result);
      return result;
    }));

  const services: AppServices = {
    options,
    maxUploadBytes: options.maxUploadBytes ?? WEB_DEFAULTS.maxUploadBytes,
    workDir,
    uploads: createUploadChecker({
      workDir,
      mappings,
      context: options.context,
      checkNow,
      wallClock,
      logger,
      // The API's checks (products, stock) at check time, not only at submission, when there is an API to ask.
      ...(apiProblem
        ? {}
        : {
            online: {
              connection: options.connection,
              useSandbox: options.useSandbox,
              ledgerPath: options.ledgerPath,
              maxAttempts: options.maxAttempts,
              concurrency: options.concurrency,
              ...(sandbox ? { connectionOverride: sandbox } : {}),
            },
          }),
    }),
    mappings,
    checks: options.checkQueue ?? new CheckQueue(options.checksAtOnce ?? DEFAULT_CHECKS_AT_ONCE),
    jobs: createJobRunner({
      jobs: ledger.jobs,
      files,
      workDir,
      runImport: importJob,
      abandonRuns: () => runLedgers.abandonAll(),
      serialize: (task) => serialize(task),
      leaseMs: options.claimLeaseMs ?? DEFAULTS.claimLeaseSeconds * 1000,
      wallClock,
      logger,
      onFinished: async (job, state, outcome) => {
        // The end of a submission, under who submitted it (the instance that ran it may be another).
        await ledger.audit.record({ actor: job.createdBy, via: 'web', address: null, action: state === 'cancelled' ? 'cancel' : 'import', fileName: job.fileName, fileSha256: job.fileSha256, counts: outcome.summary ?? null, ref: job.id, detail: `submission ${state}${job.starts > 1 ? ` after ${job.starts} starts` : ''}` });
      },
    }),
    reconciler: createReconciler({
      workDir,
      serialize: (task) => serialize(task),
      wallClock,
      files,
      runReconcile: async (out) => {
        // On the embedded sandbox, its clock is "now" (it moves on as the page asks); else --now if given,
        // else the API's clock, as for the CLI (the wall clock when the API does not tell its time).
        const sandboxNow = await sandbox?.sandboxNow?.();
        const result = await runReconcile({
          connection: options.connection,
          useSandbox: options.useSandbox,
          ledgerPath: options.ledgerPath,
          now: sandboxNow ?? (await checkNow()),
          isNowPinned: sandboxNow !== undefined || options.now !== undefined,
          out,
          // Each marketplace's upload file beside the workbook, offered on the page (new packages only).
          confirmationsPath: join(dirname(out), CONFIRMATIONS_FOLDER),
          concurrency: options.concurrency,
          maxAttempts: options.maxAttempts,
          lateAfterDays: options.lateAfterDays,
          logger,
          // Before the first upload there is no ledger: nothing sent yet, an empty reconciliation.
          isLedgerRequired: false,
          ...(options.ledgerOutageMs !== undefined ? { ledgerOutageMs: options.ledgerOutageMs } : {}),
          ...(sandbox ? { connectionOverride: sandbox } : {}),
        });
        // The web app's own work folder could not take the workbook (a full disk): the page says so.
        if (result.report.outputErrors?.length) {
          result.release();
          throw new UsageError(result.report.outputErrors.map((e) => e.message).join(' '));
        }
        aftermath.afterReconcile(result);
        return { result, asOf: result.asOf };
      },
    }),
    ledger,
    files,
    hasAccounts,
    ledgerReader,
    metrics,
    aftermath,
    ...(sandbox ? { sandbox } : {}),
    ...(apiProblem ? { apiProblem } : {}),
    endpoint: sandbox ? endpointIdentity(sandbox) : redactUrl((baseUrl ?? '').replace(/\/+$/, '')),
    logger,
    pageContext: (request) => ({
      // A session (and its token) only for someone who may use the pages: the login page makes none.
      csrf: request.visitor ? csrfTokenOf(request) : '',
      isSandbox: Boolean(sandbox),
      apiLabel: sandbox ? 'the embedded sandbox' : baseUrl ? redactUrl(baseUrl) : 'no API yet (not configured)',
      visitor: request.visitor,
    }),
  };
  return services;
}
