/**
 * While the web app's ledger is unreachable (a database restart, a failover), every page but the
 * probes answers 503 at once with a plain page, rather than waiting on a session the ledger cannot
 * read; the app recovers by itself once the ledger answers. Sessions and jobs are in the ledger, so
 * none is lost: a job in flight waits for the ledger with its run (--ledger-outage).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { LedgerUnusableError, type Ledger } from '../ledger/index.js';
import { API_PREFIX } from './api-prefix.js';
import { sendProblem } from './api/problems.js';

/** Seconds a browser or a client is asked to wait before trying again. */
const RETRY_AFTER_SECONDS = 5;

const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Back in a moment</title><meta http-equiv="refresh" content="${RETRY_AFTER_SECONDS}"></head><body><h1>Back in a moment</h1><p>The web app cannot reach its ledger (the database) right now. It reconnects by itself: this page reloads in a few seconds. Nothing is lost: submissions in progress wait and go on.</p></body></html>\n`;

export function installLedgerOutageGate(app: FastifyInstance, ledger: Ledger): void {
  app.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.config?.isAsset || !ledger.isUnreachable?.()) return;
    return sendLedgerDown(reply);
  });
}

export function isLedgerDown(error: unknown): boolean {
  return error instanceof LedgerUnusableError;
}

export function sendLedgerDown(reply: FastifyReply): FastifyReply {
  // Another system reads the API's errors as problem details, never a page.
  if (reply.request.url.startsWith(`${API_PREFIX}/`)) {
    return sendProblem(reply, 'unavailable', 'order-batch cannot reach its ledger (the database) right now; it reconnects by itself. Nothing is lost: submissions in progress wait and go on.', { retryAfterSeconds: RETRY_AFTER_SECONDS });
  }
  return reply.code(503).header('retry-after', String(RETRY_AFTER_SECONDS)).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(PAGE);
}
