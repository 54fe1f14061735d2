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
import { CONFIRMATIONS_FOLDER, createReconciler } from './reconcile-runs.js';
import { reconcileAuditOf, reconcileJobRun } from './reconcile-jobs.js';
import { createSharedFiles, type SharedFiles } from './shared-files.js';
import { DEFAULTS } from '../options.js';
import type { AppServices, WebAppOptions } from './services.js';
import { WEB_DEFAULTS } from './services.js';
import { createUploadChecker } from './uploads.js';
import { CheckQueue, DEFAULT_CHECKS_AT_ONCE } from './check-queue.js';
import { heldOpen } from '../mapping/ledger-access.js';
import { createMappingStore, type MappingStore } from '../mapping/mapping-store.js';
import { loadReading, readSettingsFor } from './upload-reading.js';
import { openWorkDir, type WorkDir } from './work-dir.js';
import { createMetrics } from '../metrics/registry.js';
import { createRunAftermath, type RunAftermath } from './run-aftermath.js';

function countStates(jobs: readonly { state: string }[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const job of jobs) counts[job.state] = (counts[job.state] ?? 0) + 1;
  return counts;
}

/** What the services below are built from: one work folder, one clock, one run at a time. */
interface ServiceParts {
  options: WebAppOptions;
  /** The server's one ledger: every run, store and mapping goes through it. */
  ledger: Ledger;
  sandbox: Connection | undefined;
  workDir: WorkDir;
  wallClock: () => Date;
  /** One run at a time: imports and reconciliations share the ledger's run lock. */
  serialize: <T>(task: () => Promise<T>) => Promise<T>;
  /** The "now" date rules are judged as of. */
  checkNow: () => Promise<Date>;
  files: SharedFiles;
  mappings: MappingStore;
  aftermath: RunAftermath;
}

