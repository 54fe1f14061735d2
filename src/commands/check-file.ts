/** Reads and checks one sheet; a file that cannot be used becomes a fatal outcome, never an exception. */
import { InputError } from '../errors.js';
import type { Logger } from '../log.js';
import { checkSheet } from '../orders/index.js';
import type { CheckContext, CheckedSheet } from '../orders/types.js';
import { mapHeaders } from '../sheet/headers.js';
import { openSheet } from '../sheet/read-sheet.js';
import type { Progress } from './progress.js';

export type CheckedFile =
  | { ok: true; file: string; sheet: CheckedSheet }
  | { ok: false; file: string; code: InputError['code']; message: string };

export async function checkFile(
  file: string,
  options: { context: CheckContext; sheet?: string; logger: Logger; progress?: Progress },
): Promise<CheckedFile> {
  try {
    const opened = await openSheet(file, { sheet: options.sheet });
    const mapped = mapHeaders(opened.headers, opened.headerRow);
    options.progress?.start(file, opened.sizeBytes);
    const checked = await checkSheet(opened, mapped, options.context, {
      onProgress: options.progress ? () => options.progress?.update(opened.bytesRead()) : undefined,
    });
    options.progress?.stop();
    options.logger.info({ file, rows: checked.rows.size, orders: checked.orders.length }, 'checked sheet');
    return { ok: true, file, sheet: checked };
  } catch (err) {
    options.progress?.stop();
    if (err instanceof InputError) {
      options.logger.debug({ file, code: err.code, cause: err.cause instanceof Error ? err.cause.message : undefined }, 'input error');
      return { ok: false, file, code: err.code, message: err.message };
    }
    throw err;
  }
}
