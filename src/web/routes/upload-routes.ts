/**
 * Uploading and checking a sheet, its verdict page and downloads, and submitting its valid orders.
 * The upload streams to disk under the size limit; the form's fields may come in any order (the
 * page sends the CSRF field first, and a refused token then stops the upload before it is stored).
 */
import { createWriteStream, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { redactUrl } from '../../redact.js';
import { formatBytes, renderUploadPage } from '../pages/upload-page.js';
import { renderVerdictPage, type SubmitState } from '../pages/verdict-page.js';
import { renderWaitingPage } from '../pages/waiting-page.js';
import { renderMappingStep } from '../pages/mapping-step.js';
import { UsageError } from '../../errors.js';
import { CSRF_MESSAGE, drainUnread, hasValidCsrf, recordAudit, sendError, sendHtml, type AppServices } from '../services.js';
import { parseRowFilter, validOrderIds, type Verdict } from '../verdict.js';
import { countEditedCells, loadReading, readingSha256 } from '../upload-reading.js';
import { isId, newId, PRIVATE_FILE_MODE, safeFileName } from '../work-dir.js';
import { sendFile } from './send-file.js';
import type { JobRecord } from '../jobs.js';

/** Room for the multipart envelope around the file (boundaries, part headers, the small fields). */
const MULTIPART_OVERHEAD = 64 * 1024;

class UploadRefused extends Error {
  constructor(readonly status: number, readonly title: string, message: string) {
    super(message);
  }
}

export function registerUploadRoutes(app: FastifyInstance, services: AppServices): void {
  const tooBig = () => `The file is larger than the ${formatBytes(services.maxUploadBytes)} this app accepts. Split the sheet into smaller files and upload them one by one.`;

  app.get('/', async (request, reply) =>
    sendHtml(reply, renderUploadPage(services.pageContext(request), { maxUploadBytes: services.maxUploadBytes, ...(services.apiProblem ? { apiProblem: services.apiProblem } : {}) })),
  );

  app.post('/upload', async (request, reply) => {
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > services.maxUploadBytes + MULTIPART_OVERHEAD) {
      // Refused unread: the body is dropped as it arrives, never stored.
      drainUnread(request);
      return sendError(services, request, reply, 413, 'File too large', tooBig());
    }
    if (!request.isMultipart()) return sendError(services, request, reply, 400, 'No file', NO_FILE_MESSAGE);
    const id = newId();
    const forget = () => rmSync(join(services.workDir.root, 'uploads', id), { recursive: true, force: true });
    try {
      const upload = await receiveUpload(services, request, id, tooBig);
      const isNow = services.checks.hasRoom;
      const checking = checkAndRecord(services, request, { id, ...upload });
      if (!isNow) {
        // Its turn comes later: its page shows its place in the line, then the verdict.
        checking.catch((error: unknown) => {
          forget();
          services.logger.error({ upload: id, err: error }, 'upload check failed');
        });
        return reply.redirect(`/uploads/${id}`, 303);
      }
      const verdict = await checking;
      return reply.redirect(`/uploads/${verdict.id}`, 303);
    } catch (error) {
      forget();
      if (error instanceof UploadRefused) {
        // The rest of the body (a file refused unread) is dropped, so the browser gets to read the page.
        drainUnread(request);
        if (error.status === 400) {
          return sendHtml(reply, renderUploadPage(services.pageContext(request), { maxUploadBytes: services.maxUploadBytes, error: error.message }), 400);
        }
        return sendError(services, request, reply, error.status, error.title, error.message);
      }
      throw error;
    }
  });

  app.get<{ Params: { id: string }; Querystring: { show?: string; q?: string; page?: string; columns?: string } }>('/uploads/:id', async (request, reply) => {
    const verdict = await verdictOf(services, request.params.id);
    if (!verdict) {
      const check = isId(request.params.id) ? services.checks.stateOf(request.params.id) : undefined;
      if (check === undefined) return notFound(services, request, reply);
      if (check.state === 'failed') return sendError(services, request, reply, 500, `${check.fileName} could not be checked`, check.message);
      return sendHtml(reply, renderWaitingPage(services.pageContext(request), { fileName: check.fileName, ahead: check.state === 'waiting' ? check.ahead : null }));
    }
    // Columns no profile fits: which column is which comes before a verdict (?columns=as-is shows the check anyway);
    // a sheet read with a profile shows the step when asked (?columns=choose), with the profile's choices.
    const isStepShown = verdict.mappingStep?.current ? request.query.columns === 'choose' : request.query.columns !== 'as-is';
    if (verdict.mappingStep && !verdict.error && isStepShown) return sendHtml(reply, renderMappingStep(services.pageContext(request), verdict, { sourcesOfSale: services.options.context.sourcesOfSale }));
    const page = Number.parseInt(request.query.page ?? '1', 10);
    return sendHtml(
      reply,
      renderVerdictPage(services.pageContext(request), verdict, {
        show: parseRowFilter(request.query.show),
        q: typeof request.query.q === 'string' ? request.query.q.slice(0, 200) : '',
        page: Number.isFinite(page) ? page : 1,
        submit: await submitState(services, verdict),
      }),
    );
  });

  app.get<{ Params: { id: string } }>('/uploads/:id/result', { config: { isDownload: true } }, async (request, reply) => {
    const verdict = await verdictOf(services, request.params.id);
    if (!verdict?.resultFile) return notFound(services, request, reply);
    await recordAudit(services, request, { action: 'download', fileName: verdict.resultFile, ref: verdict.id, detail: 'the checked sheet\'s result workbook' });
    return sendFile(services, reply, join(services.workDir.dirOf('uploads', verdict.id), verdict.resultFile), verdict.resultFile);
  });

  app.get<{ Params: { id: string } }>('/uploads/:id/fix', { config: { isDownload: true } }, async (request, reply) => {
    const verdict = await verdictOf(services, request.params.id);
    if (!verdict?.fixFile) return notFound(services, request, reply);
    await recordAudit(services, request, { action: 'download', fileName: verdict.fixFile, ref: verdict.id, detail: 'the Fix sheet' });
    return sendFile(services, reply, join(services.workDir.dirOf('uploads', verdict.id), verdict.fixFile), verdict.fixFile);
  });

  app.post<{ Params: { id: string }; Body: Record<string, string> | undefined }>('/uploads/:id/submit', { config: { access: 'submit' } }, async (request, reply) => {
    if (!hasValidCsrf(request, request.body?._csrf)) return sendError(services, request, reply, 403, 'Form expired', CSRF_MESSAGE);
    const verdict = await verdictOf(services, request.params.id);
    if (!verdict || verdict.error) return notFound(services, request, reply);
    if (services.apiProblem) return sendError(services, request, reply, 409, 'No API configured', services.apiProblem);
    const job = await submitChecked(services, request, verdict);
    return reply.redirect(`/jobs/${job.id}`, 303);
  });
}

