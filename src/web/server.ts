/**
 * `order-batch serve`: the local web app for operations staff. It calls the same functions as the
 * CLI (checkFile, writeResultFile, importFiles, reconcileCommand); what it adds is the door:
 * upload, verdict, submission with live progress, history and reconciliation pages, served to
 * this computer only and refusing requests that other web pages try to make on the user's behalf.
 */
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import multipart from '@fastify/multipart';
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import pLimit from 'p-limit';
import { connect, endpointIdentity, MISSING_CONNECTION_MESSAGE, sandboxStatePathFor, type Connection } from '../commands/connect.js';
import { importFiles } from '../commands/import.js';
import { reconcileCommand } from '../commands/reconcile.js';
import { UsageError } from '../errors.js';
import { redactUrl } from '../redact.js';
import { createJobRunner, type ImportRun, type JobsStopped } from './jobs.js';
import { createReconciler } from './reconcile-runs.js';
import { registerJobRoutes } from './routes/job-routes.js';
import { registerPageRoutes } from './routes/page-routes.js';
import { registerReconcileRoutes } from './routes/reconcile-routes.js';
import { registerUploadRoutes } from './routes/upload-routes.js';
import { registerMappingRoutes } from './routes/mapping-routes.js';
import { allowedHostsFor, checkOrigin, createCsrf, isAllowedHost, newSessionId, readCookie, SECURITY_HEADERS, SESSION_ID_PATTERN, sessionCookie, sessionCookieName } from './security.js';
import { drainUnread, sendError, WEB_DEFAULTS, type AppServices, type WebAppOptions } from './services.js';
import { localFolderOf } from '../ledger/location.js';
import { createLedgerReader } from './ledger-reader.js';
import { CheckQueue, DEFAULT_CHECKS_AT_ONCE } from './check-queue.js';
import { createUploadChecker } from './uploads.js';
import { openedOnDemand } from '../mapping/ledger-access.js';
import { createMappingStore } from '../mapping/mapping-store.js';
import { loadReading, readSettingsFor } from './upload-reading.js';
import { formatBytes } from './pages/upload-page.js';
import { openWorkDir } from './work-dir.js';

export type { WebAppOptions } from './services.js';

export interface WebApp {
  /** http://127.0.0.1:PORT (no trailing slash). */
  url: string;
  /** The embedded sandbox's address (with --sandbox), e.g. for its /sandbox/stats. */
  sandboxUrl?: string;
  /**
   * Stops as Ctrl-C stops the CLI's import: takes no more requests, sends no more orders (those in
   * flight get their answers and the submission's result is written), never starts a queued
   * submission; then stops the embedded sandbox. Says what it stopped. Safe to call twice.
   */
  close(): Promise<JobsStopped>;
}

