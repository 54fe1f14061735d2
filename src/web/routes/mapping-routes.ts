/**
 * The mapping step's answer (which column feeds each field, saved for the team under a name) and the
 * cells corrected in the verdict table: each is kept beside the upload (reading.json) and the upload
 * is checked again in its turn (checkInTurn), so the page, its downloads and a submission all read the sheet the same way.
 * Both change what a submission sends, so both need the submit role, and each is in the audit trail.
 */
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { UsageError } from '../../errors.js';
import type { CellEdit } from '../../mapping/cell-edits.js';
import type { Profile, Rule } from '../../mapping/profile.js';
import type { Field } from '../../sheet/columns.js';
import { profileFromForm, readForm } from '../mapping-form.js';
import { renderMappingStep } from '../pages/mapping-step.js';
import { CSRF_MESSAGE, hasValidCsrf, recordAudit, sendError, sendHtml, type AppServices } from '../services.js';
import { loadReading, saveReading } from '../upload-reading.js';
import { checkInTurn, notFound, verdictOf } from './upload-routes.js';

/** Longest corrected value accepted (a cell of a spreadsheet holds at most 32,767 characters). */
const MAX_EDIT_CHARS = 32_767;

export function registerMappingRoutes(app: FastifyInstance, services: AppServices): void {
  app.post<{ Params: { id: string }; Body: Record<string, string> | undefined }>('/uploads/:id/mapping', { config: { access: 'submit' } }, async (request, reply) => {
    const body = request.body ?? {};
    if (!hasValidCsrf(request, body._csrf)) return sendError(services, request, reply, 403, 'Form expired', CSRF_MESSAGE);
    const verdict = await verdictOf(services, request.params.id);
    if (!verdict || verdict.error || !verdict.headers.length) return notFound(services, request, reply);
    const step = verdict.mappingStep ?? { samples: verdict.headers.map(() => []), guesses: [], missing: [] };
    const shown = { ...verdict, mappingStep: step };
    const sourcesOfSale = services.options.context.sourcesOfSale;
    const sheet = { headers: verdict.headers, values: step.values ?? [], uploadId: verdict.id, sourcesOfSale, ...(step.current && { base: step.current }) };
    const form = readForm(body, sheet);
    const built = profileFromForm(form, sheet);
    if ('errors' in built) return sendHtml(reply, renderMappingStep(services.pageContext(request), shown, { errors: built.errors, form, sourcesOfSale }), 400);
    if (built.isSaved) {
      try {
        await services.mappings.save({ profile: built.profile, savedBy: request.visitor!.name });
        await recordAudit(services, request, { action: 'mapping_save', fileName: verdict.fileName, ref: verdict.id, detail: built.profile.name });
      } catch (error) {
        if (!(error instanceof UsageError)) throw error;
        return sendHtml(reply, renderMappingStep(services.pageContext(request), shown, { errors: [{ control: 'mapping-name', message: error.message }], form, sourcesOfSale }), 409);
      }
    }
    saveReading(services.workDir, verdict.id, { profile: built.profile });
    await recordAudit(services, request, {
      action: 'mapping',
      fileName: verdict.fileName,
      fileSha256: verdict.sha256 ?? null,
      ref: verdict.id,
      // A mapping saved for the team has its own entry (mapping_save) just before.
      detail: `${describeColumns(built.profile)}${built.isSaved ? '' : '; for this upload only'}`,
    });
    await checkInTurn(services, { id: verdict.id, fileName: verdict.fileName, file: uploadFileOf(services, verdict), ...(verdict.sheet ? { sheet: verdict.sheet } : {}) });
    await services.files.publish('uploads', verdict.id);
    return reply.redirect(`/uploads/${verdict.id}`, 303);
  });

  app.post<{ Params: { id: string }; Body: { row?: unknown; col?: unknown; value?: unknown } | undefined }>('/uploads/:id/cells', { config: { access: 'submit' } }, async (request, reply) => {
    if (!hasValidCsrf(request)) return reply.code(403).send({ error: 'Form expired', message: CSRF_MESSAGE });
    const verdict = await verdictOf(services, request.params.id);
    if (!verdict || verdict.error) return reply.code(404).send({ error: 'Not found', message: 'There is no such upload.' });
    const { row, col, value } = request.body ?? {};
    const isRow = typeof row === 'number' && verdict.rows.some((r) => r.n === row);
    if (!isRow || typeof col !== 'number' || !Number.isInteger(col) || col < 0 || col >= verdict.headers.length || typeof value !== 'string' || value.length > MAX_EDIT_CHARS) {
      return reply.code(400).send({ error: 'Not understood', message: 'Name a row and a column shown in the table, and the new value as text.' });
    }
    const reading = loadReading(services.workDir, verdict.id);
    const edit: CellEdit = { row, col, value, by: request.visitor!.name, at: new Date().toISOString() };
    saveReading(services.workDir, verdict.id, { ...reading, edits: [...(reading.edits ?? []), edit] });
    const before = verdict.rows.find((r) => r.n === row)?.cells[col] ?? '';
    await recordAudit(services, request, {
      action: 'cell_edit',
      fileName: verdict.fileName,
      fileSha256: verdict.sha256 ?? null,
      ref: verdict.id,
      detail: `row ${row}, column ${clip(verdict.headers[col] ?? String(col + 1))}: ${clip(before)} -> ${clip(value)}`,
    });
    const checked = await checkInTurn(services, { id: verdict.id, fileName: verdict.fileName, file: uploadFileOf(services, verdict), ...(verdict.sheet ? { sheet: verdict.sheet } : {}) });
    await services.files.publish('uploads', verdict.id);
    const order = checked.orders.find((o) => o.rows.includes(row));
    const issues = checked.rows.filter((r) => order?.rows.includes(r.n)).flatMap((r) => r.issues.map((i) => ({ row: r.n, column: i.column, severity: i.severity, message: i.message })));
    return reply.send({ status: order?.status ?? 'invalid', issues, counts: checked.counts });
  });
}

/** Longest value an audit entry quotes of a cell (a cell may hold 32,767 characters). */
const AUDIT_VALUE_CHARS = 60;

/** A value as the audit trail quotes it: on one line, cut to a few words. */
function clip(value: string): string {
  const flat = value.replace(/[\u0000-\u001f\u007f]+/g, ' ');
  return JSON.stringify(flat.length > AUDIT_VALUE_CHARS ? `${flat.slice(0, AUDIT_VALUE_CHARS)}…` : flat);
}

/** "customerOrderId from \"Order #\", ..." for the audit trail. */
function describeColumns(profile: Profile): string {
  const rules = Object.entries(profile.fields) as [Field, Rule][];
  return rules.map(([field, rule]) => ('column' in rule ? `${field} from ${clip(rule.column)}` : 'constant' in rule ? `${field} always ${clip(String(rule.constant))}` : 'generate' in rule ? `${field} generated` : `${field} from several columns`)).join(', ');
}

/** The upload's copy in this instance's work folder (the verdict names the one of the instance that checked it first). */
function uploadFileOf(services: AppServices, verdict: { id: string; fileName: string }): string {
  return join(services.workDir.dirOf('uploads', verdict.id), verdict.fileName);
}