/**
 * Reads the form in whatever order its parts come: the file is spooled to the upload's folder as it
 * arrives (never held in memory) and the CSRF token is judged once the form is read; the caller
 * deletes the folder when this throws. A token already seen and refused stops the form before its
 * file is stored.
 */
async function receiveUpload(services: AppServices, request: FastifyRequest, id: string, tooBig: () => string): Promise<{ fileName: string; file: string; sheet?: string }> {
  const hasValidHeader = hasValidCsrf(request);
  let token: { isValid: boolean } | undefined;
  let stored: { fileName: string; file: string } | undefined;
  let sheet: string | undefined;
  try {
    for await (const part of request.parts()) {
      if (part.type === 'field') {
        const value = typeof part.value === 'string' ? part.value : '';
        if (part.fieldname === '_csrf') token = { isValid: (token?.isValid ?? false) || hasValidCsrf(request, value) };
        else if (part.fieldname === 'sheet') sheet = value.trim() || undefined;
        continue;
      }
      if (!hasValidHeader && token && !token.isValid) {
        part.file.resume();
        throw new UploadRefused(403, 'Form expired', CSRF_MESSAGE);
      }
      if (part.fieldname !== 'file' || part.filename === '') {
        part.file.resume();
        continue;
      }
      if (stored) {
        part.file.resume();
        throw new UploadRefused(400, 'One file at a time', ONE_FILE_MESSAGE);
      }
      const fileName = safeFileName(part.filename);
      const file = join(services.workDir.dirOf('uploads', id), fileName);
      await pipeline(part.file, createWriteStream(file, { mode: PRIVATE_FILE_MODE }));
      if (part.file.truncated) throw new UploadRefused(413, 'File too large', tooBig());
      stored = { fileName, file };
    }
  } catch (error) {
    throw refusalOf(error, tooBig) ?? error;
  }
  if (!hasValidHeader && !token?.isValid) throw new UploadRefused(403, 'Form expired', CSRF_MESSAGE);
  if (!stored) throw new UploadRefused(400, 'No file', NO_FILE_MESSAGE);
  return { ...stored, ...(sheet ? { sheet } : {}) };
}