export function buildServices(options: WebAppOptions, ledger: Ledger, sandbox: Connection | undefined, hasAccounts: () => boolean): AppServices {
  const { logger } = options;
  // Beside the ledger by default (.order-batch/web, or .order-batch/sandbox/web): the sandbox's files never mix with real ones.
  const workDir = openWorkDir(options.workDir ?? join(localFolderOf(options.ledgerPath), 'web'));
  const wallClock = () => new Date();
  const limit = pLimit(1);
  const { baseUrl, clientId, clientSecret } = options.connection;
  const apiProblem = options.useSandbox || (baseUrl && clientId && clientSecret) ? undefined : `Checking works, but submitting needs an API. ${MISSING_CONNECTION_MESSAGE}`;
  const metrics = createMetrics({ countJobs: async () => countStates((await ledger.jobs.list(500)).filter((job) => job.kind === 'submit')) });
  const parts: ServiceParts = {
    options,
    ledger,
    sandbox,
    workDir,
    wallClock,
    serialize: (task) => limit(task),
    // Date rules are judged as of --now if given, else on the embedded sandbox's clock (which the page
    // moves on), else the wall clock: checked on another clock than the one the API judges by, an order
    // would pass that the API then rejects as too old, or fail as "in the future" that it accepts.
    checkNow: async () => options.now ?? (await sandbox?.sandboxNow?.()) ?? new Date(),
    files: createSharedFiles(ledger.files, workDir, logger),
    // Saved mappings are read and written through the server's one ledger, as everything else of the web app.
    mappings: createMappingStore(heldOpen(ledger)),
    aftermath: createRunAftermath({ metrics, ...(options.notify ? { notify: options.notify } : {}), ledger, logger, wallClock }),
  };
  const reconciler = createReconciler({ workDir, wallClock, files: parts.files, runReconcile: reconcileRunOf(parts) });

  return {
    options,
    maxUploadBytes: options.maxUploadBytes ?? WEB_DEFAULTS.maxUploadBytes,
    workDir,
    uploads: createUploadChecker({
      workDir,
      mappings: parts.mappings,
      context: options.context,
      checkNow: parts.checkNow,
      wallClock,
      logger,
      // The API's checks (products, stock) at check time, not only at submission, when there is an API to ask.
      ...(apiProblem ? {} : { online: onlineChecksOf(options, ledger, sandbox) }),
    }),
    mappings: parts.mappings,
    checks: options.checkQueue ?? new CheckQueue(options.checksAtOnce ?? DEFAULT_CHECKS_AT_ONCE),
    jobs: createJobRunner({
      jobs: ledger.jobs,
      files: parts.files,
      workDir,
      runImport: importRunOf(parts),
      serialize: parts.serialize,
      leaseMs: options.claimLeaseMs ?? DEFAULTS.claimLeaseSeconds * 1000,
      runOther: reconcileJobRun(reconciler, workDir, logger),
      // The stop's grace over: the running job's orders let go at once, for another instance to take.
      abandonRuns: () => ledger.abandonRuns(),
      wallClock,
      logger,
      onFinished: async (job, state, outcome) => {
        if (job.kind === 'reconcile') {
          await ledger.audit.record(reconcileAuditOf(job, state, outcome));
          return;
        }
        // The end of a submission, under who submitted it (the instance that ran it may be another).
        await ledger.audit.record({ actor: job.createdBy, via: 'web', address: null, action: state === 'cancelled' ? 'cancel' : 'import', fileName: job.fileName, fileSha256: job.fileSha256, counts: outcome.summary ?? null, ref: job.id, detail: `submission ${state}${job.starts > 1 ? ` after ${job.starts} starts` : ''}` });
      },
    }),
    reconciler,
    ledger,
    files: parts.files,
    hasAccounts,
    metrics,
    aftermath: parts.aftermath,
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
}

/** Where the upload checker asks the API about products and stock. */
function onlineChecksOf(options: WebAppOptions, ledger: Ledger, sandbox: Connection | undefined) {
  return {
    connection: options.connection,
    useSandbox: options.useSandbox,
    ledgerPath: options.ledgerPath,
    ledger,
    maxAttempts: options.maxAttempts,
    concurrency: options.concurrency,
    ...(sandbox ? { connectionOverride: sandbox } : {}),
  };
}

/** A submission's import. What is sent is what the page showed: the upload's profile and its corrected cells. */
function importRunOf(parts: ServiceParts): ImportRun {
  const { options, ledger, sandbox, workDir, mappings, aftermath } = parts;
  return async (job, outDir, onOrderDone, signal, onRunStarted) =>
    runImport({
      readSettings: readSettingsFor(loadReading(workDir, job.uploadId), await mappings.list()),
      files: [job.file],
      out: outDir,
      ...(job.sheet ? { sheet: job.sheet } : {}),
      context: { ...options.context, now: await parts.checkNow() },
      connection: options.connection,
      useSandbox: options.useSandbox,
      concurrency: options.concurrency,
      maxAttempts: options.maxAttempts,
      dryRun: false,
      ledgerPath: options.ledgerPath,
      ledger,
      ...(options.teamConcurrency ? { teamConcurrency: options.teamConcurrency } : {}),
      ...(options.claimLeaseMs ? { claimLeaseMs: options.claimLeaseMs } : {}),
      ...(options.ledgerOutageMs !== undefined ? { ledgerOutageMs: options.ledgerOutageMs } : {}),
      logger: options.logger,
      onOrderDone,
      onRunStarted,
      signal,
      ...(sandbox ? { connectionOverride: sandbox } : {}),
    }).then((result) => {
      if (!result.interrupted) aftermath.afterImport(outDir, result);
      return result;
    });
}

/** A reconciliation from the page, its workbook and confirmation files in `out`'s folder. */
function reconcileRunOf(parts: ServiceParts) {
  const { options, ledger, sandbox, aftermath } = parts;
  return async (out: string) => {
    // On the embedded sandbox, its clock is "now" (it moves on as the page asks); else --now if given,
    // else the API's clock, as for the CLI (the wall clock when the API does not tell its time).
    const sandboxNow = await sandbox?.sandboxNow?.();
    const result = await runReconcile({
      connection: options.connection,
      useSandbox: options.useSandbox,
      ledgerPath: options.ledgerPath,
      ledger,
      now: sandboxNow ?? (await parts.checkNow()),
      isNowPinned: sandboxNow !== undefined || options.now !== undefined,
      out,
      // Each marketplace's upload file beside the workbook, offered on the page (new packages only).
      confirmationsPath: join(dirname(out), CONFIRMATIONS_FOLDER),
      concurrency: options.concurrency,
      maxAttempts: options.maxAttempts,
      lateAfterDays: options.lateAfterDays,
      logger: options.logger,
      ...(sandbox ? { connectionOverride: sandbox } : {}),
    });
    // The web app's own work folder could not take the workbook (a full disk): the page says so.
    if (result.report.outputErrors?.length) {
      result.release();
      throw new UsageError(result.report.outputErrors.map((e) => e.message).join(' '));
    }
    aftermath.afterReconcile(result);
    return { result, asOf: result.asOf };
  };
}
