/** A submission's page, its JSON twin for the script's polling, and its result workbook. */
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { progressJson, renderJobPage } from '../pages/job-page.js';
import { sendHtml, type AppServices } from '../services.js';
import { isId } from '../work-dir.js';
import { sendFile } from './send-file.js';
import { notFound } from './upload-routes.js';

export function registerJobRoutes(app: FastifyInstance, services: AppServices): void {
  const jobOf = async (id: string) => (isId(id) ? services.jobs.get(id) : undefined);

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
    if (!job?.resultFile) return notFound(services, request, reply);
    return sendFile(services, reply, join(services.workDir.dirOf('jobs', job.id), job.resultFile), job.resultFile);
  });
}