/** Checks the upload in its turn, keeps it in the ledger for every instance, and records the check (pages and API alike). */
export function checkAndRecord(services: AppServices, request: FastifyRequest, upload: { id: string; fileName: string; file: string; sheet?: string }): Promise<Verdict> {
  return checkInTurn(services, upload).then(async (verdict) => {
    // Kept in the ledger: every instance shows this verdict and serves its files.
    await services.files.publish('uploads', upload.id);
    await recordAudit(services, request, { action: 'check', fileName: verdict.fileName, fileSha256: verdict.sha256 ?? null, counts: verdict.error ? null : { rows: verdict.counts.rows, valid: verdict.counts.valid, invalid: verdict.counts.invalid }, ref: upload.id, detail: verdict.error ? `not read: ${verdict.error.code}` : null });
    return verdict;
  });
}

/** Queues the checked sheet's valid orders as a job (or finds the one queued already) and records the submission (pages and API alike). */
export async function submitChecked(services: AppServices, request: FastifyRequest, verdict: Verdict): Promise<JobRecord> {
  const isActive = (await services.jobs.activeFor(verdict.id)) !== undefined;
  const job = await services.jobs.submit({
    uploadId: verdict.id,
    fileName: verdict.fileName,
    fileSha256: verdict.sha256 ?? null,
    ...(verdict.sheet ? { sheet: verdict.sheet } : {}),
    expected: verdict.counts.valid,
    by: request.visitor!.name,
  });
  if (!isActive) {
    // What is sent is the sheet as the page read it: its hash, beside the file's own and the count of corrected cells.
    const reading = loadReading(services.workDir, verdict.id);
    const cellsEdited = countEditedCells(reading);
    const sent = verdict.sha256 ? readingSha256(verdict.sha256, reading) : null;
    const isAsUploaded = sent === (verdict.sha256 ?? null);
    await recordAudit(services, request, {
      action: 'submit',
      fileName: verdict.fileName,
      fileSha256: sent,
      counts: { valid: verdict.counts.valid, cells_edited: cellsEdited },
      ref: job.id,
      detail: isAsUploaded ? 'read as uploaded' : `read ${[reading.profile ? `with the columns chosen in the page (${reading.profile.name})` : '', cellsEdited > 0 ? `with ${cellsEdited} corrected cell${cellsEdited === 1 ? '' : 's'}` : ''].filter(Boolean).join(' and ')}; the file as uploaded: sha256 ${verdict.sha256}`,
    });
  }
  return job;
}

/**
 * Checks an upload, or checks it again (a mapping chosen, a cell corrected), in its turn among the checks
 * running: however they come, no more sheets are checked at once than the line lets through.
 */