export async function startWebApp(options: WebAppOptions): Promise<WebApp> {
  const { logger } = options;
  const host = options.host ?? WEB_DEFAULTS.host;
  const maxUploadBytes = options.maxUploadBytes ?? WEB_DEFAULTS.maxUploadBytes;
  // Beside the ledger by default (.order-batch/web, or .order-batch/sandbox/web): the sandbox's files never mix with real ones.
  const workDir = openWorkDir(options.workDir ?? join(localFolderOf(options.ledgerPath), 'web'));
  const wallClock = () => new Date();
  // One run at a time: imports and reconciliations share the ledger's run lock.
  const serialize = pLimit(1);
  const { baseUrl, clientId, clientSecret } = options.connection;
  const apiProblem = options.useSandbox || (baseUrl && clientId && clientSecret) ? undefined : `Checking works, but submitting needs an API. ${MISSING_CONNECTION_MESSAGE}`;

  // One embedded sandbox for the server's lifetime: every import and reconciliation sees one world.
  const sandbox: Connection | undefined = options.useSandbox
    ? await connect({
        connection: options.connection,
        useSandbox: true,
        ...(options.now ? { sandboxStart: options.now } : {}),
        sandboxStatePath: sandboxStatePathFor(options.ledgerPath),
        concurrency: options.concurrency,
        logger,
      })
    : undefined;
  // Date rules are judged as of --now if given, else on the embedded sandbox's clock (which the page
  // moves on), else the wall clock: checked on another clock than the one the API judges by, an order
  // would pass that the API then rejects as too old, or fail as "in the future" that it accepts.
  const checkNow = () => options.now ?? sandbox?.sandboxNow?.() ?? new Date();

  const ledgerReader = createLedgerReader(options.ledgerPath);
  // Saved mappings are read through the server's one reading connection, and written (rarely) on their own.
  const mappings = createMappingStore({ read: (read) => ledgerReader.read(read), write: openedOnDemand(options.ledgerPath).write });
  // What is sent is what the page showed: the upload's profile and its corrected cells.
  const runImport: ImportRun = async (job, outDir, onOrderDone, signal) =>
    importFiles({
      readSettings: readSettingsFor(loadReading(workDir, job.uploadId), await mappings.list()),
      files: [job.file],
      out: outDir,
      ...(job.sheet ? { sheet: job.sheet } : {}),
      context: { ...options.context, now: checkNow() },
      connection: options.connection,
      useSandbox: options.useSandbox,
      concurrency: options.concurrency,
      maxAttempts: options.maxAttempts,
      dryRun: false,
      ledgerPath: options.ledgerPath,
      ...(options.teamConcurrency ? { teamConcurrency: options.teamConcurrency } : {}),
      ...(options.claimLeaseMs ? { claimLeaseMs: options.claimLeaseMs } : {}),
      logger,
      onOrderDone,
      signal,
      ...(sandbox ? { connectionOverride: sandbox } : {}),
    });

  const services: AppServices = {
    options,
    maxUploadBytes,
    workDir,
    uploads: createUploadChecker({ workDir, mappings, context: options.context, checkNow, wallClock, logger }),
    checks: options.checkQueue ?? new CheckQueue(options.checksAtOnce ?? DEFAULT_CHECKS_AT_ONCE),
    mappings,
    jobs: createJobRunner({ workDir, ledgerPath: options.ledgerPath, runImport, serialize: (task) => serialize(task), wallClock, logger }),
    reconciler: createReconciler({
      workDir,
      serialize: (task) => serialize(task),
      wallClock,
      runReconcile: async (out) => {
        // On the embedded sandbox, its clock is "now" (it moves on as the page asks); else --now if given,
        // else the API's clock, as for the CLI (the wall clock when the API does not tell its time).
        const sandboxNow = sandbox?.sandboxNow?.();
        const result = await reconcileCommand({
          connection: options.connection,
          useSandbox: options.useSandbox,
          ledgerPath: options.ledgerPath,
          now: sandboxNow ?? checkNow(),
          isNowPinned: sandboxNow !== undefined || options.now !== undefined,
          out,
          concurrency: options.concurrency,
          maxAttempts: options.maxAttempts,
          lateAfterDays: options.lateAfterDays,
          logger,
          // Before the first upload there is no ledger: nothing sent yet, an empty reconciliation.
          isLedgerRequired: false,
          ...(sandbox ? { connectionOverride: sandbox } : {}),
        });
        // The web app's own work folder could not take the workbook (a full disk): the page says so.
        if (result.report.outputErrors?.length) throw new UsageError(result.report.outputErrors.map((e) => e.message).join(' '));
        return { result, asOf: result.asOf };
      },
    }),
    csrf: createCsrf(),
    ledgerReader,
    ...(sandbox ? { sandbox } : {}),
    ...(apiProblem ? { apiProblem } : {}),
    endpoint: sandbox ? endpointIdentity(sandbox) : redactUrl((baseUrl ?? '').replace(/\/+$/, '')),
    logger,
    pageContext: (request) => ({
      csrf: services.csrf.tokenFor(request.sessionId),
      isSandbox: Boolean(sandbox),
      apiLabel: sandbox ? 'the embedded sandbox' : baseUrl ? redactUrl(baseUrl) : 'no API yet (not configured)',
    }),
  };

  const app = Fastify({ logger: false, trustProxy: false, bodyLimit: 1024 * 1024, forceCloseConnections: true });
  const guard = { allowedHosts: new Set<string>(), cookieName: '' };
  try {
    await app.register(multipart, { limits: { fileSize: maxUploadBytes, files: 1, fields: 10, fieldSize: 4096, parts: 20 } });
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 64 * 1024 }, (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(String(body))));
    });
    installGuards(app, services, guard);
    registerUploadRoutes(app, services);
    registerMappingRoutes(app, services);
    registerJobRoutes(app, services);
    registerPageRoutes(app, services);
    registerReconcileRoutes(app, services);
    await app.listen({ port: options.port ?? WEB_DEFAULTS.port, host });
  } catch (error) {
    await app.close();
    await services.ledgerReader.close();
    await sandbox?.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
      throw new UsageError(`The web app cannot listen on ${host}:${options.port ?? WEB_DEFAULTS.port} (${code}); choose another --port.`, { cause: error });
    }
    throw error;
  }
  const port = (app.server.address() as AddressInfo).port;
  guard.allowedHosts = allowedHostsFor(host, port, options.allowedHosts);
  guard.cookieName = sessionCookieName(port);
  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  logger.info({ port, host, workDir: workDir.root, ledger: redactUrl(options.ledgerPath) }, 'web app listening');

  let closing: Promise<JobsStopped> | undefined;
  return {
    url: `http://${urlHost}:${port}`,
    ...(sandbox ? { sandboxUrl: sandbox.baseUrl } : {}),
    close() {
      closing ??= (async () => {
        const [, stopped] = await Promise.all([app.close(), services.jobs.stop()]);
        await services.ledgerReader.close();
        await sandbox?.close();
        return stopped;
      })();
      return closing;
    },
  };
}

