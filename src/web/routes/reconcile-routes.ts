/** The reconciliation page, running a reconciliation, its workbook, and the sandbox's clock. */
import { join } from 'node:path';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { renderReconcilePage } from '../pages/reconcile-page.js';
import { CSRF_MESSAGE, hasValidCsrf, sendError, sendHtml, type AppServices, recordAudit } from '../services.js';
import { activeReconciliation, queueReconciliation, waitForJobEnd } from '../reconcile-jobs.js';
import { isId } from '../work-dir.js';
import { CONFIRMATIONS_FOLDER } from '../reconcile-runs.js';
import { sendFile } from './send-file.js';
import { notFound } from './upload-routes.js';

const CLOCK_STEPS = new Set([24, 48, 96]);

export function registerReconcileRoutes(app: FastifyInstance, services: AppServices): void {
  const page = async (request: FastifyRequest, error?: string) => {
    const latest = await services.reconciler.latest();
    const query = request.query as { status?: unknown; page?: unknown };
    const pageNumber = Number.parseInt(typeof query.page === 'string' ? query.page : '1', 10);
    const orders = { status: typeof query.status === 'string' && /^[a-z_]{1,30}$/.test(query.status) ? query.status : '', page: Number.isFinite(pageNumber) ? pageNumber : 1 };
    const sandboxNow = await services.sandbox?.sandboxNow?.();
    const running = await activeReconciliation(services.ledger);
    return renderReconcilePage(services.pageContext(request), {
      ...(latest ? { latest } : {}),
      ...(running ? { running: { by: running.createdBy, since: running.startedAt ?? running.createdAt, state: running.state } } : {}),
      orders,
      ...(error ? { error } : {}),
      ...(sandboxNow ? { sandboxNow } : {}),
      ...(services.apiProblem ? { apiProblem: services.apiProblem } : {}),
    });
  };

  app.get('/reconcile', async (request, reply) => sendHtml(reply, await page(request)));

  app.post<{ Body: Record<string, string> | undefined }>('/reconcile', { config: { access: 'reconcile' } }, async (request, reply) => {
    if (!hasValidCsrf(request, request.body?._csrf)) return sendError(services, request, reply, 403, 'Form expired', CSRF_MESSAGE);
    if (services.apiProblem) return sendHtml(reply, await page(request, services.apiProblem), 409);
    // A durable job like a submission (reconcile-jobs.ts): the page waits for it, whichever instance runs it.
    const queued = await queueReconciliation(services.jobs, request.visitor?.name ?? '(nobody)', null);
    const ended = await waitForJobEnd(services.jobs, queued.id, () => request.raw.socket?.destroyed ?? false);
    if (ended?.state === 'failed') return sendHtml(reply, await page(request, ended.outcome?.error ?? 'The reconciliation did not finish.'), 502);
    return reply.redirect('/reconcile', 303);
  });

  app.get<{ Params: { id: string } }>('/reconcile/:id/workbook', { config: { isDownload: true } }, async (request, reply) => {
    const snapshot = isId(request.params.id) ? await services.reconciler.get(request.params.id) : undefined;
    if (!snapshot) return notFound(services, request, reply);
    await recordAudit(services, request, { action: 'download', fileName: snapshot.workbook, ref: snapshot.id, detail: 'a reconciliation workbook' });
    return sendFile(services, reply, join(services.workDir.dirOf('reconcile', snapshot.id), snapshot.workbook), snapshot.workbook);
  });

  app.get<{ Params: { id: string; name: string } }>('/reconcile/:id/confirmations/:name', { config: { isDownload: true } }, async (request, reply) => {
    const snapshot = isId(request.params.id) ? await services.reconciler.get(request.params.id) : undefined;
    // Only a file the snapshot lists: the name never reaches the file system unchecked.
    const file = snapshot?.confirmations?.find((f) => f.name === request.params.name);
    if (!snapshot || !file) return notFound(services, request, reply);
    await recordAudit(services, request, { action: 'download', fileName: file.name, ref: snapshot.id, detail: `confirmations for ${file.marketplace === 'generic' ? 'any marketplace' : file.marketplace}` });
    return sendFile(services, reply, join(services.workDir.dirOf('reconcile', snapshot.id), CONFIRMATIONS_FOLDER, file.name), file.name);
  });

  app.post<{ Body: Record<string, string> | undefined }>('/sandbox/advance', { config: { access: 'reconcile' } }, async (request, reply) => {
    if (!hasValidCsrf(request, request.body?._csrf)) return sendError(services, request, reply, 403, 'Form expired', CSRF_MESSAGE);
    const hours = Number(request.body?.hours);
    if (!services.sandbox?.advanceSandboxClock) return notFound(services, request, reply);
    if (!CLOCK_STEPS.has(hours)) return sendError(services, request, reply, 400, 'Not a clock step', 'Choose 24, 48 or 96 hours.');
    await services.sandbox.advanceSandboxClock(hours);
    return reply.redirect('/reconcile', 303);
  });
}
