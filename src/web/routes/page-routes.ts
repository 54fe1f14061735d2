/** The script, the stylesheet, the template, and the history of runs with their result files. */
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { writeTemplate } from '../../output-files/write-template.js';
import { redactUrl } from '../../redact.js';
import { auditQueryOf, renderAuditSection } from '../pages/audit-section.js';
import { renderHistoryPage, type HistoryEntry } from '../pages/history-page.js';
import { APP_CSS } from '../public/app-css.js';
import { APP_SCRIPT } from '../public/app-script.js';
import { recordAudit, sendHtml, WEB_DEFAULTS, type AppServices } from '../services.js';
import { sendFile } from './send-file.js';
import { readKeptResult } from '../../schedules/keep-results.js';
import { schedulesOfRuns } from '../../schedules/history.js';
import { sendStoredFile } from './send-stored-file.js';
import { notFound } from './upload-routes.js';

const HISTORY_LIMIT = 100;
const RUN_ID_PATTERN = /^[0-9a-f-]{36}$/;

export function registerPageRoutes(app: FastifyInstance, services: AppServices): void {
  app.get('/static/app.css', { config: { access: 'public', isAsset: true } }, async (_request, reply) => reply.type('text/css; charset=utf-8').header('cache-control', 'no-cache').send(APP_CSS));
  app.get('/static/app.js', { config: { access: 'public', isAsset: true } }, async (_request, reply) => reply.type('text/javascript; charset=utf-8').header('cache-control', 'no-cache').send(APP_SCRIPT));

  // The template is written from the configured sourcesOfSale the first time it is asked for.
  const templates = new Map<'xlsx' | 'csv', Promise<string>>();
  const templatePath = (format: 'xlsx' | 'csv') => {
    let pending = templates.get(format);
    if (!pending) {
      const path = join(services.workDir.dirOf('template', 'current'), `order-template.${format}`);
      pending = writeTemplate(path, { format, sourcesOfSale: services.options.context.sourcesOfSale }).then(() => path);
      pending.catch(() => templates.delete(format));
      templates.set(format, pending);
    }
    return pending;
  };
  for (const format of ['xlsx', 'csv'] as const) {
    app.get(`/template.${format}`, { config: { isDownload: true } }, async (_request, reply) => sendFile(services, reply, await templatePath(format), `order-template.${format}`));
  }

  app.get<{ Querystring: Record<string, string | undefined> }>('/history', async (request, reply) => {
    const runs = await services.ledger.listRuns(HISTORY_LIMIT);
    const jobs = await services.jobs.jobIdsByRun();
    const schedules = await schedulesOfRuns(services.ledger.schedules, services.ledger.files, runs.map((r) => r.runId));
    const before = Number.parseInt(request.query.before ?? '', 10);
    const view = { actor: (request.query.actor ?? '').slice(0, 100), since: request.query.since ?? '', until: request.query.until ?? '', ...(Number.isFinite(before) ? { before } : {}) };
    const [entriesOfAudit, actors, usage] = await Promise.all([services.ledger.audit.list(auditQueryOf(view)), services.ledger.audit.listActors(), services.files.usage()]);
    const entries: HistoryEntry[] = runs.map((run) => {
      const jobId = jobs.get(run.runId);
      const schedule = schedules.get(run.runId);
      const isKept = (i: number) => schedule?.kept.has(i) ?? false;
      return { run, ...(jobId ? { jobId } : {}), ...(schedule ? { schedule: schedule.name } : {}), isServable: run.resultFiles.map((f, i) => isKept(i) || (existsSync(f) && services.workDir.contains(f))) };
    });
    return sendHtml(
      reply,
      renderHistoryPage(services.pageContext(request), entries, {
        ledgerPath: redactUrl(services.options.ledgerPath),
        limit: HISTORY_LIMIT,
        audit: renderAuditSection(entriesOfAudit, actors, view),
        usage,
        retentionDays: services.options.retentionDays ?? WEB_DEFAULTS.retentionDays,
      }),
    );
  });

  app.get<{ Params: { runId: string; index: string } }>('/runs/:runId/files/:index', { config: { isDownload: true } }, async (request, reply) => {
    const { runId, index } = request.params;
    if (!RUN_ID_PATTERN.test(runId) || !/^\d{1,3}$/.test(index)) return notFound(services, request, reply);
    const run = await services.ledger.getRun(runId);
    const file = run?.resultFiles[Number(index)];
    const kept = file && !services.workDir.contains(file) ? await readKeptResult(services.ledger.files, runId, Number(index), file) : null;
    if (kept) {
      await recordAudit(services, request, { action: 'download', fileName: basename(file!), ref: runId, detail: `a result of the scheduled ${run!.command} run` });
      return sendStoredFile(reply, kept, basename(file!));
    }
    if (!file || !existsSync(file) || !services.workDir.contains(file)) return notFound(services, request, reply);
    await recordAudit(services, request, { action: 'download', fileName: basename(file), ref: runId, detail: `a result of the ${run!.command} run` });
    return sendFile(services, reply, file, basename(file));
  });
}