/** Host check, security headers, the session cookie, and the origin check for anything that changes state. */
function installGuards(app: FastifyInstance, services: AppServices, guard: { allowedHosts: Set<string>; cookieName: string }): void {
  app.addHook('onRequest', async (request, reply) => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) reply.header(name, value);
    const host = request.headers.host;
    if (!isAllowedHost(host, guard.allowedHosts)) {
      // A DNS-rebinding page reaches us under its own name: answer it nothing.
      return reply.code(403).header('connection', 'close').type('text/plain; charset=utf-8').send('This address is not allowed. Open the web app at http://127.0.0.1 with its port.');
    }
    let sessionId = readCookie(request.headers.cookie, guard.cookieName);
    if (!sessionId || !SESSION_ID_PATTERN.test(sessionId)) {
      sessionId = newSessionId();
      reply.header('set-cookie', sessionCookie(guard.cookieName, sessionId));
    }
    request.sessionId = sessionId;
    if (request.method === 'GET' || request.method === 'HEAD') return;
    const secFetchSite = request.headers['sec-fetch-site'];
    const verdict = checkOrigin({ origin: request.headers.origin, secFetchSite: typeof secFetchSite === 'string' ? secFetchSite : undefined, host: host! });
    if (!verdict.ok) {
      services.logger.warn({ reason: verdict.reason, url: request.url }, 'cross-site request refused');
      drainUnread(request);
      return sendError(services, request, reply, 403, 'Refused', `This request came from another web site, so it was refused (${verdict.reason}). Use the order-batch pages themselves.`);
    }
  });
  app.decorateRequest('sessionId', '');

  app.setNotFoundHandler((request, reply) =>
    sendError(services, request, reply, 404, 'Not found', 'There is nothing at this address. Start again from the start page.'),
  );
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = error.statusCode ?? 500;
    // The multipart reader's limits on the count of parts say the form was not the page's, not that a file was too large.
    if (error.code === 'FST_FILES_LIMIT' || error.code === 'FST_PARTS_LIMIT' || error.code === 'FST_FIELDS_LIMIT') {
      drainUnread(request);
      return sendError(services, request, reply, 400, 'Upload not understood', 'Upload one CSV or XLSX file at a time, from the upload page.');
    }
    if (status === 413 || error.code === 'FST_REQ_FILE_TOO_LARGE') {
      drainUnread(request);
      return sendError(services, request, reply, 413, 'File too large', `Uploads are limited to one file of at most ${formatBytes(services.maxUploadBytes)}.`);
    }
    if (status >= 400 && status < 500) return sendError(services, request, reply, status, 'Request not understood', 'The browser sent something this page cannot read. Go back and try again.');
    services.logger.error({ err: error, url: request.url }, 'web request failed');
    return sendError(services, request, reply, 500, 'Something went wrong', 'order-batch hit an internal error; the server log has the details. Nothing was sent twice: the ledger keeps every order\'s state.');
  });
}

/** `order-batch serve`: starts the app and prints `listening http://127.0.0.1:PORT` first, as the sandbox does. */
export async function runServe(options: WebAppOptions & { print: (line: string) => void }): Promise<WebApp> {
  const app = await startWebApp(options);
  options.print(`listening ${app.url}`);
  options.print(`Open ${app.url}/ in a browser to check and submit order sheets${options.useSandbox ? ' (orders go to the embedded sandbox)' : ''}. Ctrl-C stops the app.`);
  return app;
}
