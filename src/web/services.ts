/** What the routes share: the options, the stores, the security helpers, and how a page learns its context. */
import type { Metrics } from '../metrics/registry.js';
import type { RunAftermath } from './run-aftermath.js';
import type { NotifySettings } from '../notify/notify-run.js';
import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Connection } from '../connection/connect.js';
import type { AuditEvent, Ledger } from '../ledger/index.js';
import type { Logger } from '../log.js';
import type { ConnectionSettings, TrustProxy } from '../options.js';
import type { CheckContext } from '../orders/types.js';
import type { SafeHtml } from './html.js';
import type { JobRunner } from './jobs.js';
import { renderErrorPage } from './pages/error-page.js';
import type { PageContext } from './pages/layout.js';
import type { Reconciler } from './reconcile-runs.js';
import type { SharedFiles } from './shared-files.js';
import { csrfTokenOf } from './auth/access.js';
import type { CheckQueue } from './check-queue.js';
import type { UploadChecker } from './uploads.js';
import type { MappingStore } from '../mapping/mapping-store.js';
import type { WorkDir } from './work-dir.js';
import type { SsoSettings } from '../sso/sso-settings.js';

export interface WebAppOptions {
  /** Default 8080; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Further Host header names to answer to (e.g. a machine name when bound to the LAN). */
  allowedHosts?: readonly string[];
  useSandbox: boolean;
  connection: ConnectionSettings;
  ledgerPath: string;
  /** Each import's share of the team's POSTs in flight (--team-concurrency), within the cap the ledger holds. */
  teamConcurrency?: number;
  /** How long a submission's claims on a PostgreSQL ledger outlive its last sign of life. */
  claimLeaseMs?: number;
  /** The embedded sandbox's state file (--sandbox); default beside the ledger, as the CLI's commands find it. */
  sandboxStatePath?: string;
  /** Where uploads, results and reconciliations are kept; default `web` beside the ledger (.order-batch/web). */
  workDir?: string;
  /** Timezone and sourcesOfSale for checking; its `now` is replaced per check (see `now`). */
  context: CheckContext;
  concurrency: number;
  maxAttempts: number;
  lateAfterDays: number;
  /** Default 50 MB. */
  maxUploadBytes?: number;
  /** Uploads checked at once, the others waiting their turn (default 2: a check holds its sheet in memory). */
  checksAtOnce?: number;
  /** The line of checks itself, shared with the caller (tests hold a place in it); default a new one of checksAtOnce. */
  checkQueue?: CheckQueue;
  logger: Logger;
  /** Pin the instant date rules are evaluated at (and the embedded sandbox's start); default the wall clock at each check. */
  now?: Date;
  /** How long a session lasts without a request (default 8 hours). */
  sessionIdleMs?: number;
  /** How long a session lasts at most, however busy (default 12 hours): then its holder logs in again. */
  sessionMaxMs?: number;
  /**
   * Behind a TLS reverse proxy (the proxies trusted: a count of hops or their addresses): the client's
   * address and the public host and scheme come from its X-Forwarded-* headers, the session cookie is
   * Secure, accounts are required, and the forwarded host must be one of `allowedHosts`.
   */
  trustProxy?: TrustProxy | false;
  /** Uploads, results and reconciliations older than this many days are removed (default 90). */
  retentionDays?: number;
  /** The clock of sessions, the audit trail and retention (tests move it); default the wall clock. */
  clock?: () => Date;
  /** Where and when each submission's and reconciliation's notification goes. */
  notify?: NotifySettings;
  /** How long a lost PostgreSQL ledger is waited for (runs pause; pages answer 503 meanwhile). */
  ledgerOutageMs?: number;
  /** ORDER_BATCH_METRICS_TOKEN: /metrics for others than this computer. */
  metricsToken?: string;
  /** Requests per minute one API token may make (default 6,000); more are answered 429 with Retry-After. */
  apiRequestsPerMinute?: number;
  /** API uploads that may wait their turn to be checked on this instance (default 100); more are answered 429 with Retry-After. */
  apiWaitingChecks?: number;
  /** Submissions one account may have queued or running through the API (default 20); more are answered 429 with Retry-After. */
  apiJobsPerAccount?: number;
  /** The company login (src/sso/), when an issuer is given. */
  oidc?: SsoSettings;
}

