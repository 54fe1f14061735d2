/** Reads and checks one sheet; a file that cannot be used becomes a fatal outcome, never an exception. */
import { InputError } from '../errors.js';
import type { Logger } from '../log.js';
import { checkSheet } from '../orders/check-sheet.js';
import type { CheckContext, CheckedSheet } from '../orders/types.js';
import { mapHeaders } from '../sheet/headers.js';
import { openSheet, type OpenSheetOptions } from '../sheet/read-sheet.js';
import type { Progress } from './progress.js';

export type CheckedFile =
  | { ok: true; file: string; sheet: CheckedSheet; /** What the reader chose that a user should know (the Fix sheet of a result workbook). */ notices: readonly string[] }
  | { ok: false; file: string; code: InputError['code']; message: string };

export async function checkFile(
  file: string,
  options: { context: CheckContext; sheet?: string; logger: Logger; progress?: Progress; read?: Pick<OpenSheetOptions, 'workerMinBytes' | 'workerUrl'> },
): Promise<CheckedFile> {
  let opened: Awaited<ReturnType<typeof openSheet>> | undefined;
  try {
    const sheet = (opened = await openSheet(file, { ...options.read, sheet: options.sheet }));
    // Which worksheet was read when that is not the obvious one (the Fix sheet of a result workbook).
    for (const notice of sheet.notices ?? []) options.logger.warn({ file, sheet: sheet.sheetName }, notice);
    const mapped = mapHeaders(sheet.headers, sheet.headerRow);
    options.progress?.start(file, sheet.sizeBytes);
    const checked = await checkSheet(sheet, mapped, options.context, {
      onProgress: options.progress ? () => options.progress?.update(sheet.bytesRead()) : undefined,
    });
    options.progress?.stop();
    // What the reader found while reading (complete now that every row is read), before the header's issues.
    checked.fileIssues.unshift(...(sheet.issues?.() ?? []));
    options.logger.info({ file, rows: checked.rows.size, orders: checked.orders.length }, 'checked sheet');
    return { ok: true, file, sheet: checked, notices: sheet.notices ?? [] };
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
