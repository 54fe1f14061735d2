/** Reads and checks one sheet; a file that cannot be used becomes a fatal outcome, never an exception. */
import { InputError } from '../errors.js';
import type { Logger } from '../log.js';
import { BUILTIN_PROFILES } from '../mapping/builtin/index.js';
import { applyCellEdits, type CellEdit } from '../mapping/cell-edits.js';
import { chooseReading, describeReading, type FileMapping, type MappingChoice, type SheetReading } from '../mapping/choose.js';
import type { Audience } from '../mapping/compile.js';
import { mapOpenedSheet } from '../mapping/mapped-sheet.js';
import type { Profile } from '../mapping/profile.js';
import { checkRoomForRows, checkSheet, isLocaleDelimiter, type CheckSheetOptions } from '../orders/check-sheet.js';
import { countEvidence, decideDecimalMark, emptyCounts, type DecimalMark, type DecimalMarkDecision } from '../orders/decimal-mark.js';
import type { CheckContext, CheckedSheet } from '../orders/types.js';
import { COLUMN_BY_FIELD, type Field } from '../sheet/columns.js';
import { openSheet, type OpenSheetOptions } from '../sheet/read-sheet.js';
import type { Progress } from '../progress.js';
import type { JsonInput } from '../run-report/json.js';

export type CheckedFile =
  | {
      ok: true;
      file: string;
      sheet: CheckedSheet;
      /** What the reader chose that a user should know (the Fix sheet of a result workbook, the profile read with, the decimal mark). */
      notices: readonly string[];
      /** The profile the file was read with, when one was, and the sentence that says so. */
      mapping?: FileMapping;
      /** The profile itself (its marketplace identifiers are kept per line: marketplace-lines.ts). */
      profile?: Profile;
    }
  | { ok: false; file: string; code: InputError['code']; message: string };

export interface ReadSettings {
  /** How columns are matched to fields (default: detect among the built-in profiles). */
  mapping?: MappingChoice;
  /** --decimal-comma: the comma is the decimal mark, whatever the file shows. */
  decimalMark?: DecimalMark;
  /** The context's dateOrder was set for the run (--date-order): it wins over a profile's. */
  isDateOrderForced?: boolean;
  /** Cells corrected by hand (the web app's verdict table), laid over the file's. */
  edits?: readonly CellEdit[];
  /** Who reads the file's messages (default: a CLI user): the web app's say what to do in the page. */
  audience?: Audience;
}

/** What a stage reads a sheet with: its check context, --sheet, and how columns, dates and numbers are read. */
export interface SheetReadOptions {
  context: CheckContext;
  sheet?: string;
  logger: Logger;
  progress?: Progress;
  readSettings?: ReadSettings;
}

/**
 * Each file checked with a stage's read options (validate and import read their sheets alike), in
 * order; a file that could not be read goes to `onUnreadable`, as the run report lists it, and is passed over.
 */
export async function* checkSheetFiles(files: readonly string[], options: SheetReadOptions, onUnreadable: (input: JsonInput) => void): AsyncGenerator<Extract<CheckedFile, { ok: true }>> {
  for (const file of files) {
    const checked = await checkFile(file, { context: options.context, sheet: options.sheet, logger: options.logger, progress: options.progress, ...(options.readSettings && { settings: options.readSettings }) });
    if (checked.ok) yield checked;
    else onUnreadable({ file: checked.file, sha256: null, rows: 0, orders: 0, error: { code: checked.code, message: checked.message } });
  }
}

