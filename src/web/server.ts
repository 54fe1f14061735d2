/**
 * `order-batch serve`: the web app for operations staff, alone on this computer or as a team's
 * service. It calls the same functions as the CLI (checkFile, writeResultFile, importFiles,
 * reconcileCommand); what it adds is the door: accounts and sessions (kept in the ledger, so several
 * instances share them), upload, verdict, submission with live progress, history and reconciliation
 * pages, and the refusal of requests other web pages try to make on a user's behalf.
 */
import type { AddressInfo } from 'node:net';
import cookie from '@fastify/cookie';
import multipart from '@fastify/multipart';
import rateLimit from '@fastify/rate-limit';
import session from '@fastify/session';
import Fastify from 'fastify';
import { osActor } from '../accounts/os-user.js';
import { connect, sandboxStatePathFor, type Connection } from '../commands/connect.js';
import { UsageError } from '../errors.js';
import { openLedger } from '../ledger/index.js';
import type { Ledger } from '../ledger/types.js';
import { redactUrl } from '../redact.js';
import { installAccess } from './auth/access.js';
import { ledgerRateLimitStore } from './auth/attempt-store.js';
import { createLedgerSessionStore } from './auth/session-store.js';
import { buildServices } from './build-services.js';
import { installGuards } from './guards.js';
import { startHousekeeping, tidyUp } from './housekeeping.js';
import type { JobsStopped } from './jobs.js';
import { registerJobRoutes } from './routes/job-routes.js';
import { registerLoginRoutes } from './routes/login-routes.js';
import { registerMappingRoutes } from './routes/mapping-routes.js';
import { registerPageRoutes } from './routes/page-routes.js';
import { registerReconcileRoutes } from './routes/reconcile-routes.js';
import { registerUploadRoutes } from './routes/upload-routes.js';
import { registerUsersRoutes } from './routes/users-routes.js';
import { allowedHostsFor, isLoopbackHost, isWildcardHost, machineAddresses, newSessionId, SESSION_ID_CHECK, sessionCookieName } from './security.js';
import { sendError, WEB_DEFAULTS, wantsJson, type WebAppOptions } from './services.js';

export type { WebAppOptions } from './services.js';

export interface WebApp {
  /** Where to open it on this computer: http://127.0.0.1:PORT (no trailing slash). */
  url: string;
  /** The address it listens on, as bound (http://0.0.0.0:PORT when it listens on every interface). */
  listenUrl: string;
  /** Without accounts, the app serves this computer only, to whoever uses it. */
  hasAccounts: boolean;
  /** The embedded sandbox's address (with --sandbox), e.g. for its /sandbox/stats. */
  sandboxUrl?: string;
  /** Every route the app serves (method and path), as fastify registered them. */
  routes: readonly { method: string; url: string }[];
  /**
   * Stops as Ctrl-C stops the CLI's import: takes no more requests, sends no more orders (those in
   * flight get their answers), gives its submissions back to the ledger's queue for the next start
   * or another instance; then stops the embedded sandbox. Says what it stopped. Safe to call twice.
   */
  close(): Promise<JobsStopped>;
}

/** How often an instance looks again whether accounts exist (one added while it runs requires logins from then on). */
const ACCOUNTS_RECHECK_MS = 5_000;

