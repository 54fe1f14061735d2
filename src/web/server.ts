/**
 * `order-batch serve`: the web app for operations staff, alone on this computer or as a team's
 * service. It calls the same functions as the CLI (checkFile, writeResultFile, runImport,
 * runReconcile); what it adds is the door: accounts and sessions (kept in the ledger, so several
 * instances share them), upload, verdict, submission with live progress, history and reconciliation
 * pages, and the refusal of requests other web pages try to make on a user's behalf.
 */
import type { AddressInfo } from 'node:net';
import cookie from '@fastify/cookie';
import multipart from '@fastify/multipart';
import rateLimit from '@fastify/rate-limit';
import session from '@fastify/session';
import Fastify, { type FastifyInstance } from 'fastify';
import { osActor } from '../accounts/os-user.js';
import { connect, sandboxStatePathFor, type Connection } from '../connection/connect.js';
import { UsageError } from '../errors.js';
import { type Ledger, ledgerExists, openLedger } from '../ledger/index.js';
import { isLoopbackHost } from '../loopback-host.js';
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
import { registerHealthRoutes } from './routes/health-routes.js';
import { installLedgerOutageGate } from './ledger-outage.js';
import { observeInto } from '../metrics/registry.js';
import { registerApi } from './api/index.js';
import { registerTokenRoutes } from './routes/token-routes.js';
import { allowedHostsFor, isWildcardHost, machineAddresses, newSessionId, SESSION_ID_CHECK, sessionCookieName } from './security.js';
import { recordAudit, sendError, WEB_DEFAULTS, wantsJson, type AppServices, type WebAppOptions } from './services.js';
import { PERMISSIONS } from '../accounts/roles.js';
import type { TrustProxy } from '../options.js';
import { installSso } from './routes/sso-routes.js';

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
  /** The stop took longer than its grace: hands the running submission back to the queue before the process exits. */
  abandon(): Promise<void>;
}

/** How old the count of accounts may be before a request reads it again (one added while the app runs requires logins from then on). */
const ACCOUNTS_RECHECK_MS = 5_000;

export async function startWebApp(options: WebAppOptions): Promise<WebApp> {
  const { logger } = options;
  const host = options.host ?? WEB_DEFAULTS.host;
  const port = options.port ?? WEB_DEFAULTS.port;
  const clock = options.clock ?? (() => new Date());
  const trustProxy = options.trustProxy;
  // Decided once, from how the server listens: never by a later count of accounts.
  const mayServeAlone = isLoopbackHost(host) && !trustProxy;
  const { ledger, accounts, schemaVersion, sandbox } = await openServeLedger(options, host, mayServeAlone);
  const services = buildServices(options, ledger, sandbox, () => accounts.count > 0);
  const unwatchApi = observeInto(services.metrics);

  const app = Fastify({ logger: false, trustProxy: fastifyTrustProxy(trustProxy), bodyLimit: 1024 * 1024, forceCloseConnections: true });
  const routes: { method: string; url: string }[] = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) if (method !== 'HEAD') routes.push({ method, url: route.url });
  });
  // Filled in once the port is known; until then (never in practice) nothing is answered.
  const guard = { allowedHosts: new Set<string>(), isBehindProxy: Boolean(trustProxy) };
  try {
    installGuards(app, services, guard);
    installLedgerOutageGate(app, ledger);
    await installSessions(app, services, { options, port, clock, accounts, mayServeAlone });
    registerRoutes(app, services, sessionCookieName(port, Boolean(trustProxy)), schemaVersion);
    await registerApi(app, services);
    await app.listen({ port, host });
  } catch (error) {
    await app.close();
    await sandbox?.close();
    await ledger.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
      throw new UsageError(`The web app cannot listen on ${host}:${port} (${code}); choose another --port${code === 'EADDRNOTAVAIL' ? ' or --host' : ''}.`, { cause: error });
    }
    throw error;
  }
  const bound = (app.server.address() as AddressInfo).port;
  guard.allowedHosts = allowedHostsFor(host, bound, options.allowedHosts, undefined, Boolean(trustProxy));
  const urlOf = (name: string) => `http://${name.includes(':') ? `[${name}]` : name}:${bound}`;
  logger.info({ port: bound, host, workDir: services.workDir.root, ledger: redactUrl(options.ledgerPath), accounts: accounts.count }, 'web app listening');
  const stopHousekeeping = startHousekeeping(() =>
    tidyUp({
      files: services.files,
      ledger,
      retentionDays: options.retentionDays ?? WEB_DEFAULTS.retentionDays,
      sessionIdleMs: options.sessionIdleMs ?? WEB_DEFAULTS.sessionIdleMs,
      now: clock(),
      logger,
    }),
  );

  let closing: Promise<JobsStopped> | undefined;
  return {
    url: urlOf(isWildcardHost(host) ? '127.0.0.1' : host),
    listenUrl: urlOf(host),
    hasAccounts: accounts.count > 0,
    ...(sandbox ? { sandboxUrl: sandbox.baseUrl } : {}),
    routes,
    abandon: () => services.jobs.abandon(),
    close() {
      closing ??= (async () => {
        await stopHousekeeping();
        const [, stopped] = await Promise.all([app.close(), services.jobs.stop()]);
        unwatchApi();
        await services.aftermath.settled();
            await sandbox?.close();
        await ledger.close();
        return stopped;
      })();
      return closing;
    },
  };
}