export async function checkFile(
  file: string,
  options: {
    context: CheckContext;
    sheet?: string;
    logger: Logger;
    progress?: Progress;
    read?: Pick<OpenSheetOptions, 'workerMinBytes' | 'workerUrl' | 'limits'>;
    /** Memory windows and the temporary folder of what checking keeps on disk (lowered by tests). */
    keep?: Pick<CheckSheetOptions, 'rowStore' | 'verdicts' | 'openOrders'>;
    settings?: ReadSettings;
  },
): Promise<CheckedFile> {
  let opened: Awaited<ReturnType<typeof openSheet>> | undefined;
  try {
    const read: OpenSheetOptions = { ...options.read, sheet: options.sheet };
    opened = await openSheet(file, read);
    const sheet = options.settings?.edits?.length ? applyCellEdits(opened, options.settings.edits) : opened;
    // Which worksheet was read when that is not the obvious one (the Fix sheet of a result workbook).
    for (const notice of sheet.notices ?? []) options.logger.warn({ file, sheet: sheet.sheetName }, notice);
    const settings = options.settings ?? {};
    const reading = chooseReading(file, sheet.headers, sheet.headerRow, settings.mapping ?? { kind: 'auto', profiles: BUILTIN_PROFILES });
    // A profile's derived cells are kept beside the file's own: room for them as well, in proportion.
    const keptWidth = reading.kind === 'profile' ? (reading.compiled.width + reading.compiled.derived.length) / Math.max(1, reading.compiled.width) : 1;
    checkRoomForRows({ file, format: sheet.format, sizeBytes: Math.ceil(sheet.sizeBytes * keptWidth) }, options.keep);
    const notices: string[] = reading.kind === 'template' ? [...reading.notices] : [];
    notices.push(...(sheet.notices ?? []));
    const profile = reading.kind === 'profile' ? reading.compiled.profile : undefined;
    const context: CheckContext = {
      ...options.context,
      ...(profile?.dateOrder !== undefined && !settings.isDateOrderForced && { dateOrder: profile.dateOrder }),
      ...(profile?.dateFormat !== undefined && { dateFormat: profile.dateFormat }),
    };

    const decision = await decideNumbers(file, read, sheet.csvDelimiter, reading, settings.decimalMark);
    // Said once for the file; an undecided value's own issue points here rather than repeating it.
    if (decision?.statement) notices.push(decision.statement);
    const numberFormat = decision ? { mark: decision.mark } : undefined;
    options.progress?.start(file, sheet.sizeBytes);
    const checking: CheckSheetOptions = {
      ...options.keep,
      onProgress: options.progress ? () => options.progress?.update(sheet.bytesRead()) : undefined,
      ...(numberFormat && { numberFormat }),
    };
    let checked: CheckedSheet;
    if (reading.kind === 'profile') {
      const mapped = mapOpenedSheet(sheet, reading.compiled, { isLocaleAware: numberFormat !== undefined, mark: numberFormat?.mark ?? null }, settings.audience);
      checked = mapped.rebase(await checkSheet(mapped.sheet, mapped.columns, context, { ...checking, reviseOrder: mapped.reviseOrder }));
    } else {
      checked = await checkSheet(sheet, reading.mapped, context, checking);
    }
    options.progress?.stop();
    // What the reader found while reading (complete now that every row is read), before the header's issues.
    checked.fileIssues.unshift(...(sheet.issues?.() ?? []));
    if (reading.kind === 'profile') options.logger.info({ file, profile: reading.compiled.profile.name }, describeReading(file, reading));
    for (const notice of notices) options.logger.info({ file }, notice);
    options.logger.info({ file, rows: checked.rows.size, orders: checked.orders.length }, 'checked sheet');
    return {
      ok: true,
      file,
      sheet: checked,
      notices,
      ...(reading.kind === 'profile' && { profile: reading.compiled.profile }),
      ...(profile && reading.kind === 'profile' && { mapping: { profile: profile.name, label: profile.label, detected: reading.isDetected, description: describeReading(file, reading) } }),
    };
  } catch (err) {
    options.progress?.stop();
    if (err instanceof InputError) {
      options.logger.debug({ file, code: err.code, cause: err.cause instanceof Error ? err.cause.message : undefined }, 'input error');
      return { ok: false, file, code: err.code, message: err.message };
    }
    throw err;
  } finally {
    // Rows left unread (a setting refused before checking began) must not keep the file, or a reader thread, open.
    await opened?.rows[Symbol.asyncIterator]().return?.();
  }
}

/**
 * The file's decimal mark, decided once (decimal-mark.ts): forced by --decimal-comma or the profile, or
 * read from all the number cells of a CSV separated by semicolons or tabs (a second pass over the file,
 * over those columns only). Undefined: numbers are read the usual way (the point is the decimal mark).
 */
async function decideNumbers(file: string, read: OpenSheetOptions, delimiter: string | undefined, reading: SheetReading, forced: DecimalMark | undefined): Promise<DecimalMarkDecision | undefined> {
  const profileMark = reading.kind === 'profile' ? reading.compiled.profile.decimalMark : undefined;
  if (forced !== undefined) return decideDecimalMark(file, emptyCounts(), { mark: forced, by: '--decimal-comma' });
  if (profileMark === 'dot' || profileMark === 'comma') {
    return decideDecimalMark(file, emptyCounts(), { mark: profileMark, by: `the ${reading.kind === 'profile' ? reading.compiled.profile.name : ''} profile's decimalMark` });
  }
  if (!isLocaleDelimiter(delimiter)) return undefined;
  const columns = numberColumns(reading);
  const counts = emptyCounts();
  if (columns.length > 0) {
    // Read as the first pass reads it: the same worksheet, size limits and parse worker.
    const again = await openSheet(file, read);
    try {
      for await (const batch of again.rows) {
        for (const row of batch) {
          for (const c of columns) {
            const cell = row.cells[c];
            if (typeof cell === 'string') countEvidence(counts, cell);
          }
        }
      }
    } finally {
      await again.rows[Symbol.asyncIterator]().return?.();
    }
  }
  return decideDecimalMark(file, counts);
}

/** The source columns that hold amounts or quantities. */
function numberColumns(reading: SheetReading): number[] {
  const isNumber = (field: Field | null) => {
    const kind = field === null ? undefined : COLUMN_BY_FIELD.get(field)?.kind;
    return kind === 'money' || kind === 'integer';
  };
  const columns = new Set<number>();
  if (reading.kind === 'template') {
    reading.mapped.columns.forEach((field, i) => {
      if (isNumber(field)) columns.add(i);
    });
  } else {
    for (const d of reading.compiled.derived) {
      if (!isNumber(d.field)) continue;
      for (const s of d.sources) columns.add(s);
      if (d.minusSource >= 0) columns.add(d.minusSource);
    }
  }
  return [...columns];
}
