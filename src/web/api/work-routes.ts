/**
 * Jobs, reconciliations and runs through the API: the pages' job runner and reconciler, read and
 * driven as the pages drive them.
 */
import { basename, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { JobView } from '../jobs.js';
import { sendFile } from '../routes/send-file.js';
import { recordAudit, type AppServices } from '../services.js';
import { isId } from '../work-dir.js';
import { queueReconciliation, readReconciliation } from '../reconcile-jobs.js';
import { sendProblem } from './problems.js';
import { resultCsvOf } from './result-csv.js';
import { COMMON_PROBLEMS, problems, file, ID_PARAMS, JOB, json, RECONCILIATION, RECONCILIATION_ACCEPTED, RESULT_QUERY, RUNS, RUNS_QUERY } from './schemas.js';

const API_STATES = { queued: 'queued', running: 'running', done: 'finished', cancelled: 'canceled', failed: 'failed' } as const;
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** Jobs read, cancelled and their results downloaded. */
export function registerApiJobRoutes(app: FastifyInstance, services: AppServices, prefix: string): void {
  // A reconciliation is a job of the ledger too, answered under /reconciliations only.
  const jobOf = async (id: string) => {
    const job = isId(id) ? await services.jobs.get(id) : undefined;
    return job?.kind === 'submit' ? job : undefined;
  };
  const noJob = (id: string) => `There is no job ${id}.`;

  app.get<{ Params: { id: string } }>(
    '/jobs/:id',
    {
      config: { isApi: true, auditRead: 'a job' },
      schema: { summary: 'A job: its state and the count of orders per outcome', tags: ['jobs'], params: ID_PARAMS, response: { 200: json('the job', JOB), ...problems(404), ...COMMON_PROBLEMS } },
    },
    async (request, reply) => {
      const job = await jobOf(request.params.id);
      if (!job) return sendProblem(reply, 'not-found', noJob(request.params.id));
      return reply.header('cache-control', 'no-store').send(jobJson(job, prefix));
    },
  );

  app.post<{ Params: { id: string } }>(
    '/jobs/:id/cancel',
    {
      config: { isApi: true, apiAccess: 'submit' },
      schema: {
        summary: 'Cancel a job: nothing more is sent (orders in flight get their answers)',
        tags: ['jobs'],
        params: ID_PARAMS,
        response: { 202: json('cancellation asked (a queued job is cancelled at once)', JOB), ...problems(404, 409), ...COMMON_PROBLEMS },
      },
    },
    async (request, reply) => {
      const before = await jobOf(request.params.id);
      if (!before) return sendProblem(reply, 'not-found', noJob(request.params.id));
      if (before.state !== 'queued' && before.state !== 'running') return sendProblem(reply, 'job-finished', `The job ${before.id} is ${API_STATES[before.state]}: there is nothing to cancel.`, { id: before.id });
      await services.jobs.cancel(before.id, request.visitor!.name);
      if (!before.cancelRequestedBy) await recordAudit(services, request, { action: 'cancel', fileName: before.fileName, fileSha256: before.fileSha256, counts: before.progress.byStatus, ref: before.id });
      const after = (await services.jobs.get(before.id)) ?? before;
      return reply.code(202).header('location', `${prefix}/jobs/${before.id}`).send(jobJson(after, prefix));
    },
  );

  app.get<{ Params: { id: string }; Querystring: { format: 'xlsx' | 'csv' } }>(
    '/jobs/:id/result',
    {
      config: { isApi: true },
      schema: {
        summary: "A finished job's result: the workbook, or its Results sheet as CSV",
        tags: ['jobs'],
        params: ID_PARAMS,
        querystring: RESULT_QUERY,
        response: { 200: file('the result', [XLSX, 'text/csv']), ...problems(404), ...COMMON_PROBLEMS },
      },
    },
    async (request, reply) => {
      const job = await jobOf(request.params.id);
      if (!job) return sendProblem(reply, 'not-found', noJob(request.params.id));
      const resultFile = job.outcome?.resultFile;
      if (!resultFile || !(await services.files.fetch('jobs', job.id))) return sendProblem(reply, 'no-result', `The job ${job.id} is ${API_STATES[job.state]} and has no result file${job.state === 'queued' || job.state === 'running' ? ' yet: ask again once it has finished' : ''}.`, { id: job.id });
      const workbook = join(services.workDir.dirOf('jobs', job.id), resultFile);
      const path = request.query.format === 'csv' ? await resultCsvOf(workbook) : workbook;
      await recordAudit(services, request, { action: 'download', fileName: basename(path), ref: job.id, detail: `the result of submitting ${job.fileName}` });
      return sendFile(services, reply, path, basename(path));
    },
  );

}

/** Reconciliations started, read and downloaded; and the runs list. */
export function registerApiReconcileRoutes(app: FastifyInstance, services: AppServices, prefix: string): void {
  app.post(
    '/reconciliations',
    {
      config: { isApi: true, apiAccess: 'reconcile' },
      schema: {
        summary: "Reconcile the ledger's orders with the API",
        description: 'Answers 202 at once, with the reconciliation to ask (Location): it answers 202 while queued or running, then the result. It is a job of the ledger: any instance runs it, every instance answers it, and one that dies leaves it to another.',
        tags: ['reconciliations'],
        response: { 202: json('queued', RECONCILIATION_ACCEPTED), ...problems(409), ...COMMON_PROBLEMS },
      },
    },
    async (request, reply) => {
      if (services.apiProblem) return sendProblem(reply, 'no-api', services.apiProblem);
      // Its audit entry is written when it ends, under the account and this token (reconcile-jobs.ts).
      const job = await queueReconciliation(services.jobs, request.visitor!.name, `API token ${request.apiToken}`);
      return reply.code(202).header('location', `${prefix}/reconciliations/${job.id}`).send({ id: job.id, state: 'queued' });
    },
  );

  app.get<{ Params: { id: string } }>(
    '/reconciliations/:id',
    {
      config: { isApi: true, auditRead: 'a reconciliation' },
      schema: {
        summary: 'A reconciliation: its roll-up per status and its exceptions',
        tags: ['reconciliations'],
        params: ID_PARAMS,
        response: { 200: json('the reconciliation, finished or failed', RECONCILIATION), 202: json('queued or running: ask again at Location', RECONCILIATION), ...problems(404), ...COMMON_PROBLEMS },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const found = isId(id) ? await readReconciliation(services, id) : undefined;
      if (!found) return sendProblem(reply, 'not-found', `There is no reconciliation ${id} (reconciliations are kept ${services.options.retentionDays ?? 90} days).`);
      reply.header('cache-control', 'no-store');
      if (found.state === 'failed') return reply.send({ id, state: 'failed', createdBy: found.job.createdBy, createdAt: found.job.createdAt, error: found.error });
      if (found.state !== 'finished') {
        const { job } = found;
        return reply.code(202).header('location', `${prefix}/reconciliations/${id}`).send({ id, state: found.state, createdBy: job.createdBy, createdAt: job.createdAt, startedAt: job.startedAt });
      }
      const { snapshot } = found;
      return reply.send({
        id,
        state: 'finished',
        createdAt: snapshot.createdAt,
        asOf: snapshot.asOf,
        summary: snapshot.summary,
        orders: snapshot.orders,
        exceptions: snapshot.exceptions,
        exceptionsLeftOff: snapshot.exceptionsLeftOff,
        workbook: `${prefix}/reconciliations/${id}/workbook`,
      });
    },
  );

  app.get<{ Params: { id: string } }>(
    '/reconciliations/:id/workbook',
    {
      config: { isApi: true },
      schema: { summary: "A reconciliation's workbook", tags: ['reconciliations'], params: ID_PARAMS, response: { 200: file('the workbook', [XLSX]), ...problems(404), ...COMMON_PROBLEMS } },
    },
    async (request, reply) => {
      const snapshot = isId(request.params.id) ? await services.reconciler.get(request.params.id) : undefined;
      if (!snapshot) return sendProblem(reply, 'not-found', `There is no finished reconciliation ${request.params.id}.`);
      await recordAudit(services, request, { action: 'download', fileName: snapshot.workbook, ref: snapshot.id, detail: 'a reconciliation workbook' });
      return sendFile(services, reply, join(services.workDir.dirOf('reconcile', snapshot.id), snapshot.workbook), snapshot.workbook);
    },
  );

  app.get<{ Querystring: { limit: number } }>(
    '/runs',
    {
      config: { isApi: true, auditRead: 'the runs' },
      schema: { summary: 'The latest runs (imports, reconciliations, jobs), newest first', tags: ['runs'], querystring: RUNS_QUERY, response: { 200: json('the runs', RUNS), ...COMMON_PROBLEMS } },
    },
    async (request, reply) => {
      const [runs, jobsByRun] = await Promise.all([services.ledger.listRuns(request.query.limit), services.jobs.jobIdsByRun()]);
      return reply.header('cache-control', 'no-store').send({
        runs: runs.map((run) => ({
          runId: run.runId,
          command: run.command,
          startedAt: run.startedAt,
          finishedAt: run.finishedAt,
          files: run.files.map((f) => ({ ...f, file: basename(f.file) })),
          ...(run.summary && typeof run.summary === 'object' ? { summary: run.summary } : {}),
          jobId: jobsByRun.get(run.runId) ?? null,
        })),
      });
    },
  );
}

function jobJson(job: JobView, prefix: string) {
  const isFinished = job.state === 'done' || job.state === 'failed' || job.state === 'cancelled';
  return {
    id: job.id,
    state: API_STATES[job.state],
    summary: (isFinished ? job.outcome?.summary : undefined) ?? job.progress.byStatus,
    progress: { done: job.progress.done, total: job.progress.total },
    sheetId: job.uploadId,
    fileName: job.fileName,
    createdBy: job.createdBy,
    createdAt: job.createdAt,
    startedAt: job.startedAt,
    finishedAt: job.finishedAt,
    cancelRequested: job.cancelRequestedBy !== null,
    ...(job.outcome?.error ? { error: job.outcome.error } : {}),
    ...(job.outcome?.notice ? { notice: job.outcome.notice } : {}),
    result: job.outcome?.resultFile ? `${prefix}/jobs/${job.id}/result` : null,
  };
}
