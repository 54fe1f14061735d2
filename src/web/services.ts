/** What the routes share: the options, the stores, the security helpers, and how a page learns its context. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Connection } from '../commands/connect.js';
import type { Logger } from '../log.js';
import type { ConnectionSettings } from '../options.js';
import type { CheckContext } from '../orders/types.js';
import type { SafeHtml } from './html.js';
import type { JobRunner } from './jobs.js';
import type { LedgerReader } from './ledger-reader.js';
import { renderErrorPage } from './pages/error-page.js';
import type { PageContext } from './pages/layout.js';
import type { Reconciler } from './reconcile-runs.js';
import type { Csrf } from './security.js';
import type { CheckQueue } from './check-queue.js';
import type { UploadChecker } from './uploads.js';
import type { MappingStore } from '../mapping/mapping-store.js';
import type { WorkDir } from './work-dir.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The browser session (cookie), set by the security hook on every request. */
    sessionId: string;
  }
}

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
  /** POSTs in flight across every run on the ledger (--team-concurrency). */
  teamConcurrency?: number;
  /** How long a submission's claims on a PostgreSQL ledger outlive its last sign of life. */
  claimLeaseMs?: number;
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
}

export const WEB_DEFAULTS = {
  port: 8080,
  host: '127.0.0.1',
  maxUploadBytes: 50 * 1024 * 1024,
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
  csrf: Csrf;
  /** The embedded sandbox, for the server's lifetime (--sandbox). */
  sandbox?: Connection;
  /** Why nothing can be submitted (no API configured), if so. */
  apiProblem?: string;
  /** Reads of the ledger, through one connection for the server's life. */
  ledgerReader: LedgerReader;
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

/** The token of a form post (field `_csrf`) or a script's request (header `x-csrf-token`). */
export function hasValidCsrf(services: AppServices, request: FastifyRequest, fieldValue?: unknown): boolean {
  const header = request.headers['x-csrf-token'];
  const token = typeof fieldValue === 'string' ? fieldValue : typeof header === 'string' ? header : undefined;
  return services.csrf.isValid(request.sessionId, token);
}

export const CSRF_MESSAGE = 'This form has expired (the page was open before the server restarted, or came from another site). Reload the page and try again.';
