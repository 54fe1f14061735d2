/**
 * `reconcile --orders <result file>`: the customerOrderIds of a result file written by validate or
 * import (xlsx or csv: the input columns, then status, issues, ...). Only orders the API holds are
 * taken: rows whose status is accepted or already_submitted. A plain order sheet (no status column)
 * contributes every order, with a warning.
 */
import { InputError } from '../errors.js';
import type { Logger } from '../log.js';
import { joinLines, textFromCell } from '../orders/text.js';
import { FIELD_BY_HEADER, normalizeHeader } from '../sheet/columns.js';
import { openSheet } from '../sheet/read-sheet.js';
import type { CellValue } from '../sheet/types.js';

export const SUBMITTED_STATUSES: ReadonlySet<string> = new Set(['accepted', 'already_submitted']);

export interface OrdersFile {
  file: string;
  sha256: string;
  rows: number;
  /** In first-seen order, without repeats. */
  customerOrderIds: string[];
  /** Orders left out, per status (invalid, rejected, failed, ...). */
  skipped: Record<string, number>;
  hasStatusColumn: boolean;
}

/**
 * A cell's text as import read it: the same cleaning (trimmed, our formula guard's apostrophe gone, lines
 * joined), so an ID is looked up as it was sent (`'@AT-2` in a result CSV was sent as `@AT-2`).
 */
function cellText(value: CellValue | undefined): string {
  if (value === undefined) return '';
  const read = textFromCell(value, true);
  return read.kind === 'blank' ? '' : joinLines(read.text);
}

export async function readOrdersFile(file: string, options: { sheet?: string; logger: Logger }): Promise<OrdersFile> {
  // An import result workbook is read on its Results sheet, which holds every order with its status;
  // validate and import read its Fix sheet instead (the rows to correct).
  const sheet = await openSheet(file, { resultSheet: 'Results', ...(options.sheet !== undefined && { sheet: options.sheet }) });
  for (const notice of sheet.notices ?? []) options.logger.warn({ file }, notice);
  const keys = sheet.headers.map(normalizeHeader);
  const idColumn = keys.findIndex((k) => FIELD_BY_HEADER.get(k) === 'customerOrderId');
  const statusColumn = keys.indexOf('status');
  if (idColumn < 0) {
    await sheet.rows[Symbol.asyncIterator]().return?.();
    throw new InputError(file, 'missing_column', `${file} has no customerOrderId column: give --orders a result file written by validate or import`);
  }
  if (statusColumn < 0) options.logger.warn({ file }, 'no status column: taking every order of the file, as if all were accepted');

  const statusOf = new Map<string, string>();
  let rows = 0;
  for await (const batch of sheet.rows) {
    for (const row of batch) {
      rows++;
      const id = cellText(row.cells[idColumn]);
      if (id === '') continue;
      const status = statusColumn < 0 ? 'accepted' : cellText(row.cells[statusColumn]).toLowerCase();
      // Every row of an order carries the order's status; the first row decides.
      if (!statusOf.has(id)) statusOf.set(id, status);
    }
  }
  const customerOrderIds: string[] = [];
  const skipped: Record<string, number> = {};
  for (const [id, status] of statusOf) {
    if (SUBMITTED_STATUSES.has(status)) customerOrderIds.push(id);
    else skipped[status || '(blank)'] = (skipped[status || '(blank)'] ?? 0) + 1;
  }
  return { file, sha256: sheet.sha256(), rows, customerOrderIds, skipped, hasStatusColumn: statusColumn >= 0 };
}
