/** A submission's page, its JSON twin for the script's polling, its result workbook, and its cancellation. */
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { progressJson, renderJobPage } from '../pages/job-page.js';
import { CSRF_MESSAGE, hasValidCsrf, recordAudit, sendError, sendHtml, type AppServices } from '../services.js';
import { isId } from '../work-dir.js';
import { sendFile } from './send-file.js';
import { notFound } from './upload-routes.js';

export function registerJobRoutes(app: FastifyInstance, services: AppServices): void {
  // A reconciliation is a job of the ledger too; its page is /reconcile.
  const jobOf = async (id: string) => {
    const job = isId(id) ? await services.jobs.get(id) : undefined;
    return job?.kind === 'submit' ? job : undefined;
  };

  app.get<{ Params: { id: string } }>('/jobs/:id', async (request, reply) => {
    const job = await jobOf(request.params.id);
    if (!job) return notFound(services, request, reply);
    return sendHtml(reply, renderJobPage(services.pageContext(request), job));
  });

  app.get<{ Params: { id: string } }>('/jobs/:id/progress', async (request, reply) => {
    const job = await jobOf(request.params.id);
    if (!job) return reply.code(404).header('cache-control', 'no-store').send({ error: 'Not found', message: 'No such submission.' });
    return reply.header('cache-control', 'no-store').send(progressJson(job));
  });

  app.get<{ Params: { id: string } }>('/jobs/:id/result', { config: { isDownload: true } }, async (request, reply) => {
    const job = await jobOf(request.params.id);
    const resultFile = job?.outcome?.resultFile;
    if (!job || !resultFile || !(await services.files.fetch('jobs', job.id))) return notFound(services, request, reply);
    await recordAudit(services, request, { action: 'download', fileName: resultFile, ref: job.id, detail: `the result of submitting ${job.fileName}` });
    return sendFile(services, reply, join(services.workDir.dirOf('jobs', job.id), resultFile), resultFile);
  });

  app.post<{ Params: { id: string }; Body: Record<string, string> | undefined }>('/jobs/:id/cancel', { config: { access: 'submit' } }, async (request, reply) => {
    if (!hasValidCsrf(request, request.body?._csrf)) return sendError(services, request, reply, 403, 'Form expired', CSRF_MESSAGE);
    const before = await jobOf(request.params.id);
    if (!before) return notFound(services, request, reply);
    if (before.state === 'queued' || before.state === 'running') {
      await services.jobs.cancel(before.id, request.visitor!.name);
      if (!before.cancelRequestedBy) await recordAudit(services, request, { action: 'cancel', fileName: before.fileName, fileSha256: before.fileSha256, counts: before.progress.byStatus, ref: before.id });
    }
    return reply.redirect(`/jobs/${before.id}`, 303);
  });
}