export function checkInTurn(services: AppServices, upload: { id: string; fileName: string; file: string; sheet?: string }): Promise<Verdict> {
  return services.checks.run({ id: upload.id, fileName: upload.fileName }, () => services.uploads.check(upload), (error) => services.workDir.nameFilesIn(describeFailure(error)));
}

/** What the page of an upload whose check failed says: the user's situation in full, a bug without its details. */
function describeFailure(error: unknown): string {
  if (error instanceof UsageError) return error.message;
  return 'The sheet could not be checked because of an error in order-batch itself; the server log has the details. Upload it again, or check it with the command line.';
}

const NO_FILE_MESSAGE = 'Choose a CSV or XLSX file to upload.';
const ONE_FILE_MESSAGE = 'The form held more than one file; this app checks one file at a time. Choose a single CSV or XLSX file, then upload the others one by one.';
const TOO_MANY_PARTS_MESSAGE = 'The form held more parts than the upload page sends. Reload the page and choose the CSV or XLSX file again.';
const MALFORMED_MESSAGE = 'The browser sent a form that could not be read (cut short or garbled). Reload the page and choose the CSV or XLSX file again.';
/** What the multipart parser (busboy) says of a body that is not a well-formed form; it gives them no code. */
const MALFORMED_FORM = /multipart|terminated early|boundary/i;

/** The multipart reader's limits as the page a person reads (see the limits in server.ts). */
function refusalOf(error: unknown, tooBig: () => string): UploadRefused | undefined {
  if (error instanceof UploadRefused) return error;
  switch ((error as { code?: unknown } | null)?.code) {
    case 'FST_REQ_FILE_TOO_LARGE':
      return new UploadRefused(413, 'File too large', tooBig());
    case 'FST_FILES_LIMIT':
      return new UploadRefused(400, 'One file at a time', ONE_FILE_MESSAGE);
    case 'FST_PARTS_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return new UploadRefused(400, 'Upload not understood', TOO_MANY_PARTS_MESSAGE);
    case 'FST_MP_PREMATURE_CLOSE':
    case 'FST_PROTO_VIOLATION':
    case 'FST_INVALID_JSON_FIELD_ERROR':
      return new UploadRefused(400, 'Upload not understood', MALFORMED_MESSAGE);
    case undefined:
      // A disk error has a code (ENOSPC…) and stays a server error; the parser's own errors have none.
      return error instanceof Error && MALFORMED_FORM.test(error.message) ? new UploadRefused(400, 'Upload not understood', MALFORMED_MESSAGE) : undefined;
    default:
      return undefined;
  }
}

/** The upload's verdict, fetched from the ledger first when another instance checked it. */
export async function verdictOf(services: AppServices, id: string): Promise<Verdict | undefined> {
  if (!isId(id)) return undefined;
  await services.files.fetch('uploads', id);
  return services.uploads.get(id);
}

/** What the server's ledger already holds of the sheet's valid orders (read-only). */
async function submitState(services: AppServices, verdict: Verdict): Promise<SubmitState> {
  const alreadySubmitted = new Map<string, string | null>();
  const ids = validOrderIds(verdict);
  if (ids.length > 0) {
    const { ledger } = services;
    // A ledger that records another API's orders says nothing about this one's.
    const bound = await ledger.getSetting('endpoint');
    if (bound === null || redactUrl(bound) === services.endpoint) {
      for (const [id, record] of await ledger.getMany(ids)) if (record.state === 'accepted') alreadySubmitted.set(id, record.submittedAt);
    }
  }
  const active = await services.jobs.activeFor(verdict.id);
  return { alreadySubmitted, ...(services.apiProblem ? { apiProblem: services.apiProblem } : {}), ...(active ? { activeJobId: active } : {}) };
}

export function notFound(services: AppServices, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendError(services, request, reply, 404, 'Not found', 'There is nothing at this address. Uploads and results are kept in the work folder; one that was deleted cannot be shown.');
}