/** The ledger opened, its accounts counted and the embedded sandbox connected, or the start refused with nothing left open. */
async function openServeLedger(options: WebAppOptions, host: string, mayServeAlone: boolean) {
  const { logger } = options;
  if (options.trustProxy && !options.allowedHosts?.length) {
    throw new UsageError('serve --trust-proxy needs the public name the proxy answers to, so that requests for any other name are refused: give --allowed-host <name> (e.g. --allowed-host orders.example.com).');
  }
  // Refused before the ledger is opened: a refused start leaves no empty ledger behind.
  if (!mayServeAlone && !ledgerExists(options.ledgerPath)) throw new UsageError(needsAccountsMessage(host, options));
  const ledger = await openLedger(options.ledgerPath, { logger, ...(options.clock ? { now: options.clock } : {}), ...(options.claimLeaseMs ? { claimLeaseMs: options.claimLeaseMs } : {}), ...(options.ledgerOutageMs !== undefined ? { outageMs: options.ledgerOutageMs } : {}) });
  try {
    const accounts = new AccountCount(ledger, options.clock ?? (() => new Date()), logger, (await ledger.users.list()).length);
    // The schema as opened (and upgraded) now: /readyz says when another version has moved it since.
    const { schemaVersion } = await ledger.describe();
    if (accounts.count === 0 && !mayServeAlone) throw new UsageError(needsAccountsMessage(host, options));
    // One embedded sandbox for every process of this folder: what the CLI sends, the pages see.
    const sandbox: Connection | undefined = options.useSandbox
      ? await connect({
          connection: options.connection,
          useSandbox: true,
          ...(options.now ? { sandboxStart: options.now } : {}),
          sandboxStatePath: options.sandboxStatePath ?? sandboxStatePathFor(options.ledgerPath),
          concurrency: options.concurrency,
          logger,
        })
      : undefined;
    return { ledger, accounts, schemaVersion, sandbox };
  } catch (error) {
    await ledger.close();
    throw error;
  }
}

/** The count of accounts, read again by a request when a few seconds old: an account added (or the last one removed) while the app runs counts from then on. */
class AccountCount {
  private readAt: number;
  private reading: Promise<void> | undefined;

  constructor(
    private readonly ledger: Ledger,
    private readonly clock: () => Date,
    private readonly logger: WebAppOptions['logger'],
    public count: number,
  ) {
    this.readAt = clock().getTime();
  }

  /** Whether there are accounts, the count read again first when it is old. */
  async hasAccounts(): Promise<boolean> {
    if (this.clock().getTime() - this.readAt >= ACCOUNTS_RECHECK_MS) {
      this.reading ??= this.ledger.users
        .list()
        .then(
          (users) => {
            this.count = users.length;
            this.readAt = this.clock().getTime();
          },
          (error: unknown) => this.logger.warn({ err: (error as Error).message }, 'could not read the accounts'),
        )
        .finally(() => (this.reading = undefined));
      await this.reading;
    }
    return this.count > 0;
  }
}

