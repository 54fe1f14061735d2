/**
 * The guards every request passes before any route: security headers, the Host check, the origin
 * check for anything that changes state; and the answers for what no route serves (404) and for
 * errors, as pages a person can act on.
 */
import { isLedgerDown, sendLedgerDown } from './ledger-outage.js';
import type { FastifyError, FastifyInstance } from 'fastify';
import { formatBytes } from './pages/upload-page.js';
import { checkOrigin, isAllowedHost, SECURITY_HEADERS } from './security.js';
import { sendProblem } from './api/problems.js';
import { API_PREFIX } from './api-prefix.js';
import { drainUnread, sendError, type AppServices } from './services.js';

/**
 * `isBehindProxy`: the name checked is the one the trusted proxy forwarded (X-Forwarded-Host), which
 * must be one given with --allowed-host, as the Host header must without a proxy.
 */
export function installGuards(app: FastifyInstance, services: AppServices, guard: { allowedHosts: ReadonlySet<string>; isBehindProxy: boolean }): void {
  app.addHook('onRequest', async (request, reply) => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) reply.header(name, value);
    if (!isAllowedHost(guard.isBehindProxy ? request.host : request.headers.host, guard.allowedHosts)) {
      // A DNS-rebinding page reaches us under its own name: answer it nothing.
      return reply.code(403).header('connection', 'close').type('text/plain; charset=utf-8').send('This address is not allowed. Open the web app at the address serve printed (or one given with --allowed-host).');
    }
    if (request.method === 'GET' || request.method === 'HEAD') return;
    const secFetchSite = request.headers['sec-fetch-site'];
    const verdict = checkOrigin({ origin: request.headers.origin, secFetchSite: typeof secFetchSite === 'string' ? secFetchSite : undefined, host: request.host, scheme: request.protocol });
    if (!verdict.ok) {
      services.logger.warn({ reason: verdict.reason, url: request.url }, 'cross-site request refused');
      drainUnread(request);
      if (request.url.startsWith(`${API_PREFIX}/`)) return sendProblem(reply, 'cross-site', `A page of another web site sent this request (${verdict.reason}); the API is for other systems, not for web pages.`);
      return sendError(services, request, reply, 403, 'Refused', `This request came from another web site, so it was refused (${verdict.reason}). Use the order-batch pages themselves.`);
    }
  });

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
    if (isLedgerDown(error)) return sendLedgerDown(reply);
    if (status >= 400 && status < 500) return sendError(services, request, reply, status, 'Request not understood', 'The browser sent something this page cannot read. Go back and try again.');
    services.logger.error({ err: error, url: request.url }, 'web request failed');
    return sendError(services, request, reply, 500, 'Something went wrong', "order-batch hit an internal error; the server log has the details. Nothing was sent twice: the ledger keeps every order's state.");
  });
}
