/** An import's sheets read and checked offline, each with its orders' outcomes so far. */
import { hasErrors } from '../issues/index.js';
import { toJsonIssues, type JsonInput } from '../run-report/json.js';
import { checkFile } from '../validate/check-file.js';
import { outcomeView, type FileState } from './plan-import.js';
import type { ImportOptions } from './import-options.js';

/** Each file read and checked offline: what the report says of it, and the checked sheets. */
export async function readSheets(files: readonly string[], options: ImportOptions): Promise<{ inputs: JsonInput[]; states: FileState[]; hasUnusableInput: boolean }> {
  const inputs: JsonInput[] = [];
  const states: FileState[] = [];
  let hasUnusableInput = false;
  for (const file of files) {
    const checked = await checkFile(file, { context: options.context, sheet: options.sheet, logger: options.logger, progress: options.progress, ...(options.readSettings && { settings: options.readSettings }) });
    if (!checked.ok) {
      hasUnusableInput = true;
      inputs.push({ file, sha256: null, rows: 0, orders: 0, error: { code: checked.code, message: checked.message } });
      continue;
    }
    const { sheet } = checked;
    if (hasErrors(sheet.fileIssues)) hasUnusableInput = true;
    const notices = checked.notices.length > 0 ? { notices: [...checked.notices] } : {};
    inputs.push({ file, sha256: sheet.sha256, rows: sheet.rows.size, orders: sheet.orders.length, issues: toJsonIssues(sheet.fileIssues), ...notices, ...(checked.mapping && { mapping: checked.mapping }) });
    states.push({ file, sheet, outcomes: sheet.orders.map((o) => outcomeView(o.status === 'invalid' || hasErrors(o.issues) ? 'invalid' : 'valid', [...o.issues])) });
  }
  return { inputs, states, hasUnusableInput };
}