/** Sessions kept in the ledger, the login attempts counted there, the access check and the request bodies. */
async function installSessions(
  app: FastifyInstance,
  services: AppServices,
  at: { options: WebAppOptions; port: number; clock: () => Date; accounts: AccountCount; mayServeAlone: boolean },
): Promise<void> {
  const { options, port, clock, accounts, mayServeAlone } = at;
  const { ledger } = services;
  const isBehindProxy = Boolean(options.trustProxy);
  await app.register(cookie);
  await app.register(session, {
    secret: SESSION_ID_CHECK,
    idGenerator: newSessionId,
    cookieName: sessionCookieName(port, isBehindProxy),
    cookie: { path: '/', httpOnly: true, sameSite: 'strict', secure: isBehindProxy },
    store: createLedgerSessionStore(ledger.sessions, { idleMs: options.sessionIdleMs ?? WEB_DEFAULTS.sessionIdleMs, maxMs: options.sessionMaxMs ?? WEB_DEFAULTS.sessionMaxMs, clock }),
    saveUninitialized: false,
    rolling: false,
  });
  // Failed logins are counted in the ledger: every instance sharing it counts the same tries.
  await app.register(rateLimit, { global: false, store: ledgerRateLimitStore(ledger.attempts, clock) });
  installAccess(app, {
    hasAccounts: () => accounts.hasAccounts(),
    mayServeAlone,
    noAccountsMessage: noAccountsMessage(options),
    localName: osActor().name,
    wantsJson,
    refuse: (request, reply, status, title, message) => sendError(services, request, reply, status, title, message),
    onForbidden: (request, access) => recordAudit(services, request, { action: 'refused', ref: (request.params as { id?: string } | undefined)?.id ?? null, detail: `${request.method} ${request.routeOptions.url ?? request.url} needs the ${PERMISSIONS[access]} role; ${request.visitor?.name ?? 'the account'} is ${request.visitor?.role ?? 'not allowed'}` }),
  });
  await app.register(multipart, { limits: { fileSize: services.maxUploadBytes, files: 1, fields: 10, fieldSize: 4096, parts: 20 } });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 64 * 1024 }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(String(body))));
  });
}

/** The pages' routes (the HTTP API is registered on its own). */
function registerRoutes(app: FastifyInstance, services: AppServices, cookieName: string, schemaVersion: string): void {
  registerLoginRoutes(app, services, installSso(app, services, cookieName));
  registerUsersRoutes(app, services);
  registerTokenRoutes(app, services);
  registerUploadRoutes(app, services);
  registerMappingRoutes(app, services);
  registerJobRoutes(app, services);
  registerPageRoutes(app, services);
  registerReconcileRoutes(app, services);
  registerHealthRoutes(app, services, schemaVersion);
}

/** Fastify's trustProxy: a count of hops as a function (the nearest `hops` addresses are proxies), or the proxies' addresses. */
function fastifyTrustProxy(trust: TrustProxy | false | undefined): false | string[] | ((address: string, hop: number) => boolean) {
  if (!trust) return false;
  if ('hops' in trust) {
    const { hops } = trust;
    return (_address, hop) => hop < hops;
  }
  return trust.addresses;
}

function addAccountCommand(options: WebAppOptions): string {
  const ledger = redactUrl(options.ledgerPath);
  return `order-batch users add <name> --role admin${options.useSandbox ? ' --sandbox' : ''}${options.ledgerPath.includes('://') || options.useSandbox ? '' : ` --ledger ${ledger}`}`;
}

function needsAccountsMessage(host: string, options: WebAppOptions): string {
  const how = options.trustProxy ? `serve --trust-proxy lets everyone the proxy serves reach the web app` : `serve --host ${host} lets other computers reach the web app`;
  return `${how}, so it needs accounts, and the ledger ${redactUrl(options.ledgerPath)} has none. Add one first (the password is read from standard input): ${addAccountCommand(options)}`;
}

/** What every page of a server others can reach answers once its last account is gone. */
function noAccountsMessage(options: WebAppOptions): string {
  return `This web app can be reached from other computers, so it needs accounts, and none is left. Nothing is served until one is added on the server (the password is read from standard input): ${addAccountCommand(options)}`;
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
  // Behind a proxy, people open the public names it answers to; else this machine's addresses.
  const where = options.trustProxy
    ? (options.allowedHosts ?? []).map((name) => `https://${name}/`)
    : isWildcardHost(host)
      ? [...new Set(machineAddresses())].filter((a) => !isLoopbackHost(a)).map((a) => `http://${a.includes(':') ? `[${a}]` : a}:${port}/`)
      : [`${app.url}/`];
  options.print(`Open ${where.join(' or ')} in a browser to check and submit order sheets${options.useSandbox ? ' (orders go to the embedded sandbox)' : ''}. Ctrl-C stops the app.`);
  options.print(
    app.hasAccounts
      ? 'Accounts are required: people log in with the accounts of `order-batch users list`.'
      : 'No accounts are defined, so the web app serves this computer only, to whoever uses it, without logging in. To require logins: order-batch users add <name> --role admin',
  );
  return app;
}