export const WEB_DEFAULTS = {
  port: 8080,
  host: '127.0.0.1',
  maxUploadBytes: 50 * 1024 * 1024,
  sessionIdleMs: 8 * 3_600_000,
  sessionMaxMs: 12 * 3_600_000,
  retentionDays: 90,
};

export interface AppServices {
  options: WebAppOptions;
  maxUploadBytes: number;
  workDir: WorkDir;
  uploads: UploadChecker;
  /** The line of uploads waiting to be checked. */
  checks: CheckQueue;
  /** The mapping profiles saved for the team. */
  mappings: MappingStore;
  jobs: JobRunner;
  reconciler: Reconciler;
  /** The ledger this instance shares with the others: accounts, sessions, audit trail, jobs, files. */
  ledger: Ledger;
  /** Uploads, results and reconciliations, kept in the ledger and copied into the work folder on use. */
  files: SharedFiles;
  /** Whether some account exists (read again by a request every few seconds). */
  hasAccounts(): boolean;
  /** The embedded sandbox, for the server's lifetime (--sandbox). */
  sandbox?: Connection;
  /** Why nothing can be submitted (no API configured), if so. */
  apiProblem?: string;
  /** What /metrics serves. */
  metrics: Metrics;
  /** Each run's metrics and notification, after it. */
  aftermath: RunAftermath;
  /** The ledger's endpoint identity this server records orders for. */
  endpoint: string;
  logger: Logger;
  pageContext(request: FastifyRequest): PageContext;
}

export function sendHtml(reply: FastifyReply, page: SafeHtml, status = 200): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(page.value);
}

export function sendError(services: AppServices, request: FastifyRequest, reply: FastifyReply, status: number, title: string, message: string): FastifyReply {
  if (wantsJson(request)) return reply.code(status).header('cache-control', 'no-store').send({ error: title, message });
  return sendHtml(reply, renderErrorPage(services.pageContext(request), { title, message }), status);
}

/**
 * A request refused before its body was read: the body is read and dropped, so that a browser still
 * sending a big upload gets to read the answer. Closing on unread data resets the connection (Node 24 closes at once),
 * and the browser shows a network error instead of the page that says what was wrong.
 */
export function drainUnread(request: FastifyRequest): void {
  if (!request.raw.readableEnded) request.raw.resume();
}

export function wantsJson(request: FastifyRequest): boolean {
  return (request.headers.accept ?? '').includes('application/json') && !(request.headers.accept ?? '').includes('text/html');
}

/** The token of a form post (field `_csrf`) or a script's request (header `x-csrf-token`), against the session's. */
export function hasValidCsrf(request: FastifyRequest, fieldValue?: unknown): boolean {
  const header = request.headers['x-csrf-token'];
  const token = typeof fieldValue === 'string' ? fieldValue : typeof header === 'string' ? header : undefined;
  const expected = request.session?.csrf;
  if (!token || !expected) return false;
  const [given, wanted] = [Buffer.from(token), Buffer.from(expected)];
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

/** Records what the request's visitor did: who (or `actor`, e.g. a login's account), from where, when. */
export async function recordAudit(services: AppServices, request: FastifyRequest, event: Omit<AuditEvent, 'actor' | 'via' | 'address'> & { actor?: string }): Promise<void> {
  try {
    if (event.action === 'login_refused') services.metrics.failedLogins.inc();
    // A call of the HTTP API names its token beside the account.
    const detail = request.apiToken ? [event.detail, `API token ${request.apiToken}`].filter(Boolean).join('; ') : event.detail;
    await services.ledger.audit.record({ ...event, detail: detail ?? null, actor: event.actor ?? request.visitor?.name ?? '(nobody)', via: 'web', address: request.ip });
  } catch (error) {
    services.logger.error({ err: error, action: event.action }, 'could not record in the audit trail');
  }
}

export { csrfTokenOf };

export const CSRF_MESSAGE = 'This form has expired (the page was open before the server restarted, or came from another site). Reload the page and try again.';
