/**
 * Checking an uploaded sheet: the CLI's own checkFile and result writer, plus the Fix CSV, and the
 * verdict kept on disk beside them (so a verdict page outlives the server) and a few in memory.
 */
import { basename, extname, join } from 'node:path';
import { checkFile } from '../validate/check-file.js';
import { checkOnline, validationOutcome, type ValidateOptions } from '../validate/run-validate.js';
import { writeResultFile } from '../result-files/write-result.js';
import type { Issue } from '../issues/index.js';
import type { Logger } from '../log.js';
import type { CheckContext, CheckedSheet } from '../orders/types.js';
import { userMessage } from './user-message.js';
import { writeFixCsv } from './fix-csv.js';
import { MAX_MAPPED_VALUES } from './mapping-form.js';
import { buildVerdict, type MappingStep, type Verdict } from './verdict.js';
import { BUILTIN_PROFILES } from '../mapping/builtin/index.js';
import { suggestProfile } from '../mapping/suggest.js';
import { COLUMN_BY_FIELD, type Field } from '../sheet/columns.js';
import type { MappingStore, SavedMapping } from '../mapping/mapping-store.js';
import { loadReading, readSettingsFor } from './upload-reading.js';
import type { WorkDir } from './work-dir.js';

export interface UploadChecker {
  /** Checks a stored upload and keeps its verdict (and result files) in the upload's folder. */
  check(upload: { id: string; fileName: string; file: string; sheet?: string }): Promise<Verdict>;
  get(id: string): Verdict | undefined;
}

const CACHE_SIZE = 8;
export const VERDICT_FILE = 'verdict.json';

export function createUploadChecker(options: {
  workDir: WorkDir;
  /** The mapping profiles saved for the team: detected on upload like the built-in ones. */
  mappings: MappingStore;
  context: Omit<CheckContext, 'now'>;
  /** The instant date rules are evaluated at (a pinned --now, else the embedded sandbox's clock, else the wall clock). */
  checkNow: () => Promise<Date>;
  wallClock: () => Date;
  /** How to ask the API about products, stock and existing orders at check time; none: checked at submission only. */
  online?: NonNullable<ValidateOptions['online']>;
  logger: Logger;
}): UploadChecker {
  const { workDir, logger } = options;
  const cache = new Map<string, Verdict>();
  const remember = (verdict: Verdict) => {
    cache.delete(verdict.id);
    cache.set(verdict.id, verdict);
    if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
    return verdict;
  };

  return {
    async check(upload) {
      const now = await options.checkNow();
      const context: CheckContext = { ...options.context, now };
      const meta = {
        id: upload.id,
        fileName: upload.fileName,
        file: upload.file,
        ...(upload.sheet ? { sheet: upload.sheet } : {}),
        uploadedAt: options.wallClock().toISOString(),
        checkedAsOf: now.toISOString(),
        timezone: context.timezone,
      };
      const reading = loadReading(workDir, upload.id);
      const saved = await options.mappings.list();
      const checked = await checkFile(upload.file, { context, sheet: upload.sheet, logger, settings: readSettingsFor(reading, saved) });
      let verdict: Verdict;
      if (!checked.ok) {
        verdict = {
          ...meta,
          error: { code: checked.code, message: workDir.nameFilesIn(checked.message) },
          headers: [],
          fileIssues: [],
          rows: [],
          rowsLeftOff: 0,
          orders: [],
          counts: { rows: 0, orders: 0, valid: 0, invalid: 0, rowsWithWarnings: 0 },
          fixRows: 0,
        };
      } else {
        const { sheet } = checked;
        const online = await askTheApi(sheet, options.online, logger);
        const judged = online.issues;
        const issuesOf = judged ? (i: number) => judged[i] ?? [] : undefined;
        const dir = workDir.dirOf('uploads', upload.id);
        const stem = basename(upload.fileName, extname(upload.fileName));
        const resultPath = await writeResultFile({
          command: 'validate',
          sheet,
          outcomes: sheet.orders.map((o, i) => validationOutcome(issuesOf?.(i) ?? o.issues)),
          extraColumns: [],
          path: join(dir, `${stem}.result.xlsx`),
          isDefaultPath: true,
          generatedAt: options.wallClock(),
          notes: [`Checked in the web app as of ${now.toISOString()} (dates without an offset read in ${context.timezone}).`],
          sourcesOfSale: context.sourcesOfSale,
          logger,
        });
        const fixName = `${stem}.fix.csv`;
        const fixRows = await writeFixCsv(join(dir, fixName), sheet, issuesOf);
        const built = buildVerdict(sheet, meta, undefined, issuesOf);
        const notices = [...checked.notices, ...(online.notice ? [online.notice] : [])];
        // A sheet read with a profile can have it changed in the page (what a CLI user does in the profile file).
        const current = checked.mapping ? (reading.profile ?? [...BUILTIN_PROFILES, ...saved.map((m) => m.profile)].find((p) => p.name === checked.mapping!.profile)) : undefined;
        const mappingStep = current
          ? { ...buildMappingStep(built, saved, sheet.columns, true)!, current }
          : !checked.mapping && sheet.fileIssues.some((i) => i.code === 'missing_column')
            ? buildMappingStep(built, saved, sheet.columns, false)
            : undefined;
        // The verdict holds what the pages show: what the sheet kept on disk goes (the server runs on).
        sheet.release?.();
        verdict = {
          ...built,
          sha256: sheet.sha256,
          ...(notices.length > 0 ? { notices: notices.map((n) => workDir.nameFilesIn(n)) } : {}),
          ...(checked.mapping && { mapping: { ...checked.mapping, description: workDir.nameFilesIn(checked.mapping.description) } }),
          ...(mappingStep && { mappingStep }),
          ...(reading.edits?.length && { edits: reading.edits }),
          fileIssues: built.fileIssues.map((issue) => namingFiles(workDir, issue)),
          rows: built.rows.map((row) => (row.issues.length === 0 ? row : { ...row, issues: row.issues.map((issue) => namingFiles(workDir, issue)) })),
          resultFile: basename(resultPath),
          ...(fixRows > 0 ? { fixFile: fixName } : {}),
          fixRows,
        };
      }
      workDir.writeJson('uploads', upload.id, VERDICT_FILE, verdict);
      logger.info({ upload: upload.id, orders: verdict.counts.orders, valid: verdict.counts.valid }, 'upload checked');
      return remember(verdict);
    },
    get(id) {
      const cached = cache.get(id);
      if (cached) return remember(cached);
      const stored = workDir.readJson<Verdict>('uploads', id, VERDICT_FILE);
      return stored ? remember(stored) : undefined;
    },
  };
}