export async function startWebApp(options: WebAppOptions): Promise<WebApp> {
  const { logger } = options;
  const host = options.host ?? WEB_DEFAULTS.host;
  const port = options.port ?? WEB_DEFAULTS.port;
  const ledger = await openLedger(options.ledgerPath, { logger, ...(options.clock ? { now: options.clock } : {}), ...(options.claimLeaseMs ? { claimLeaseMs: options.claimLeaseMs } : {}) });
  let accounts: number;
  let sandbox: Connection | undefined;
  try {
    accounts = (await ledger.users.list()).length;
    if (accounts === 0 && !isLoopbackHost(host)) throw new UsageError(needsAccountsMessage(host, options));
    // One embedded sandbox for every process of this folder: what the CLI sends, the pages see.
    sandbox = options.useSandbox
      ? await connect({
          connection: options.connection,
          useSandbox: true,
          ...(options.now ? { sandboxStart: options.now } : {}),
          sandboxStatePath: options.sandboxStatePath ?? sandboxStatePathFor(options.ledgerPath),
          concurrency: options.concurrency,
          logger,
        })
      : undefined;
  } catch (error) {
    await ledger.close();
    throw error;
  }
  const accountsWatch = setInterval(() => {
    ledger.users.list().then((users) => (accounts = users.length), (error: unknown) => logger.warn({ err: (error as Error).message }, 'could not read the accounts'));
  }, ACCOUNTS_RECHECK_MS);
  accountsWatch.unref();
  const services = buildServices(options, ledger, sandbox, () => accounts > 0);

  const app = Fastify({ logger: false, trustProxy: options.trustProxy ?? false, bodyLimit: 1024 * 1024, forceCloseConnections: true });
  const routes: { method: string; url: string }[] = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) if (method !== 'HEAD') routes.push({ method, url: route.url });
  });
  const guard = { allowedHosts: options.trustProxy ? null : new Set<string>() };
  try {
    installGuards(app, services, guard);
    await app.register(cookie);
    await app.register(session, {
      secret: SESSION_ID_CHECK,
      idGenerator: newSessionId,
      cookieName: sessionCookieName(port, options.trustProxy),
      cookie: { path: '/', httpOnly: true, sameSite: 'strict', secure: options.trustProxy ?? false },
      store: createLedgerSessionStore(ledger.sessions, options.sessionIdleMs ?? WEB_DEFAULTS.sessionIdleMs),
      saveUninitialized: false,
      rolling: false,
    });
    // Failed logins are counted in the ledger: every instance sharing it counts the same tries.
    await app.register(rateLimit, { global: false, store: ledgerRateLimitStore(ledger.attempts, options.clock ?? (() => new Date())) });
    installAccess(app, {
      hasAccounts: services.hasAccounts,
      localName: osActor().name,
      wantsJson,
      refuse: (request, reply, status, title, message) => sendError(services, request, reply, status, title, message),
    });
    await app.register(multipart, { limits: { fileSize: services.maxUploadBytes, files: 1, fields: 10, fieldSize: 4096, parts: 20 } });
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 64 * 1024 }, (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(String(body))));
    });
    registerLoginRoutes(app, services);
    registerUsersRoutes(app, services);
    registerUploadRoutes(app, services);
    registerMappingRoutes(app, services);
    registerJobRoutes(app, services);
    registerPageRoutes(app, services);
    registerReconcileRoutes(app, services);
    await app.listen({ port, host });
  } catch (error) {
    clearInterval(accountsWatch);
    await app.close();
    await services.ledgerReader.close();
    await sandbox?.close();
    await ledger.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
      throw new UsageError(`The web app cannot listen on ${host}:${port} (${code}); choose another --port${code === 'EADDRNOTAVAIL' ? ' or --host' : ''}.`, { cause: error });
    }
    throw error;
  }
  const bound = (app.server.address() as AddressInfo).port;
  if (guard.allowedHosts) guard.allowedHosts = allowedHostsFor(host, bound, options.allowedHosts);
  const urlOf = (name: string) => `http://${name.includes(':') ? `[${name}]` : name}:${bound}`;
  logger.info({ port: bound, host, workDir: services.workDir.root, ledger: redactUrl(options.ledgerPath), accounts }, 'web app listening');
  const stopHousekeeping = startHousekeeping(() =>
    tidyUp({
      files: services.files,
      ledger,
      retentionDays: options.retentionDays ?? WEB_DEFAULTS.retentionDays,
      sessionIdleMs: options.sessionIdleMs ?? WEB_DEFAULTS.sessionIdleMs,
      now: (options.clock ?? (() => new Date()))(),
      logger,
    }),
  );

  let closing: Promise<JobsStopped> | undefined;
  return {
    url: urlOf(isWildcardHost(host) ? '127.0.0.1' : host),
    listenUrl: urlOf(host),
    hasAccounts: accounts > 0,
    ...(sandbox ? { sandboxUrl: sandbox.baseUrl } : {}),
    routes,
    close() {
      closing ??= (async () => {
        clearInterval(accountsWatch);
        await stopHousekeeping();
        const [, stopped] = await Promise.all([app.close(), services.jobs.stop()]);
        await services.ledgerReader.close();
        await sandbox?.close();
        await ledger.close();
        return stopped;
      })();
      return closing;
    },
  };
}

function needsAccountsMessage(host: string, options: WebAppOptions): string {
  const ledger = redactUrl(options.ledgerPath);
  return (
    `serve --host ${host} lets other computers reach the web app, so it needs accounts, and the ledger ${ledger} has none. ` +
    `Add one first (the password is read from standard input): order-batch users add <name> --role admin${options.useSandbox ? ' --sandbox' : ''}` +
    (options.ledgerPath.includes('://') || options.useSandbox ? '' : ` --ledger ${ledger}`)
  );
}

/**
 * `order-batch serve`: starts the app and prints `listening http://HOST:PORT` first, as the sandbox
 * does (the address it really listens on), then where to open it and whether logins are required.
 */
export async function runServe(options: WebAppOptions & { print: (line: string) => void }): Promise<WebApp> {
  const app = await startWebApp(options);
  const host = options.host ?? WEB_DEFAULTS.host;
  options.print(`listening ${app.listenUrl}`);
  const port = new URL(app.url).port;
  const where = isWildcardHost(host) ? [...new Set(machineAddresses())].filter((a) => !isLoopbackHost(a)).map((a) => `http://${a.includes(':') ? `[${a}]` : a}:${port}/`) : [`${app.url}/`];
  options.print(`Open ${where.join(' or ')} in a browser to check and submit order sheets${options.useSandbox ? ' (orders go to the embedded sandbox)' : ''}. Ctrl-C stops the app.`);
  options.print(
    app.hasAccounts
      ? 'Accounts are required: people log in with the accounts of `order-batch users list`.'
      : 'No accounts are defined, so the web app serves this computer only, to whoever uses it, without logging in. To require logins: order-batch users add <name> --role admin',
  );
  return app;
}
