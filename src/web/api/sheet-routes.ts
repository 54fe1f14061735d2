/**
 * Sheets through the API: upload and check (the pages' own checker, in the same line of checks),
 * read the verdict page by page, submit the valid orders as a job. Nothing here checks or submits by
 * itself: it calls what the upload routes call.
 */
import { createWriteStream, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { BUILTIN_PROFILES } from '../../mapping/builtin/index.js';
import type { Profile } from '../../mapping/profile.js';
import { formatBytes } from '../pages/upload-page.js';
import { checkAndRecord, submitChecked, verdictOf } from '../routes/upload-routes.js';
import { drainUnread, type AppServices } from '../services.js';
import { saveReading } from '../upload-reading.js';
import type { Verdict, VerdictRow } from '../verdict.js';
import { isId, newId, PRIVATE_FILE_MODE, safeFileName } from '../work-dir.js';
import { checkLineFull, jobsAtLimit, JOBS_RETRY_SECONDS, WAITING_CHECKS_RETRY_SECONDS } from './backpressure.js';
import { sendProblem, type ProblemType } from './problems.js';
import { COMMON_PROBLEMS, problems, ID_PARAMS, JOB_ACCEPTED, json, SHEET_SUMMARY, SHEET_VERDICT, UPLOAD_BODY, VERDICT_QUERY } from './schemas.js';

/** Room for the multipart envelope around the file (boundaries, part headers, the small fields). */
const MULTIPART_OVERHEAD = 64 * 1024;

class Refused extends Error {
  constructor(readonly type: ProblemType, message: string) {
    super(message);
  }
}

export function registerApiSheetRoutes(app: FastifyInstance, services: AppServices, prefix: string): void {
  const tooBig = () => `Uploads are limited to one file of at most ${formatBytes(services.maxUploadBytes)}: split the sheet and upload the parts one by one.`;

  app.post(
    '/sheets',
    {
      config: { isApi: true, apiAccess: 'view' },
      // The body is a multipart stream read below; its schema is for the document.
      validatorCompiler: () => () => true,
      schema: {
        summary: 'Upload a sheet and check it',
        description: 'Checked at once (201) when a check is free, else queued (202 with Location): ask the sheet until its state is checked.',
        tags: ['sheets'],
        consumes: ['multipart/form-data'],
        body: UPLOAD_BODY,
        response: { 201: json('checked', SHEET_SUMMARY), 202: json('waiting its turn to be checked', SHEET_SUMMARY), ...problems(413, 422), ...COMMON_PROBLEMS },
      },
    },
    async (request, reply) => {
      const declared = Number(request.headers['content-length']);
      if (Number.isFinite(declared) && declared > services.maxUploadBytes + MULTIPART_OVERHEAD) {
        drainUnread(request);
        return sendProblem(reply, 'too-large', tooBig());
      }
      if (!request.isMultipart()) return sendProblem(reply, 'no-file', 'Send the sheet as multipart/form-data, in the field `file`.');
      const lineFull = checkLineFull(services.checks, services.options.apiWaitingChecks);
      if (lineFull) {
        drainUnread(request);
        return sendProblem(reply, 'too-many-requests', lineFull, { retryAfterSeconds: WAITING_CHECKS_RETRY_SECONDS });
      }
      const id = newId();
      const forget = () => rmSync(join(services.workDir.root, 'uploads', id), { recursive: true, force: true });
      let upload: { fileName: string; file: string; sheet?: string };
      try {
        upload = await receive(services, request, id, tooBig);
      } catch (error) {
        forget();
        if (!(error instanceof Refused)) throw error;
        drainUnread(request);
        return sendProblem(reply, error.type, error.message);
      }
      const isNow = services.checks.hasRoom;
      const checking = checkAndRecord(services, request, { id, ...upload });
      const location = `${prefix}/sheets/${id}`;
      if (!isNow) {
        checking.catch((error: unknown) => {
          forget();
          services.logger.error({ upload: id, err: error }, 'upload check failed');
        });
        const state = services.checks.stateOf(id);
        return reply.code(202).header('location', location).send({ id, fileName: upload.fileName, state: 'waiting', ...(state?.state === 'waiting' ? { ahead: state.ahead } : {}) });
      }
      const verdict = await checking;
      if (verdict.error) return sendProblem(reply, 'sheet-unreadable', verdict.error.message, { code: verdict.error.code, id });
      return reply.code(201).header('location', location).send(summaryOf(verdict));
    },
  );

  app.get<{ Params: { id: string }; Querystring: { status: 'all' | 'valid' | 'invalid'; page: number; pageSize: number } }>(
    '/sheets/:id',
    {
      config: { isApi: true, auditRead: 'a sheet\'s verdict' },
      schema: {
        summary: "A sheet's verdict: its orders, and their problems by row and column, page by page",
        tags: ['sheets'],
        params: ID_PARAMS,
        querystring: VERDICT_QUERY,
        response: { 200: json('the verdict (or the state of a sheet not checked yet)', SHEET_VERDICT), ...problems(404), ...COMMON_PROBLEMS },
      },
    },
    async (request, reply) => {
      const verdict = await verdictOf(services, request.params.id);
      if (!verdict) {
        const check = services.checks.stateOf(request.params.id);
        if (!check) return sendProblem(reply, 'not-found', `There is no sheet ${request.params.id} (uploads are kept ${services.options.retentionDays ?? 90} days).`);
        if (check.state === 'failed') return reply.send({ id: request.params.id, fileName: check.fileName, state: 'failed', error: { code: 'check_failed', message: check.message } });
        return reply.send({ id: request.params.id, fileName: check.fileName, state: check.state === 'waiting' ? 'waiting' : 'checking', ...(check.state === 'waiting' ? { ahead: check.ahead } : {}) });
      }
      return reply.header('cache-control', 'no-store').send(verdictJson(verdict, request.query, prefix));
    },
  );

  app.post<{ Params: { id: string } }>(
    '/sheets/:id/submit',
    {
      config: { isApi: true, apiAccess: 'submit' },
      schema: {
        summary: "Submit the sheet's valid orders as a job",
        description: 'Answers 202 with the job (Location: the job). Submitting a sheet whose job is queued or running answers that job.',
        tags: ['sheets'],
        params: ID_PARAMS,
        response: { 202: json('queued', JOB_ACCEPTED), ...problems(404, 409, 422), ...COMMON_PROBLEMS },
      },
    },
    async (request, reply) => {
      const verdict = await verdictOf(services, request.params.id);
      if (!verdict) {
        if (isId(request.params.id) && services.checks.stateOf(request.params.id)) return sendProblem(reply, 'sheet-not-checked', 'The sheet is still waiting for its check: ask it again until its state is checked.');
        return sendProblem(reply, 'not-found', `There is no sheet ${request.params.id}.`);
      }
      if (verdict.error) return sendProblem(reply, 'sheet-unreadable', verdict.error.message, { code: verdict.error.code, id: verdict.id });
      if (verdict.mappingStep && !verdict.mapping) return sendProblem(reply, 'sheet-needs-mapping', "No mapping profile fits the sheet's columns: save one (order-batch mapping) and upload the sheet again with the field `mapping`.");
      if (verdict.counts.valid === 0) return sendProblem(reply, 'nothing-to-submit', `None of the ${verdict.counts.orders} orders is valid: fix them (the verdict lists each problem) and upload the sheet again.`);
      if (services.apiProblem) return sendProblem(reply, 'no-api', services.apiProblem);
      const atLimit = (await services.jobs.activeFor(verdict.id)) ? null : await jobsAtLimit(services.ledger.jobs, request.visitor!.name, services.options.apiJobsPerAccount);
      if (atLimit) return sendProblem(reply, 'too-many-requests', atLimit, { retryAfterSeconds: JOBS_RETRY_SECONDS });
      const job = await submitChecked(services, request, verdict);
      return reply.code(202).header('location', `${prefix}/jobs/${job.id}`).send({ jobId: job.id, state: job.state === 'running' ? 'running' : 'queued' });
    },
  );
}

/** Reads the form: the file streamed to the upload's folder under the size limit, the mapping named. */
async function receive(services: AppServices, request: FastifyRequest, id: string, tooBig: () => string): Promise<{ fileName: string; file: string; sheet?: string }> {
  let stored: { fileName: string; file: string } | undefined;
  let mapping: string | undefined;
  let sheet: string | undefined;
  try {
    for await (const part of request.parts()) {
      if (part.type === 'field') {
        const value = typeof part.value === 'string' ? part.value.trim() : '';
        if (part.fieldname === 'mapping') mapping = value || undefined;
        else if (part.fieldname === 'sheet') sheet = value || undefined;
        continue;
      }
      if (part.fieldname !== 'file' || stored) {
        part.file.resume();
        if (stored) throw new Refused('bad-request', 'Send one file per upload, in the field `file`.');
        continue;
      }
      const fileName = safeFileName(part.filename || 'sheet');
      const file = join(services.workDir.dirOf('uploads', id), fileName);
      await pipeline(part.file, createWriteStream(file, { mode: PRIVATE_FILE_MODE }));
      if (part.file.truncated) throw new Refused('too-large', tooBig());
      stored = { fileName, file };
    }
  } catch (error) {
    if (error instanceof Refused) throw error;
    const code = (error as { code?: unknown } | null)?.code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw new Refused('too-large', tooBig());
    if (typeof code === 'string' && code.startsWith('FST_')) throw new Refused('bad-request', 'The multipart body could not be read: send one file in the field `file`, and at most the fields `mapping` and `sheet`.');
    throw error;
  }
  if (!stored) throw new Refused('no-file', 'Send the sheet in the multipart field `file`.');
  if (mapping !== undefined) {
    const profile = await findProfile(services, mapping);
    if (!profile.ok) throw new Refused('unknown-mapping', profile.message);
    // Read as the pages read a sheet whose columns were chosen: the profile kept beside the upload.
    saveReading(services.workDir, id, { profile: profile.profile });
  }
  return { ...stored, ...(sheet ? { sheet } : {}) };
}

async function findProfile(services: AppServices, name: string): Promise<{ ok: true; profile: Profile } | { ok: false; message: string }> {
  const known = [...BUILTIN_PROFILES, ...(await services.mappings.list()).map((m) => m.profile)];
  const profile = known.find((p) => p.name.toLowerCase() === name.toLowerCase());
  if (profile) return { ok: true, profile };
  return { ok: false, message: `There is no mapping profile named ${name}; the known ones: ${[...new Set(known.map((p) => p.name))].join(', ')}.` };
}

/** One page of the verdict: the orders of the status asked for, each with its rows' problems. */
function verdictJson(verdict: Verdict, query: { status: 'all' | 'valid' | 'invalid'; page: number; pageSize: number }, prefix: string) {
  const { status, page, pageSize } = query;
  const orders = verdict.orders.filter((o) => status === 'all' || o.status === status);
  const rowsByNumber = new Map<number, VerdictRow>(verdict.rows.map((r) => [r.n, r]));
  const items = orders.slice((page - 1) * pageSize, page * pageSize).map((o) => ({
    customerOrderId: o.customerOrderId,
    status: o.status,
    rows: o.rows,
    problems: o.rows.flatMap((n) => (rowsByNumber.get(n)?.issues ?? []).map(problemJson)),
  }));
  const hasNext = page * pageSize < orders.length;
  const base = `${prefix}/sheets/${verdict.id}`;
  return {
    ...summaryOf(verdict),
    fileProblems: verdict.fileIssues.map(problemJson),
    items,
    page: { number: page, size: pageSize, totalItems: orders.length },
    next: hasNext ? `${base}?status=${status}&page=${page + 1}&pageSize=${pageSize}` : null,
    links: { submit: `${base}/submit` },
  };
}

function summaryOf(verdict: Verdict) {
  return {
    id: verdict.id,
    fileName: verdict.fileName,
    state: verdict.error ? 'unreadable' : 'checked',
    ...(verdict.sha256 ? { sha256: verdict.sha256 } : {}),
    checkedAsOf: verdict.checkedAsOf,
    mapping: verdict.mapping?.profile ?? null,
    needsMapping: Boolean(verdict.mappingStep && !verdict.mapping),
    orders: { valid: verdict.counts.valid, invalid: verdict.counts.invalid, total: verdict.counts.orders },
    rows: verdict.counts.rows,
    rowsWithWarnings: verdict.counts.rowsWithWarnings,
    ...(verdict.error ? { error: verdict.error } : {}),
  };
}

function problemJson(issue: { row: number | null; column: string | null; code: string; severity: string; message: string }) {
  return { row: issue.row, column: issue.column, code: issue.code, severity: issue.severity, message: issue.message };
}