/**
 * The API's word on the valid orders at check time, as validate --online asks it: unknown products,
 * products out of stock everywhere, orders it already holds that this tool did not send. An API that
 * cannot be asked now leaves the check as it was, and says those are checked at submission.
 */
async function askTheApi(sheet: CheckedSheet, online: NonNullable<ValidateOptions['online']> | undefined, logger: Logger): Promise<{ issues?: Issue[][]; notice?: string }> {
  if (!online || !sheet.orders.some((o) => o.status === 'valid')) return {};
  try {
    return { issues: (await checkOnline([sheet], online, logger)).get(sheet) };
  } catch (error) {
    logger.warn({ err: (error as Error).message }, 'the API could not be asked about products and stock at check time');
    return { notice: `The fulfillment API could not be asked about products and stock just now (${userMessage(error)}): they are checked when the orders are submitted.` };
  }
}

/**
 * What the mapping step offers: a few values per column (from the rows the page keeps) and the best guesses.
 * Undefined when the step cannot help (a template sheet that simply lacks a column, and has no other): then
 * the verdict says what to add.
 */
function buildMappingStep(verdict: Pick<Verdict, 'headers' | 'rows'>, saved: readonly SavedMapping[], templateColumns: readonly (Field | null)[], isAsked: boolean): MappingStep | undefined {
  const samples: string[][] = verdict.headers.map(() => []);
  const values: string[][] = verdict.headers.map(() => []);
  for (const row of verdict.rows) {
    row.cells.forEach((cell, i) => {
      const list = samples[i];
      if (list !== undefined && cell.trim() !== '' && list.length < SAMPLES_PER_COLUMN && !list.includes(cell)) list.push(cell);
      const seen = values[i];
      if (seen !== undefined && cell.trim() !== '' && seen.length < MAX_MAPPED_VALUES && !seen.includes(cell.trim())) seen.push(cell.trim());
    });
  }
  const draft = suggestProfile({ headers: verdict.headers, samples, known: [...BUILTIN_PROFILES, ...saved.map((m) => m.profile)] });
  const covered = new Set(templateColumns);
  const isMissing = (field: Field) => !covered.has(field) && COLUMN_BY_FIELD.get(field)?.requiredColumn === true;
  // The step can help when a column the template ignores may be the missing field, or a constant can fill it.
  const helps =
    draft.guesses.some((g) => isMissing(g.field)) ||
    verdict.headers.some((h, i) => h.trim() !== '' && templateColumns[i] === null) ||
    (['sourceOfSale', 'customerLineItemId'] as const).some(isMissing);
  if (!helps && !isAsked) return undefined;
  const indexOf = (name: string) => verdict.headers.findIndex((h) => h.trim() === name.trim());
  const joins = Object.entries(draft.profile.fields).flatMap(([field, rule]) => (rule !== undefined && 'join' in rule ? [{ field: field as Field, columns: rule.join.map(indexOf).filter((i) => i >= 0) }] : []));
  return {
    samples,
    values,
    ...(joins.length > 0 && { joins }),
    guesses: draft.guesses.flatMap((g) => [g, ...(g.rivals ?? [])].map((c) => ({ field: g.field, column: c.column, confidence: g.confidence }))),
    missing: draft.missing,
  };
}

const SAMPLES_PER_COLUMN = 3;

/** An issue as the page shows it: a file named by its name, never by where the server keeps it. */
function namingFiles(workDir: WorkDir, issue: Issue): Issue {
  const message = workDir.nameFilesIn(issue.message);
  return message === issue.message ? issue : { ...issue, message };
}
